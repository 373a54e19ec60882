import Coherence
import Foundation
import Testing

/// The kill campaign of issue 28: a child process saves in a loop, or
/// creates a new store and then saves, and is killed with SIGKILL at a
/// random moment (0–120 ms after it starts, so kills land during the
/// store's creation too). After each kill the store must open, hold every
/// save entirely or not at all, and hold every save that returned before
/// the kill.
///
/// Size: `COHERENCE_KILL_ROUNDS` kills per test (4 by default, for CI;
/// `Reliability/report` runs 500 of each). Each run prints
/// `N kills, M lost, P partial, U unopenable`.
@Suite("Reliability campaign: kills")
struct KillCampaign {
    static var rounds: Int { ProcessInfo.processInfo.environment["COHERENCE_KILL_ROUNDS"].flatMap(Int.init) ?? 4 }

    /// Kills during saves to a store that grows across rounds (a new store
    /// every ten rounds, so that checking one stays cheap).
    @Test func killsDuringSaves() async throws {
        var folder = ""
        try await Self.killRounds("kills during saves", delays: 10...120) { round in
            if round.isMultiple(of: 10) { folder = TestFiles.newURL("kills").path }
            return folder
        }
    }

    /// Kills during a new store's creation (and its first saves): each round
    /// a new file.
    @Test func killsDuringCreation() async throws {
        try await Self.killRounds("kills during store creation", delays: 0...60) { _ in TestFiles.newURL("created").path }
    }

    /// ``rounds`` kills of a child saving to the store of `folder(round)`,
    /// each `delays` milliseconds after it starts; checks the store after
    /// each and prints the figures under `label`.
    static func killRounds(_ label: String, delays: ClosedRange<Int>, folder: (Int) throws -> String) async throws {
        var lost = 0, partial = 0, unopenable = 0
        for round in 0..<rounds {
            let folder = try folder(round)
            let delay = Int.random(in: delays)
            await #expect(processExitsWith: .signal(SIGKILL)) { [folder = folder as String, delay = delay as Int] in
                try KillCampaign.saveUntilKilled(folder: folder, killAfter: delay)
            }
            check(folder: folder, lost: &lost, partial: &partial, unopenable: &unopenable)
        }
        print("\(label): \(rounds) kills, \(lost) lost, \(partial) partial, \(unopenable) unopenable")
        #expect(lost == 0 && partial == 0 && unopenable == 0)
    }

    /// In the child: the timer starts first, then the store opens (created
    /// if new) and numbered saves follow, each logged once `save()` returned.
    static func saveUntilKilled(folder: String, killAfter milliseconds: Int) throws {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { kill(getpid(), SIGKILL) }
        let directory = URL(filePath: folder, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appending(path: "returned.log")
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        let context = try NumberedSaves.openContext(directory)
        // Saves are numbered 1, 2, 3… across rounds: continue after the last one stored.
        var number = try context.performAndWait { try context.count(for: FetchRequest<Server>()) }
        while true {
            number += 1
            try NumberedSaves.save(number, in: context)
            handle.write(Data("\(number)\n".utf8))
        }
    }

    /// Opens the store the child left and counts what is wrong.
    static func check(folder: String, lost: inout Int, partial: inout Int, unopenable: inout Int) {
        do {
            let directory = URL(filePath: folder, directoryHint: .isDirectory)
            let complete = try NumberedSaves.found(in: NumberedSaves.openContext(directory))
            let returned = (try? String(contentsOf: directory.appending(path: "returned.log"), encoding: .utf8)) ?? ""
            // Only this round's child logged numbers above the previous
            // maximum; checking the largest covers all of them.
            let lastReturned = returned.split(separator: "\n").compactMap { Int($0) }.max() ?? -1
            if !complete.allSatisfy({ $0.value == NumberedSaves.itemsPerSave }) {
                partial += 1
                Issue.record("a save was half written in \(folder): \(complete)")
            }
            let saved = Set(complete.keys)
            if lastReturned > saved.count || saved != Set(saved.isEmpty ? [] : Array(1...saved.max()!)) {
                lost += 1
                Issue.record("saves are missing in \(folder): \(saved.sorted()), last returned \(lastReturned)")
            }
        } catch {
            unopenable += 1
            Issue.record("the store in \(folder) could not be opened after a kill: \(error)")
        }
    }
}
