import Coherence
import CoherencePostgres
import Foundation
import Testing

/// A child process saves in a loop and is killed with SIGKILL at a random
/// moment; the store must then hold every save entirely or not at all, and
/// every save that returned before the kill.
@Suite("Durability under SIGKILL")
struct CrashDurabilityTests {
    static let itemsPerSave = 7

    @Test func everySaveIsAllOrNothingAndReturnedSavesSurvive() async throws {
        let folder = TestFiles.newURL("crash").path
        for round in 0..<4 {
            await #expect(processExitsWith: .signal(SIGKILL)) { [folder = folder as String] in
                try CrashDurabilityTests.saveUntilKilled(folder: folder)
            }
            let (complete, lastReturned) = try Self.inspect(folder: folder)
            #expect(complete.allSatisfy { $0.value == Self.itemsPerSave }, "round \(round): a save was half written: \(complete)")
            let saved = Set(complete.keys)
            #expect(lastReturned > 0, "round \(round): the child saved before it was killed")
            #expect(saved == Set(1...max(saved.max() ?? 0, 1)), "round \(round): saves are missing: \(saved.sorted())")
            #expect(lastReturned <= saved.count, "round \(round): save \(lastReturned) returned but is missing")
        }
    }

    /// In the child: numbered saves of one server and its items, each logged
    /// once `save()` returned, until a timer kills the process.
    static func saveUntilKilled(folder: String) throws {
        let directory = URL(filePath: folder, directoryHint: .isDirectory)
        let context = try openContext(directory)
        let log = directory.appending(path: "returned.log")
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        // Saves are numbered 1, 2, 3… across rounds: continue after the last one stored.
        var number = try context.performAndWait { try context.count(for: FetchRequest<Server>()) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 20...120))) {
            kill(getpid(), SIGKILL)
        }
        while true {
            number += 1
            let saveNumber = number
            try context.performAndWait {
                let server = Server(context: context)
                server.name = "save \(saveNumber)"
                for index in 0..<itemsPerSave {
                    let item = FeedItem(context: context)
                    item.title = "\(saveNumber).\(index)"
                    item.server = server
                }
                try context.save()
            }
            handle.write(Data("\(saveNumber)\n".utf8))
        }
    }

    /// The store of `directory`: `store.sqlite` there, or the PostgreSQL
    /// store whose URL (with its schema) a `store.url` file there holds.
    static func openContext(_ directory: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        if let url = try? String(contentsOf: directory.appending(path: "store.url"), encoding: .utf8) {
            try coordinator.addPersistentStore(.postgres(url: url))
        } else {
            try coordinator.addPersistentStore(.sqlite(directory.appending(path: "store.sqlite")))
        }
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    /// Items per save number found in the store, and the last save the child
    /// saw return (-1 if none).
    static func inspect(folder: String) throws -> ([Int: Int], Int) {
        let directory = URL(filePath: folder, directoryHint: .isDirectory)
        let context = try openContext(directory)
        let complete: [Int: Int] = try context.performAndWait {
            var counts: [Int: Int] = [:]
            for server in try context.fetch(FetchRequest<Server>()) {
                let number = Int(server.name.dropFirst("save ".count)) ?? -1
                counts[number] = server.feedItems.count
            }
            let orphans = try context.count(for: FetchRequest<FeedItem>(predicate: #Predicate { $0.server == nil }))
            if orphans > 0 { counts[-1] = orphans }
            return counts
        }
        let returned = (try? String(contentsOf: directory.appending(path: "returned.log"), encoding: .utf8)) ?? ""
        let numbers = returned.split(separator: "\n").compactMap { Int($0) }
        // Only this round's child logged numbers above the previous maximum;
        // checking the largest covers all of them.
        return (complete, numbers.max() ?? -1)
    }
}
