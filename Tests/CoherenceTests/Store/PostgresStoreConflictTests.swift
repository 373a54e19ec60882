import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// Two coordinators on one PostgreSQL schema, standing in for two processes
/// (or two machines): conflicting saves of one object never lose an update.
/// With the error merge policy, Core Data's default, a save that conflicts
/// fails and reports the conflict (`NSPersistentStoreSaveConflictsError`
/// with `NSMergeConflict`s), and the context keeps its changes:
/// https://developer.apple.com/documentation/coredata/nserrormergepolicy
/// https://developer.apple.com/documentation/coredata/nspersistentstoresaveconflictserror
@Suite("PostgreSQL store conflicts")
struct PostgresStoreConflictTests {
    private enum Outcome: Sendable, Equatable {
        case saved, conflict, other(String)
    }

    /// A counter (a server's unread count) at 0 in a new schema, and a
    /// private-queue context with the error merge policy on each of `count`
    /// coordinators of its own.
    private func counter(contexts count: Int) throws -> (ManagedObjectID, [ManagedObjectContext], TestDatabase) {
        let database = TestDatabase.postgres(try PostgresTestServer.newSchemaConfiguration())
        let setup = try database.context()
        let id = try setup.performAndWait {
            let server = Server(context: setup)
            server.name = "counter"
            try setup.save()
            return server.objectID
        }
        let contexts = try (0..<count).map { _ in
            let context = try database.context()
            context.mergePolicy = .error
            return context
        }
        return (id, contexts, database)
    }

    /// Reads the counter afresh, adds one and saves (on the context's queue).
    private func increment(_ id: ManagedObjectID, in context: ManagedObjectContext) -> Outcome {
        guard let server = try? context.existingObject(with: id) as? Server else { return .other("no counter") }
        context.refresh(server, mergeChanges: false)
        server.unreadCount += 1
        return save(id, in: context)
    }

    /// Saves `context` (on its queue): a conflict must be a `MergeError`
    /// naming the counter, with the context's change kept.
    private func save(_ id: ManagedObjectID, in context: ManagedObjectContext) -> Outcome {
        let server = context.object(with: id) as! Server
        let mine = server.unreadCount
        do {
            try context.save()
            return .saved
        } catch let error as MergeError {
            #expect(error.conflicts.map(\.objectID) == [id] && error.constraintConflicts.isEmpty)
            #expect(error.conflicts.allSatisfy { !$0.isDeletion && $0.newVersionNumber > $0.oldVersionNumber })
            #expect(error.conflicts.first?.objectSnapshot["unreadCount"] == .integer(Int64(mine)))
            #expect(context.hasChanges && server.unreadCount == mine, "the context keeps its change")
            return .conflict
        } catch {
            return .other("\(error)")
        }
    }

    private func stored(_ id: ManagedObjectID, in database: TestDatabase) throws -> Int {
        let reader = try database.context()
        return try reader.performAndWait {
            try #require(try reader.existingObject(with: id) as? Server).unreadCount
        }
    }

    @Test("Two coordinators that both increment a counter: one save wins each round, the other conflicts",
          .enabled(if: PostgresTestServer.shouldRun))
    func interleavedIncrementsConflictAndLoseNothing() throws {
        let (id, contexts, database) = try counter(contexts: 2)
        var outcomes: [Outcome] = []
        for round in 0..<50 {
            // Both read the counter and add one; then both save, in turn.
            for context in contexts {
                context.performAndWait {
                    let server = context.object(with: id) as! Server
                    context.refresh(server, mergeChanges: false)
                    server.unreadCount += 1
                }
            }
            for context in round % 2 == 0 ? contexts : contexts.reversed() {
                outcomes.append(context.performAndWait { save(id, in: context) })
            }
        }
        #expect(outcomes.filter { $0 == .saved }.count == 50)
        #expect(outcomes.filter { $0 == .conflict }.count == 50)
        #expect(outcomes.allSatisfy { $0 == .saved || $0 == .conflict }, "\(outcomes)")
        #expect(try stored(id, in: database) == 50, "no update was lost")
    }

    @Test("Two coordinators incrementing a counter at once: the count equals the successful saves",
          .enabled(if: PostgresTestServer.shouldRun))
    func concurrentIncrementsLoseNothing() async throws {
        let (id, contexts, database) = try counter(contexts: 2)
        let outcomes = try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for context in contexts {
                group.addTask {
                    await context.perform { (0..<50).map { _ in increment(id, in: context) } }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outcomes.count == 100)
        #expect(outcomes.allSatisfy { $0 == .saved || $0 == .conflict }, "\(outcomes.filter { $0 != .saved && $0 != .conflict })")
        let saved = outcomes.filter { $0 == .saved }.count
        #expect(saved >= 50, "each conflict means the other side saved")
        #expect(try stored(id, in: database) == saved, "no update was lost")
    }
}
