@testable import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// A conflict that comes back round after round, in one process: a rival
/// coordinator saves the row again before each of the context's attempts.
/// Core Data's policies other than the error policy "make a save go through
/// silently by making changes that follow rules specific to that policy"
/// (https://developer.apple.com/documentation/coredata/merge-policies), with
/// no limit on how many conflicts that takes; the error policy "requires
/// action to correct any conflicts".
@Suite("A conflict that keeps coming back")
struct RepeatedConflictTests {
    /// A rival coordinator changes the server's count before each of the
    /// first eight saves, which the store then refuses as it refuses a save
    /// whose row moved on: the context resolves and tries again, nine rounds
    /// in all. The never-throwing policies complete, each with its own
    /// outcome. Apple: object trump merges "by individual property, with
    /// in-memory changes trumping external changes"
    /// (https://developer.apple.com/documentation/coredata/nsmergebypropertyobjecttrumpmergepolicy),
    /// store trump "with external changes trumping in-memory changes"
    /// (https://developer.apple.com/documentation/coredata/nsmergepolicytype/mergebypropertystoretrumpmergepolicytype),
    /// overwrite by "saving the entire in-memory object to the persistent
    /// store" (https://developer.apple.com/documentation/coredata/nsoverwritemergepolicy).
    @Test("A conflict that comes back more than five times still resolves under object trump, store trump and overwrite",
          arguments: StoreKind.databases, [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite])
    func aConflictThatComesBackStillResolves(_ kind: StoreKind, _ policy: MergePolicy) throws {
        let contest = try Contest(kind, contestedSaves: 8)
        let context = contest.context
        context.mergePolicy = policy
        try context.performAndWait {
            let server = try #require(try context.existingObject(with: contest.id) as? Server)
            server.name = "mine"
            try context.save()
            #expect(server.name == "mine" && !context.hasChanges)
        }
        #expect(contest.store.saves == 9, "eight refused rounds, then the save")
        let stored = try contest.stored()
        #expect(stored.name == "mine", "the context's change is saved")
        #expect(stored.unreadCount == (policy == .overwrite ? 0 : 8), "the rival's count, unless overwritten")
        #expect(stored.version == contest.initialVersion + 9, "the rival's eight writes, then this save's")
    }

    /// `NSErrorMergePolicy` "requires action to correct any conflicts": the
    /// first conflict fails the save, which keeps the context's changes.
    @Test("Under the error policy the first conflict fails the save", arguments: StoreKind.databases)
    func theErrorPolicyFailsAtTheFirstConflict(_ kind: StoreKind) throws {
        let contest = try Contest(kind, contestedSaves: 8)
        let context = contest.context
        context.mergePolicy = .error
        let error = try context.performAndWait {
            let server = try #require(try context.existingObject(with: contest.id) as? Server)
            server.name = "mine"
            let error = #expect(throws: MergeError.self) { try context.save() }
            #expect(context.hasChanges && server.name == "mine", "the context keeps its change")
            return error
        }
        #expect(contest.store.saves == 1, "no second round")
        #expect(error?.conflicts.map(\.objectID) == [contest.id])
        #expect(error?.conflicts.first?.persistedSnapshot?["unreadCount"] == .integer(1))
        let stored = try contest.stored()
        #expect(stored.name == "original" && stored.unreadCount == 1 && stored.version == contest.initialVersion + 1,
                "only the rival's write: \(stored)")
    }

    /// A server saved by a rival coordinator on a new database, and a
    /// context reaching the database through a ``ContestedStore``.
    struct Contest {
        let database: TestDatabase
        let id: ManagedObjectID
        let store: ContestedStore
        let context: ManagedObjectContext
        let initialVersion: Int64

        init(_ kind: StoreKind, contestedSaves: Int) throws {
            let database = try TestDatabase.new(kind)
            let rival = try database.context()
            let id = try rival.performAndWait {
                let server = Server(context: rival)
                server.name = "original"
                try rival.save()
                return server.objectID
            }
            let model = try TestStack.model()
            let base = try Self.openBase(database, model: model)
            store = ContestedStore(base: base, contestedSaves: contestedSaves) {
                try rival.performAndWait {
                    let server = try #require(try rival.existingObject(with: id) as? Server)
                    rival.refresh(server, mergeChanges: false)
                    server.unreadCount += 1
                    try rival.save()
                }
            }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(store)
            context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            self.database = database
            self.id = id
            initialVersion = try Self.version(of: id, in: database)
        }

        static func openBase(_ database: TestDatabase, model: ManagedObjectModel) throws -> any PersistentStore {
            switch database {
            case .sqlite(let url): return try SQLiteStore(url: url, model: model)
            case .postgres(let configuration): return try PostgresStore(configuration: configuration, model: model)
            }
        }

        static func version(of id: ManagedObjectID, in database: TestDatabase) throws -> Int64 {
            let key = try #require(id.primaryKey)
            return try #require(try database.int64s("SELECT \"Z_OPT\" FROM \"Server\" WHERE \"Z_PK\" = \(key)").first)
        }

        /// The server as stored, read through a new coordinator.
        func stored() throws -> (name: String, unreadCount: Int, version: Int64) {
            let reader = try database.context()
            let (name, count) = try reader.performAndWait {
                let server = try #require(try reader.existingObject(with: id) as? Server)
                return (server.name, server.unreadCount)
            }
            return (name, count, try Self.version(of: id, in: database))
        }
    }
}

/// A store that passes everything through to a real one, except its first
/// `contestedSaves` saves: before each, `rival` commits a change to the
/// saved object's row; then the save is refused with a conflict holding the
/// row as it now is, as a store refuses a save whose row version moved on.
final class ContestedStore: WrappingStore {
    let base: any PersistentStore
    let contestedSaves: Int
    let rival: @Sendable () throws -> Void
    private let calls = Locked(0)

    init(base: any PersistentStore, contestedSaves: Int, rival: @escaping @Sendable () throws -> Void) {
        self.base = base
        self.contestedSaves = contestedSaves
        self.rival = rival
    }

    /// Saves asked of this store so far.
    var saves: Int { calls.withLock { $0 } }

    var type: String { "Contested" }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        let call = calls.withLock { calls in
            calls += 1
            return calls
        }
        guard call <= contestedSaves, let update = request.updated.first else { return try base.save(request) }
        try rival()
        let current = try base.snapshot(for: update.objectID)
        throw StoreConflictError(conflicts: [.init(objectID: update.objectID, expectedVersion: update.baseVersion, current: current)])
    }

}
