import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// Two OS processes on one database (an SQLite file, a PostgreSQL schema),
/// each incrementing one counter in a loop at the same time: no update is
/// lost, and under the error merge policy, Core Data's default, every save
/// that fails is a conflict naming the counter, reported as a merge error
/// (`NSPersistentStoreSaveConflictsError` with an `NSMergeConflict`):
/// https://developer.apple.com/documentation/coredata/nserrormergepolicy
/// https://developer.apple.com/documentation/coredata/nspersistentstoresaveconflictserror
/// https://developer.apple.com/documentation/coredata/nsmergeconflict
@Suite("Two processes saving conflicting changes")
struct TwoProcessConflictTests {
    /// Increments each process attempts.
    static let attempts = 40

    /// What one process's loop of increments did.
    struct Tally: Sendable, Equatable, Codable, CustomStringConvertible {
        var saved = 0
        var conflicts = 0
        /// Failures that were not a conflict naming the counter.
        var others: [String] = []
        var description: String { "\(saved) saved, \(conflicts) conflicts, others: \(others)" }
    }

    @Test("Each process increments a counter in a loop: the count equals the saves of both, every failure is a conflict",
          arguments: StoreKind.databases)
    func incrementsFromTwoProcessesLoseNothing(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let id = try Self.createCounter(in: database)
        let folder = TestFiles.newURL("two-processes").deletingLastPathComponent()
        let childFinished = Locked(false)

        // Each side opens the store, then says so and waits for the other
        // (or for the child's end), so that both loops run at the same time.
        let context = try database.context()
        context.mergePolicy = .error
        let parentLoop = Task {
            await context.perform {
                Self.meet(folder, mine: "parent-ready", theirs: "child-ready", unless: { childFinished.withLock { $0 } })
                return Self.incrementLoop(id, in: context)
            }
        }

        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [kind = kind.rawValue as String, address = database.address as String, folder = folder.path as String] in
            try TwoProcessConflictTests.childLoop(kind: kind, address: address, folder: folder)
        }
        childFinished.withLock { $0 = true }
        let parent = await parentLoop.value

        guard result?.exitStatus == .exitCode(EXIT_SUCCESS) else {
            Issue.record("the child failed: \(result.standardError); the parent: \(parent)")
            return
        }
        let child = try JSONDecoder().decode(Tally.self, from: Data(contentsOf: folder.appending(path: "child-result.json")))
        for (who, tally) in [("parent", parent), ("child", child)] {
            #expect(tally.others.isEmpty, "\(who): every failed save is a conflict naming the counter: \(tally)")
            #expect(tally.saved + tally.conflicts + tally.others.count == Self.attempts, "\(who): \(tally)")
        }
        // A conflict means the other process saved between this one's read
        // and save; attempts follow one another, so each save of one process
        // makes at most one attempt of the other conflict.
        #expect(parent.conflicts <= child.saved && child.conflicts <= parent.saved,
                "every conflict is a save of the other process: parent \(parent), child \(child)")
        let stored = try Self.storedCount(id, in: database)
        #expect(stored == parent.saved + child.saved, "no update was lost: parent \(parent), child \(child)")
    }

    // MARK: - Both processes

    /// Refreshes the counter, adds one and saves, `attempts` times (on the
    /// context's queue). A failed save must be a `MergeError` naming only the
    /// counter, with the context's change kept; it is then rolled back.
    static func incrementLoop(_ id: ManagedObjectID, in context: ManagedObjectContext) -> Tally {
        var tally = Tally()
        for attempt in 0..<attempts {
            guard let server = try? context.existingObject(with: id) as? Server else {
                tally.others.append("attempt \(attempt): the counter is missing")
                continue
            }
            context.refresh(server, mergeChanges: false)
            server.unreadCount += 1
            let mine = server.unreadCount
            do {
                try context.save()
                tally.saved += 1
            } catch let error as MergeError {
                let conflict = error.conflicts.first
                if error.conflicts.count == 1, error.constraintConflicts.isEmpty, conflict?.objectID == id,
                   conflict?.isDeletion == false, conflict?.objectSnapshot["unreadCount"] == .integer(Int64(mine)),
                   context.hasChanges, server.unreadCount == mine {
                    tally.conflicts += 1
                } else {
                    tally.others.append("attempt \(attempt): a merge error that is not one conflict on the counter "
                        + "keeping \(mine) (context has changes: \(context.hasChanges)): \(error)")
                }
                context.rollback()
            } catch {
                tally.others.append("attempt \(attempt): \(error)")
                context.rollback()
            }
        }
        return tally
    }

    /// Creates the file `mine` in `folder`, then waits until the file
    /// `theirs` is there too, `stop()` is true, or ``hangDeadline`` has passed.
    static func meet(_ folder: URL, mine: String, theirs: String, unless stop: () -> Bool) {
        _ = FileManager.default.createFile(atPath: folder.appending(path: mine).path, contents: nil)
        let deadline = ContinuousClock.now + .seconds(hangDeadline)
        while !FileManager.default.fileExists(atPath: folder.appending(path: theirs).path), !stop(),
              ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    // MARK: - The child process

    /// In the child: opens the store at `address`, says it is ready, runs the
    /// loop and writes its tally to `folder`; fails (exits with failure) when a
    /// save failed with anything but a conflict on the counter.
    static func childLoop(kind: String, address: String, folder: String) throws {
        let directory = URL(filePath: folder, directoryHint: .isDirectory)
        let database = try TestDatabase(kind: try #require(StoreKind(rawValue: kind)), address: address)
        let context = try database.context()
        context.mergePolicy = .error
        let id = try context.performAndWait {
            let counters = try context.fetch(FetchRequest<Server>(predicate: #Predicate { $0.name == "counter" }))
            return try #require(counters.count == 1 ? counters.first : nil).objectID
        }
        meet(directory, mine: "child-ready", theirs: "parent-ready", unless: { false })
        let tally = context.performAndWait { incrementLoop(id, in: context) }
        try JSONEncoder().encode(tally).write(to: directory.appending(path: "child-result.json"))
        guard tally.others.isEmpty else {
            FileHandle.standardError.write(Data("child: a save failed with no conflict: \(tally)\n".utf8))
            throw ChildFailure()
        }
    }

    struct ChildFailure: Error {}

    // MARK: - Parent helpers

    /// A counter (a server's unread count) at 0.
    static func createCounter(in database: TestDatabase) throws -> ManagedObjectID {
        let context = try database.context()
        return try context.performAndWait {
            let server = Server(context: context)
            server.name = "counter"
            try context.save()
            return server.objectID
        }
    }

    /// The counter as stored, read through a new coordinator.
    static func storedCount(_ id: ManagedObjectID, in database: TestDatabase) throws -> Int {
        let reader = try database.context()
        return try reader.performAndWait {
            try #require(try reader.existingObject(with: id) as? Server).unreadCount
        }
    }
}

extension TestDatabase {
    /// Text that names this database, for a child process:
    /// ``init(kind:address:)`` opens the same database from it.
    var address: String {
        switch self {
        case .sqlite(let url): url.path
        case .postgres(let configuration): configuration.url.absoluteString
        }
    }

    /// The database of `kind` that `address` names.
    init(kind: StoreKind, address: String) throws {
        switch kind {
        case .sqlite: self = .sqlite(URL(filePath: address))
        case .postgres: self = .postgres(try PostgresConfiguration(url: address))
        case .inMemory: preconditionFailure("an in-memory store has no database another process can open")
        }
    }
}
