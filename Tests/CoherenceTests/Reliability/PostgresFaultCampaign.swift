import Coherence
import CoherencePostgres
import Foundation
import Testing

/// The PostgreSQL faults of issue 28's kill campaign: the client process
/// killed with SIGKILL mid-save (PostgreSQL rolls back a transaction whose
/// connection dies), and the server itself crashing and restarting
/// (`pg_ctl restart -m immediate`) while a context saves. Every save that
/// returned must be in the database, whole; every save must be whole or
/// absent; a save during the outage fails with a typed error; saves work
/// again once the server is back.
///
/// Size: `COHERENCE_KILL_ROUNDS` client kills and server restarts (4 by
/// default; `Reliability/report` runs 500 kills and 50 restarts).
@Suite("Reliability campaign: PostgreSQL faults", .serialized, .enabled(if: PostgresTestServer.shouldRun))
struct PostgresFaultCampaign {
    @Test func killsDuringPostgresSaves() async throws {
        var folder = ""
        try await KillCampaign.killRounds("kills during saves (postgres client)", delays: 30...300) { round in
            if round.isMultiple(of: 10) {
                folder = TestFiles.newURL("postgres-kills").path
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let schema = try PostgresTestServer.newSchemaConfiguration().schema
                try Data("\(PostgresTestServer.url!)?schema=\(schema)".utf8).write(to: URL(fileURLWithPath: folder + "/store.url"))
            }
            return folder
        }
    }

    static var restarts: Int { ProcessInfo.processInfo.environment["COHERENCE_RESTART_ROUNDS"].flatMap(Int.init) ?? 2 }

    /// A server of its own (restarting the shared one would fail every
    /// other PostgreSQL test running beside this one).
    @Test(.enabled(if: PrivatePostgresServer.canStart)) func serverRestartsDuringSaves() throws {
        let server = try PrivatePostgresServer()
        defer { server.stop() }
        let folder = TestFiles.newURL("postgres-restarts")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(server.url.utf8).write(to: folder.appending(path: "store.url"))
        let context = try NumberedSaves.openContext(folder)
        let restarted = RestartLog()
        DispatchQueue.global().async {
            for _ in 0..<Self.restarts {
                usleep(UInt32.random(in: 100_000...400_000))
                restarted.record(server.restart())
            }
            restarted.finish()
        }
        var returned: [Int] = [], failed = 0, untyped = 0, number = 0, successesAfterRestarts = 0
        while successesAfterRestarts < 20 {
            number += 1
            do {
                try NumberedSaves.save(number, in: context)
                returned.append(number)
                if restarted.isFinished { successesAfterRestarts += 1 }
            } catch {
                failed += 1
                if !(error is StoreError) { untyped += 1; Issue.record("an untyped error: \(type(of: error)) \(error)") }
                context.performAndWait { context.rollback() }
                usleep(20_000) // back off while the server restarts
            }
            if restarted.isFinished, !restarted.failures.isEmpty { break } // a restart failed: reported below
            if number > 200_000 { Issue.record("saves never worked again after the restarts"); break }
        }
        #expect(restarted.failures.isEmpty, "pg_ctl restart: \(restarted.failures)")
        let found = try NumberedSaves.found(in: NumberedSaves.openContext(folder))
        let missing = Set(returned).subtracting(found.keys)
        let partial = found.filter { $0.value != NumberedSaves.itemsPerSave }
        print("server restarts (postgres): \(Self.restarts) restarts, \(returned.count) saves returned, \(failed) failed"
              + " with a typed error, \(untyped) untyped, \(missing.count) lost, \(partial.count) partial")
        #expect(missing.isEmpty && partial.isEmpty && untyped == 0)
        #expect(failed > 0, "the restarts landed during saves")
    }
}

/// Which restarts happened, from the thread that runs them.
final class RestartLog: @unchecked Sendable {
    private let lock = NSLock()
    private var finished = false
    private var errors: [String] = []
    func record(_ error: String?) { lock.withLock { if let error { errors.append(error) } } }
    func finish() { lock.withLock { finished = true } }
    var isFinished: Bool { lock.withLock { finished } }
    var failures: [String] { lock.withLock { errors } }
}

/// A throwaway PostgreSQL 15 server started with `.ci/postgres-server.sh`,
/// for a test that crashes and restarts it.
struct PrivatePostgresServer: Sendable {
    static let binaries = "/usr/lib/postgresql/15/bin"
    static var canStart: Bool { PostgresTestServer.shouldRun && FileManager.default.isExecutableFile(atPath: binaries + "/pg_ctl") }
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: ".ci/postgres-server.sh").path

    let url: String
    let directory: String

    init() throws {
        let output = try Self.shell("source '\(Self.script)' && start_postgres 2>/dev/null && trap - EXIT && echo \"$COHERENCE_POSTGRES_URL\" && echo \"$postgres_dir\"")
        let lines = output.split(separator: "\n").map(String.init)
        guard lines.count >= 2 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "no server: \(output)"]) }
        (url, directory) = (lines[lines.count - 2], lines[lines.count - 1])
    }

    /// Crashes the server (immediate mode: no shutdown checkpoint, as a
    /// killed server) and starts it again; the error, if it failed.
    func restart() -> String? {
        do {
            _ = try Self.shell(asServer("\(Self.binaries)/pg_ctl -D '\(directory)/data' -l '\(directory)/server.log' -m immediate -w -t 60 restart") + " >/dev/null 2>&1")
            return nil
        } catch {
            return "\(error)"
        }
    }

    func stop() {
        _ = try? Self.shell(asServer("\(Self.binaries)/pg_ctl -D '\(directory)/data' -m immediate -w stop") + " >/dev/null 2>&1; rm -rf '\(directory)'")
    }

    private func asServer(_ command: String) -> String {
        getuid() == 0 ? "runuser -u postgres -- \(command)" : command
    }

    /// Runs `command` (see ``ShellCommand``); its output, or an error.
    @discardableResult
    static func shell(_ command: String) throws -> String {
        let (status, output) = try ShellCommand.run(command)
        guard status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "`\(command)` exited with \(status): \(output.suffix(500))"])
        }
        return output
    }
}
