@testable import Coherence
import Foundation
import Testing

/// The coordinator's row cache keeps a snapshot while some object holds it:
/// when a context goes away or is reset, the snapshots only its objects
/// held leave the cache, and those other contexts' objects hold stay. With
/// the SQLite store: the in-memory store keeps its rows as the snapshots
/// themselves, so the cache never holds one alone.
@Suite("Row cache")
struct RowCacheTests {
    static let count = 100

    /// A coordinator on a new SQLite file with `2 × count` servers (named
    /// "server 000" …), saved by a context that is gone.
    static func seeded() throws -> PersistentStoreCoordinator {
        let coordinator = try TestStack.coordinator(.sqlite)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try writer.performAndWait {
            for number in 0..<(2 * count) {
                let server = Server(context: writer)
                server.name = String(format: "server %03d", number)
                server.unreadCount = number
            }
            try writer.save()
        }
        return coordinator
    }

    /// The servers of the first half (`unreadCount < count`) or the second.
    static func fetch(firstHalf: Bool, in context: ManagedObjectContext, asFaults: Bool) throws -> [Server] {
        let limit = count
        let request = FetchRequest<Server>(predicate: firstHalf ? #Predicate { $0.unreadCount < limit } : #Predicate { $0.unreadCount >= limit },
                                           sortBy: [SortDescriptor(\.unreadCount)])
        request.returnsObjectsAsFaults = asFaults
        return try context.fetch(request)
    }

    static func store(of coordinator: PersistentStoreCoordinator) throws -> SQLiteStore {
        try #require(coordinator.persistentStores.first as? SQLiteStore)
    }

    @Test func theSnapshotsOfASavingContextLeaveWithIt() throws {
        let coordinator = try TestStack.coordinator(.sqlite)
        weak var gone: ManagedObjectContext?
        do {
            let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            gone = writer
            try writer.performAndWait {
                for number in 0..<Self.count { Server(context: writer).unreadCount = number }
                try writer.save()
            }
            withExtendedLifetime(writer) {
                #expect(coordinator.rowCache.count == Self.count, "a save caches the saved rows")
            }
        }
        #expect(gone == nil)
        #expect(coordinator.rowCache.count == 0)
    }

    @Test(arguments: [false, true]) func aDeinitializedContextsSnapshotsLeaveTheCache(asFaults: Bool) throws {
        let coordinator = try Self.seeded()
        let store = try Self.store(of: coordinator)
        #expect(coordinator.rowCache.count == 0)
        let keeper = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let kept = try keeper.performAndWait { try Self.fetch(firstHalf: false, in: keeper, asFaults: asFaults) }
        let keptIDs = keeper.performAndWait { kept.map(\.objectID) }

        weak var gone: ManagedObjectContext?
        var goneIDs: [ManagedObjectID] = []
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            gone = context
            goneIDs = try context.performAndWait {
                let servers = try Self.fetch(firstHalf: true, in: context, asFaults: asFaults)
                #expect(servers.count == Self.count)
                return servers.map(\.objectID)
            }
            withExtendedLifetime(context) {
                #expect(coordinator.rowCache.count == 2 * Self.count)
                #expect(goneIDs.allSatisfy { coordinator.rowCache[$0] != nil })
            }
        }
        #expect(gone == nil, "nothing else holds the context")
        #expect(coordinator.rowCache.count == Self.count)
        #expect(goneIDs.allSatisfy { coordinator.rowCache[$0] == nil })
        #expect(keptIDs.allSatisfy { coordinator.rowCache[$0] != nil }, "the other context's objects hold theirs")

        // A third context finds the kept rows in the cache, and reads the others.
        let third = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try third.performAndWait {
            let before = store.queryCount
            let server = try #require(try third.existingObject(with: keptIDs[0]) as? Server)
            #expect(server.unreadCount == Self.count)
            #expect(store.queryCount == before, "from the row cache")
            let other = try #require(try third.existingObject(with: goneIDs[0]) as? Server)
            #expect(other.unreadCount == 0)
            #expect(store.queryCount == before + 1, "read from the store")
        }
        keeper.performAndWait { #expect(kept.allSatisfy { $0.name.hasPrefix("server") }) }
    }

    /// An object the application keeps after its context is gone keeps its
    /// snapshot, which stays cached.
    @Test func anObjectKeptAfterItsContextIsGoneKeepsItsSnapshotCached() throws {
        let coordinator = try Self.seeded()
        weak var gone: ManagedObjectContext?
        let (kept, id): (Server, ManagedObjectID)
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            gone = context
            (kept, id) = try context.performAndWait {
                let servers = try Self.fetch(firstHalf: true, in: context, asFaults: false)
                return (servers[0], servers[0].objectID)
            }
        }
        #expect(gone == nil)
        #expect(coordinator.rowCache.count == 1)
        #expect(coordinator.rowCache[id] != nil)
        withExtendedLifetime(kept) {}
    }

    // reset(): "All the receiver's managed objects are 'forgotten.'"
    // (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/reset()).
    @Test(arguments: [false, true]) func resetLetsTheSnapshotsGo(asFaults: Bool) throws {
        let coordinator = try Self.seeded()
        let keeper = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let kept = try keeper.performAndWait { try Self.fetch(firstHalf: false, in: keeper, asFaults: asFaults) }
        let keptIDs = keeper.performAndWait { kept.map(\.objectID) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let ids = try context.performAndWait {
            try Self.fetch(firstHalf: true, in: context, asFaults: asFaults).map(\.objectID)
        }
        #expect(coordinator.rowCache.count == 2 * Self.count)
        context.performAndWait { context.reset() }
        #expect(coordinator.rowCache.count == Self.count)
        #expect(ids.allSatisfy { coordinator.rowCache[$0] == nil })
        #expect(keptIDs.allSatisfy { coordinator.rowCache[$0] != nil })

        // The context still works: it reads the rows again.
        try context.performAndWait {
            let servers = try Self.fetch(firstHalf: true, in: context, asFaults: asFaults)
            #expect(servers.map(\.unreadCount) == Array(0..<Self.count))
        }
        #expect(coordinator.rowCache.count == 2 * Self.count)
        withExtendedLifetime(kept) {}
    }

    /// Contexts come and go, each reading other rows: the cache holds what
    /// the live contexts use, not every row ever read.
    @Test func theCacheDoesNotGrowWithContextsThatCameAndWent() throws {
        let coordinator = try TestStack.coordinator(.sqlite)
        let rows = 3_000
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try writer.performAndWait {
            for number in 0..<rows { Server(context: writer).unreadCount = number }
            try writer.save()
            writer.reset()
        }
        #expect(coordinator.rowCache.count == 0)
        let keeper = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let (kept, keptIDs) = try keeper.performAndWait {
            let servers = try keeper.fetch(FetchRequest<Server>(predicate: #Predicate { $0.unreadCount < 100 }))
            return (servers, servers.map(\.objectID))
        }
        for slice in 1..<(rows / 100) {
            let low = slice * 100, high = low + 100
            do {
                let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
                try context.performAndWait {
                    let servers = try context.fetch(FetchRequest<Server>(predicate: #Predicate { $0.unreadCount >= low && $0.unreadCount < high }))
                    #expect(servers.count == 100)
                }
                withExtendedLifetime(context) {
                    #expect(coordinator.rowCache.count == 200)
                }
            }
            #expect(coordinator.rowCache.count == 100, "slice \(slice): the kept rows only")
        }
        #expect(keptIDs.allSatisfy { coordinator.rowCache[$0] != nil })
        withExtendedLifetime(kept) {}
    }

    /// A row nothing holds any more is read again, not served from the
    /// cache: another coordinator (another process, in real use) may have
    /// changed it meanwhile. The cache keeps a row only while objects use
    /// it.
    @Test func aRowNothingHoldsIsReadAgain() throws {
        let url = TestFiles.newURL("stale.sqlite")
        let model = try TestStack.model()
        let first = PersistentStoreCoordinator(managedObjectModel: model)
        try first.addPersistentStore(.sqlite(url))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first)
        let id = try writer.performAndWait {
            let servers = (0..<11).map { number in
                let server = Server(context: writer)
                server.name = "v1"
                server.unreadCount = number
                return server
            }
            try writer.save()
            writer.reset()
            return servers[0].objectID
        }
        // Others' rows stay held, so letting go of one row sweeps nothing.
        let keeper = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first)
        let kept = try keeper.performAndWait { try keeper.fetch(FetchRequest<Server>(predicate: #Predicate { $0.unreadCount > 0 })) }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first)
        try reader.performAndWait {
            let server = try reader.existingObject(with: id) as? Server
            #expect(server?.name == "v1")
            reader.reset()
        }
        let second = PersistentStoreCoordinator(managedObjectModel: model)
        try second.addPersistentStore(.sqlite(url))
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: second)
        try other.performAndWait {
            (try other.existingObject(with: id) as? Server)?.name = "v2"
            try other.save()
        }
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first)
        try fresh.performAndWait {
            let server = try fresh.existingObject(with: id) as? Server
            #expect(server?.name == "v2")
        }
        withExtendedLifetime(kept) {}
    }

    /// Deleting a fault reads its row once: the read that finds the row
    /// still there gives the fault its values (the cache would not keep a
    /// row nothing holds for the second look).
    @Test func deletingAFaultReadsItsRowOnce() throws {
        let coordinator = try Self.seeded()
        let store = try Self.store(of: coordinator)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let ids = try reader.performAndWait { try reader.fetch(FetchRequest<Server>()).prefix(3).map(\.objectID) }
        reader.performAndWait { reader.reset() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let faults = ids.map { context.object(with: $0) }
            let before = store.queryCount
            for fault in faults { context.delete(fault) }
            #expect(store.queryCount - before == faults.count)
            #expect(faults.allSatisfy { $0.isDeleted && !$0.isFault })
            try context.save()
        }
    }

    /// Faults of a batched fetch that get their rows another way (deleting
    /// them reads each row) leave the batch bookkeeping, as those whose
    /// batch was loaded do.
    @Test func batchedFaultsLoadedByADeletionAreForgotten() throws {
        let coordinator = try Self.seeded()
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let request = FetchRequest<Server>(predicate: #Predicate { $0.unreadCount < 5 }, sortBy: [SortDescriptor(\.unreadCount)])
            request.fetchBatchSize = 5
            let faults = try context.fetch(request)
            try #require(faults.count == 5 && faults.allSatisfy(\.isFault))
            #expect(!context.faultBatches.isEmpty)
            for fault in faults { context.delete(fault) }
            #expect(context.faultBatches.isEmpty)
        }
    }
}
