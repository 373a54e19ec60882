import Coherence
import CoherencePostgres
import Foundation
import PostgresNIO
import Workloads

/// One measured run: a scenario, a side and a number of writer processes.
struct Run: Sendable {
    let scenario: Scenario
    let side: Side
    let writers: Int
    /// Whether the store keeps persistent history (the extra Coherence run).
    var history = false

    /// The run's key in the JSON output: `uncontended/raw/4`, or
    /// `history/coherence/4` for the run with persistent history.
    var label: String {
        "\(history ? "history" : scenario.rawValue)/\(side.rawValue)/\(writers)"
    }

    /// The run as failure messages name it.
    var title: String {
        "\(scenario.rawValue), \(side.rawValue) side, W = \(writers)\(history ? ", persistent history on" : "")"
    }
}

/// What a run measured.
struct RunResult: Sendable {
    let run: Run
    /// Saves committed by all writers.
    let saves: Int
    let retries: Int
    let errors: Int
    /// From the parent's `go` to the last writer's result.
    let seconds: Double

    var savesPerSecond: Double { seconds > 0 ? Double(saves) / seconds : 0 }
}

/// A run, from a new schema to its checks: prepare the schema with
/// Coherence, start the writers, release them at once, time them, check
/// what they wrote, drop the schema.
enum WriterRun {
    /// Measures `run` with `saves` saves per writer in a schema of its own,
    /// checks it, and drops the schema (kept, and named, when a check fails).
    static func measure(_ run: Run, saves: Int) async throws -> RunResult {
        let schema = "writers_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        try prepare(run, schema: schema)
        if run.side == .raw {
            try await RawSQL.withConnection(schema: schema) { (connection: PostgresConnection) async throws -> Void in
                let rows = try await RawSQL.execute(RawSQL.keySequenceExists, on: connection)
                guard let row = rows.first, try row.decode(Bool.self) else {
                    throw Failure("\(run.title): Coherence's store made no key sequence \"Row_Z_PK_seq\" in schema \(schema), which the raw side reads")
                }
            }
        }
        let result: RunResult
        do {
            let (reports, elapsed) = try WriterGroup.run(run, schema: schema, saves: saves)
            result = RunResult(run: run, saves: reports.reduce(0) { $0 + $1.saves }, retries: reports.reduce(0) { $0 + $1.retries },
                               errors: reports.reduce(0) { $0 + $1.errors }, seconds: elapsed)
            try await RunChecks.verify(result, savesPerWriter: saves, schema: schema)
        } catch {
            throw Failure("\(error) (schema \(schema) kept for inspection)")
        }
        guard let server = PostgresWorkloads.serverURL else { throw Failure("COHERENCE_POSTGRES_URL is not set") }
        try await PostgresWorkloads.dropSchema(url: server, schema)
        return result
    }

    /// Creates Coherence's tables (and, in the store, the key sequence) by
    /// opening a `PostgresStore` in the new schema, and saves the counter
    /// row of the contended scenarios. Both sides then write the same tables.
    static func prepare(_ run: Run, schema: String) throws {
        let context = try Stack.context(Writers.model, Writers.storeDescription(schema: schema, history: run.history))
        guard run.scenario != .uncontended else { return }
        try context.performAndWait { () throws -> Void in
            let counter = Row(context: context)
            counter.writer = -1
            try context.save()
        }
    }
}

/// The writer processes of one run.
enum WriterGroup {
    /// Starts `run.writers` writers, waits until each is ready, says `go` to
    /// all, and collects their reports. Returns them and the wall time from
    /// `go` to the last report.
    static func run(_ run: Run, schema: String, saves: Int) throws -> (reports: [WriterReport], seconds: Double) {
        var processes: [WriterProcess] = []
        // On a failure, no writer is left behind.
        defer { for process in processes { process.stop() } }
        for index in 0..<run.writers {
            let task = WriterTask(scenario: run.scenario, side: run.side, schema: schema, index: index, saves: saves, history: run.history)
            processes.append(try WriterProcess(arguments: task.arguments))
        }
        for (index, process) in processes.enumerated() {
            guard process.line(startingWith: "ready") != nil else {
                throw Failure("\(run.title): writer \(index) stopped before it was ready (exit status \(process.finish()))")
            }
        }
        let start = ContinuousClock.now
        for process in processes {
            try process.go()
        }
        var reports: [WriterReport] = []
        for (index, process) in processes.enumerated() {
            guard let json = process.line(startingWith: "result ") else {
                throw Failure("\(run.title): writer \(index) stopped without a result (exit status \(process.finish()))")
            }
            reports.append(try JSONDecoder().decode(WriterReport.self, from: Data(json.utf8)))
        }
        let elapsed = seconds(since: start)
        for (index, process) in processes.enumerated() {
            let status = process.finish()
            guard status == 0 else { throw Failure("\(run.title): writer \(index) exited with status \(status)") }
        }
        return (reports, elapsed)
    }
}

/// A writer process this one started: this executable again with
/// `--writer`, its standard input and output piped to this process, its
/// standard error this process's.
final class WriterProcess {
    private let process = Process()
    private let input = Pipe()
    private let lines: LineReader

    init(arguments: [String]) throws {
        let output = Pipe()
        process.executableURL = URL(filePath: CommandLine.arguments[0]).standardizedFileURL
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        lines = LineReader(output.fileHandleForReading)
        try process.run()
    }

    /// The rest of the next line that starts with `prefix`; other lines (not
    /// the benchmark's) go to standard error. `nil` once the writer closed
    /// its output.
    func line(startingWith prefix: String) -> String? {
        while let line = lines.next() {
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
            FileHandle.standardError.write(Data("writer: \(line)\n".utf8))
        }
        return nil
    }

    /// Releases the writer from its start barrier.
    func go() throws {
        try input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
    }

    /// Waits for the writer to exit; returns its exit status.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Ends the writer if it is still running (after a failure elsewhere).
    func stop() {
        if process.isRunning { process.terminate() }
        _ = finish()
    }
}

/// The checks after a run: what the writers saved is what they reported,
/// with no update lost, no key doubled, and (with history) every save in
/// the history once, in commit order.
enum RunChecks {
    /// Checks `result`'s run against what its schema holds; throws a
    /// failure naming the scenario, side and W.
    static func verify(_ result: RunResult, savesPerWriter saves: Int, schema: String) async throws {
        let run = result.run
        let expected = run.writers * saves
        switch run.scenario {
        case .uncontended:
            try require(result.saves == expected, run, "the writers reported \(result.saves) saves, not \(expected)")
            try await RawSQL.withConnection(schema: schema) { (connection: PostgresConnection) async throws -> Void in
                try await verifyRows(run, savesPerWriter: saves, on: connection)
            }
            if run.history { try verifyHistory(run, schema: schema, saves: expected) }
        case .contendedError:
            try require(result.saves == expected, run, "the writers reported \(result.saves) saves, not \(expected)")
            let count = try await RawSQL.withConnection(schema: schema) { (connection: PostgresConnection) async throws -> Int64 in
                try await RawSQL.int64(#"SELECT "count" FROM "Row""#, on: connection)
            }
            try require(count == Int64(expected), run, "the counter is at \(count), not \(expected): \(Int64(expected) - count) updates lost")
        case .contendedObjectTrump:
            try require(result.errors == 0, run, "save() threw \(result.errors) errors under .mergeByPropertyObjectTrump, which must never throw")
            try require(result.saves == expected, run, "the writers reported \(result.saves) saves, not \(expected)")
        }
    }

    /// Throws a failure naming `run` unless `condition` holds.
    static func require(_ condition: Bool, _ run: Run, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure("\(run.title): \(message())") }
    }

    /// The uncontended scenario's rows: one per save, each with a key of
    /// its own; every row but each writer's last was updated exactly once
    /// (`Z_OPT` 2, `count` 1), each writer's last never (`Z_OPT` 1, `count` 0).
    static func verifyRows(_ run: Run, savesPerWriter saves: Int, on connection: PostgresConnection) async throws {
        let expected = Int64(run.writers * saves)
        let rows = try await RawSQL.int64(#"SELECT COUNT(*) FROM "Row""#, on: connection)
        try require(rows == expected, run, "\(rows) rows, expected \(expected) (writers × saves)")
        let keys = try await RawSQL.int64(#"SELECT COUNT(DISTINCT "Z_PK") FROM "Row""#, on: connection)
        try require(keys == rows, run, "\(rows - keys) rows share a key with another")
        let distinctSaves = try await RawSQL.int64(#"SELECT COUNT(*) FROM (SELECT DISTINCT "writer", "serial" FROM "Row") AS saves"#, on: connection)
        try require(distinctSaves == rows, run, "\(rows - distinctSaves) saves were written twice")
        let wrong = try await RawSQL.int64(#"""
            SELECT COUNT(*) FROM "Row" WHERE CASE WHEN "serial" = $1 THEN "Z_OPT" <> 1 OR "count" <> 0
                                                  ELSE "Z_OPT" <> 2 OR "count" <> 1 END
            """#, Int64(saves - 1), on: connection)
        try require(wrong == 0, run, "\(wrong) rows whose update was lost or made twice (Z_OPT or count off)")
    }

    /// The persistent history of the run with history on, read through
    /// Coherence's public API: one transaction per save (the parent saved
    /// nothing in this scenario), numbered consecutively in commit order,
    /// and every inserted object in exactly one insert change.
    static func verifyHistory(_ run: Run, schema: String, saves: Int) throws {
        let context = try Stack.context(Writers.model, Writers.storeDescription(schema: schema, history: true))
        let transactions = try context.performAndWait { () throws -> [PersistentHistoryTransaction] in
            let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
            guard let history = result as? PersistentHistoryResult else { throw Failure("the history request returned \(result)") }
            return history.transactions
        }
        try require(transactions.count == saves, run, "history: \(transactions.count) transactions, expected \(saves) (one per save)")
        for (earlier, later) in zip(transactions, transactions.dropFirst()) {
            try require(later.transactionNumber == earlier.transactionNumber + 1, run,
                        "history: transaction \(later.transactionNumber) follows \(earlier.transactionNumber): numbers must go up by exactly 1")
        }
        var inserts: [ManagedObjectID: Int] = [:]
        for transaction in transactions {
            for change in transaction.changes ?? [] where change.changeType == .insert {
                inserts[change.changedObjectID, default: 0] += 1
            }
        }
        let doubled = inserts.values.filter { $0 != 1 }.count
        try require(doubled == 0, run, "history: \(doubled) objects appear in more than one insert change")
        try require(inserts.count == saves, run, "history: \(inserts.count) inserted objects in the history, expected \(saves)")
    }
}
