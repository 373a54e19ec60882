import Coherence
import Foundation
import Testing

@Suite("Fetch result types")
struct FetchResultTests {
    private func seeded(_ store: StoreKind) throws -> ManagedObjectContext {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "main"
            for title in ["a", "b", "c"] {
                let item = FeedItem(context: context)
                item.title = title
                item.server = server
            }
            try context.save()
        }
        return context
    }

    /// An object ID fetch returns IDs and registers no object, as Core
    /// Data's `managedObjectIDResultType`, even when the predicate is
    /// evaluated on objects (the in-memory store, or
    /// `evaluatesPredicateInMemory`), which loads them to read their values.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequestresulttype/managedobjectidresulttype>
    @Test(arguments: StoreKind.allCases) func objectIDFetchesRegisterNoObject(store: StoreKind) throws {
        let writer = try seeded(store)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        try reader.performAndWait {
            // Faults a fetch registered would stay: the test sees them.
            reader.retainsRegisteredObjects = true
            for inMemory in [false, true] {
                let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.title != "b" }, sortBy: [SortDescriptor(\.title)])
                request.evaluatesPredicateInMemory = inMemory
                let ids = try reader.fetchObjectIDs(request)
                #expect(ids.count == 2)
                #expect(reader.registeredObjects.isEmpty, "in memory: \(inMemory)")
                let untyped = FetchRequest<ManagedObjectID>(entityName: "FeedItem")
                untyped.resultType = .managedObjectIDResultType
                untyped.predicate = Predicate(format: "title != %@", "b")
                #expect(Set(try reader.fetch(untyped)) == Set(ids))
                #expect(reader.registeredObjects.isEmpty)
            }
            // An object the context already had stays registered; the
            // others loaded to match are let go, matching or not.
            let held = try #require(try reader.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.title == "a" })).first)
            _ = held.title
            #expect(reader.registeredObjects == [held], "an object fetch registers its results only")
            _ = try reader.fetchObjectIDs(FetchRequest<FeedItem>(predicate: #Predicate { $0.title != "b" }))
            #expect(reader.registeredObjects == [held])
            let both = try reader.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.title != "b" }))
            #expect(Set(reader.registeredObjects) == Set(both), "a fetch whose results include a registered object lets go of its non-matches")
        }
    }

    @Test(arguments: StoreKind.allCases) func objectIDsCountsAndDictionaries(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
            let objects = try context.fetch(request)
            #expect(try context.fetchObjectIDs(request) == objects.map(\.objectID))
            #expect(try context.count(for: request) == 3)
            let limited = request.copy()
            limited.fetchLimit = 2
            limited.fetchOffset = 2
            #expect(try context.count(for: limited) == 1)

            objects[0].title = "unsaved"
            let rows = try context.fetchDictionaries(request, propertiesToFetch: ["title", "server"])
            #expect(rows.map { $0["title"] as? String } == ["a", "b", "c"], "committed values, not the unsaved change")
            #expect(rows.allSatisfy { $0["server"] as? ManagedObjectID == objects[1].server?.objectID })
            #expect(throws: ContextError.unknownProperty(entity: "FeedItem", property: "nope")) {
                try context.fetchDictionaries(request, propertiesToFetch: ["nope"])
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func returnsObjectsAsFaults(store: StoreKind) throws {
        let context = try seeded(store)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait { () throws in
            let faults = try reader.fetch(FetchRequest<Server>())
            #expect(faults.allSatisfy { $0.isFault })
            let loaded = FetchRequest<FeedItem>()
            loaded.returnsObjectsAsFaults = false
            let items = try reader.fetch(loaded)
            #expect(items.count == 3)
            #expect(items.allSatisfy { !$0.isFault })
        }
    }
}

@Suite("Faulting and the row cache")
struct FaultingTests {
    private func seeded(servers: Int, itemsEach: Int) throws -> ManagedObjectContext {
        let context = try TestStack.context(.sqlite)
        try context.performAndWait {
            for index in 0..<servers {
                let server = Server(context: context)
                server.name = "server \(index)"
                for number in 0..<itemsEach {
                    let item = FeedItem(context: context)
                    item.title = "item \(index).\(number)"
                    item.server = server
                }
            }
            try context.save()
        }
        return context
    }

    private func store(of context: ManagedObjectContext) throws -> SQLiteStore {
        try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
    }

    @Test func prefetchingRemovesTheNPlusOnePattern() throws {
        let writer = try seeded(servers: 10, itemsEach: 5)
        let store = try store(of: writer)
        func queries(prefetching paths: [String]) throws -> Int {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            return try context.performAndWait {
                let before = store.queryCount
                let request = FetchRequest<Server>()
                request.relationshipKeyPathsForPrefetching = paths
                let servers = try context.fetch(request)
                var titles = 0
                for server in servers {
                    for item in server.feedItems where !item.title.isEmpty { titles += 1 }
                }
                #expect(titles == 50)
                return store.queryCount - before
            }
        }
        #expect(try queries(prefetching: []) == 1 + 10 + 50, "one fetch, one query per server, one per item")
        #expect(try queries(prefetching: ["feedItems"]) == 2, "one fetch and one prefetch")
    }

    @Test func toOnePrefetchingAndDeeperPaths() throws {
        let writer = try seeded(servers: 3, itemsEach: 4)
        let store = try store(of: writer)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let before = store.queryCount
            let request = FetchRequest<FeedItem>()
            request.relationshipKeyPathsForPrefetching = ["server.feedItems"]
            let items = try context.fetch(request)
            let siblings = items.reduce(0) { $0 + ($1.server?.feedItems.count ?? 0) }
            #expect(siblings == 12 * 4)
            #expect(store.queryCount - before == 3, "items, their servers, the servers' items")
        }
    }

    @Test func aToManyFaultLoadsWithOneQuery() throws {
        let writer = try seeded(servers: 1, itemsEach: 20)
        let store = try store(of: writer)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        try reader.performAndWait {
            let server = try #require(try reader.fetch(FetchRequest<Server>()).first)
            _ = server.name
            let before = store.queryCount
            #expect(server.feedItems.count == 20)
            #expect(store.queryCount - before == 1)
        }
    }

    @Test func contextsShareTheCoordinatorsRowCache() throws {
        let writer = try seeded(servers: 1, itemsEach: 0)
        let store = try store(of: writer)
        let first = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        let second = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        let (held, id) = try first.performAndWait {
            let server = try #require(try first.fetch(FetchRequest<Server>()).first)
            _ = server.name
            return (server, server.objectID)
        }
        try second.performAndWait {
            let before = store.queryCount
            let server = try #require(try second.existingObject(with: id) as? Server)
            #expect(server.name == "server 0")
            #expect(store.queryCount == before, "the snapshot came from the row cache")
        }
        _ = held
    }

    @Test func faultsNothingHoldsAreReleased() throws {
        let writer = try seeded(servers: 200, itemsEach: 0)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        try reader.performAndWait {
            weak var someFault: Server?
            do {
                let servers = try reader.fetch(FetchRequest<Server>())
                #expect(servers.count == 200)
                someFault = servers[0]
                #expect(reader.registeredObjects.count == 200)
            }
            // Faults only the context holds are let go when the identity map
            // next evicts (it has doubled, or registeredObjects is asked).
            #expect(reader.registeredObjects.isEmpty)
            #expect(someFault == nil, "a fault nothing holds is released")

            // A fault still held elsewhere stays registered: the same object
            // comes back for its ID.
            do {
                let held = try #require(try reader.fetch(FetchRequest<Server>()).first)
                #expect(held.isFault)
                #expect(reader.registeredObjects == [held])
                #expect(reader.object(with: held.objectID) === held)
                #expect(reader.registeredObjects == [held])
            }

            // Loaded objects stay until they turn back into faults.
            do {
                let servers = try reader.fetch(FetchRequest<Server>())
                for server in servers { _ = server.name }
            }
            #expect(reader.registeredObjects.count == 200)
            weak var refreshedObject: Server?
            do {
                refreshedObject = reader.registeredObjects.first as? Server
                #expect(refreshedObject?.isFault == false)
            }
            reader.refreshAllObjects()
            reader.processPendingChanges() // the notification reports them as refreshed, then lets go
            #expect(refreshedObject == nil, "an object turned into a fault is released once announced")
            #expect(reader.registeredObjects.isEmpty, "refreshAllObjects releases unchanged objects")
        }
    }

    /// Core Data's `fetchBatchSize`
    /// (https://developer.apple.com/documentation/coredata/nsfetchrequest/fetchbatchsize):
    /// the fetch reads only IDs, and the objects' values arrive a batch at a
    /// time as they are used: one query per batch, in the fetch's order.
    @Test func fetchBatchSizeLoadsValuesOneBatchAtATime() throws {
        let url = TestFiles.newURL("batches.sqlite")
        let titles = (0..<250).map { String(format: "item %03d", ($0 * 7) % 250) }
        func coordinator() throws -> PersistentStoreCoordinator {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
            try coordinator.addPersistentStore(.sqlite(url))
            return coordinator
        }
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator())
        try writer.performAndWait {
            for title in titles { FeedItem(context: writer).title = title }
            try writer.save()
        }
        // A coordinator of its own: no row cached from the writer's save.
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator())
        let store = try #require(reader.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        try reader.performAndWait { () throws in
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
            request.fetchBatchSize = 100
            var queries = store.queryCount, rows = store.rowsRead
            let items = try reader.fetch(request)
            #expect(store.queryCount - queries == 1 && store.rowsRead - rows == 0, "the fetch reads IDs only")
            #expect(items.count == 250 && items.allSatisfy(\.isFault))

            queries = store.queryCount
            rows = store.rowsRead
            #expect(items[0].title == "item 000")
            #expect(store.queryCount - queries == 1 && store.rowsRead - rows == 100, "the first use loads its batch")
            #expect(items[1].isFault, "the rest of the batch stays a fault, with its values at hand")
            _ = items[1..<100].map(\.title)
            #expect(store.queryCount - queries == 1, "no query for the rest of the batch")
            #expect(items.map(\.title) == titles.sorted())
            #expect(store.queryCount - queries == 3 && store.rowsRead - rows == 250, "one query per batch")
        }
        // The forms that need every value at once read them with the fetch,
        // batch size or not: each on a coordinator of its own, with nothing cached.
        func fresh() throws -> (ManagedObjectContext, SQLiteStore) {
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator())
            return (context, try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore))
        }
        let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
        request.fetchBatchSize = 100
        // Batches are fixed slices of the result (0-99, 100-199, …; Core
        // Data's documentation does not say where its batches start):
        // walking the result backwards costs one query per batch too.
        let (backwardReader, backwardStore) = try fresh()
        try backwardReader.performAndWait {
            let items = try backwardReader.fetch(request)
            #expect(items.reversed().map(\.title) == titles.sorted().reversed())
            #expect(backwardStore.queryCount == 1 + 3 && backwardStore.rowsRead == 250, "backwards: one query per batch")
        }
        let (dictionaryReader, dictionaryStore) = try fresh()
        try dictionaryReader.performAndWait {
            let dictionaries = try dictionaryReader.fetchDictionaries(request, propertiesToFetch: ["title"])
            #expect(dictionaries.map { $0["title"] as? String } == titles.sorted())
            #expect(dictionaryStore.queryCount == 1 && dictionaryStore.rowsRead == 250, "dictionaries: one query reads every row")
        }
        let (loadedReader, loadedStore) = try fresh()
        try loadedReader.performAndWait {
            let loaded = request.copy()
            loaded.returnsObjectsAsFaults = false
            let items = try loadedReader.fetch(loaded)
            #expect(items.allSatisfy { !$0.isFault } && loadedStore.queryCount == 1 && loadedStore.rowsRead == 250,
                    "returnsObjectsAsFaults = false: one query reads every row")
        }
        let (prefetchingReader, prefetchingStore) = try fresh()
        try prefetchingReader.performAndWait {
            let prefetching = request.copy()
            prefetching.relationshipKeyPathsForPrefetching = ["server"]
            let items = try prefetchingReader.fetch(prefetching)
            #expect(items.count == 250 && prefetchingStore.rowsRead == 250, "prefetching: the values come with the fetch")
        }
    }

    /// An object refreshed with its changes discarded is a fault again; once
    /// announced, the context lets go of it if nothing else holds it (Core
    /// Data's contexts hold registered objects weakly unless they have
    /// changes).
    @Test func aRefreshedObjectWhoseChangesWereDiscardedIsLetGo() throws {
        let context = try TestStack.context(.sqlite)
        let id = try context.performAndWait {
            let server = Server(context: context)
            server.name = "saved"
            try context.save()
            return server.objectID
        }
        let fresh = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        weak var released: Server?
        fresh.performAndWait {
            let server = fresh.object(with: id) as! Server
            server.name = "changed"
            fresh.processPendingChanges()
            fresh.refresh(server, mergeChanges: false)
            #expect(server.isFault && !fresh.hasChanges)
            released = server
        }
        #expect(released == nil, "the context no longer holds the refreshed fault")
        fresh.performAndWait {
            #expect((fresh.object(with: id) as! Server).name == "saved")
        }
    }

    /// The identity map lets go of faults nobody holds as it grows (past
    /// 1,024 objects, each time it has doubled), with no call to
    /// `registeredObjects`; a fault still held elsewhere stays registered.
    @Test func aGrowingIdentityMapReleasesFaultsNothingHolds() throws {
        let writer = try seeded(servers: 3000, itemsEach: 0)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        try reader.performAndWait {
            weak var dropped: Server?
            var held: Server?
            let window = FetchRequest<Server>(sortBy: [SortDescriptor(\.name)])
            window.fetchLimit = 500
            for offset in stride(from: 0, to: 3000, by: 500) {
                window.fetchOffset = offset
                let servers = try reader.fetch(window)
                #expect(servers.count == 500)
                #expect(servers.allSatisfy { $0.isFault })
                if offset == 0 {
                    dropped = servers[0]
                    held = servers[1]
                }
            }
            #expect(dropped == nil, "a fault nothing holds is released when the map grows")
            let kept = try #require(held)
            #expect(kept.isFault)
            #expect(reader.object(with: kept.objectID) === kept, "a held fault stays the context's object for its ID")
            #expect(kept.name.hasPrefix("server "))
        }
    }

    /// An object observed by ID stays registered as a fault, so the observer
    /// still hears about it after it was let go everywhere else.
    @Test func anObservedFaultStaysRegistered() throws {
        let writer = try seeded(servers: 1, itemsEach: 0)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        let (id, token, heard) = try reader.performAndWait { () throws -> (ManagedObjectID, ContextObservation, Locked<Int>) in
            let heard = Locked(0)
            let server = try #require(try reader.fetch(FetchRequest<Server>()).first)
            let token = reader.observe(server) { _ in heard.withLock { $0 += 1 } }
            return (server.objectID, token, heard)
        }
        reader.performAndWait {
            #expect(reader.registeredObjects.count == 1, "observed by ID: not evicted")
        }
        try writer.performAndWait {
            (try writer.existingObject(with: id) as! Server).name = "renamed elsewhere"
            try writer.save()
        }
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: ObjectIDChanges(updated: [id]))
        }
        #expect(heard.withLock { $0 } == 1)
        token.cancel()
    }
}
