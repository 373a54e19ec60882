import Coherence
import Foundation
import Testing

@Suite("Many contexts")
struct ManyContextsTests {
    private func pair(_ store: StoreKind) throws -> (ManagedObjectContext, ManagedObjectContext) {
        let first = try TestStack.context(store, name: "first")
        let second = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first.persistentStoreCoordinator)
        second.name = "second"
        return (first, second)
    }

    @Test func scopedAndUnscopedObservers() throws {
        let (first, second) = try pair(.inMemory)
        let scoped = NotificationCounter(ManagedObjectContext.didChangeObjectsNotification, object: first)
        let unscoped = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: nil, queue: nil) { note in
            if let context = note.object as? ManagedObjectContext, context === first || context === second { unscoped.store(note) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        first.performAndWait { _ = Server(context: first) }
        second.performAndWait { _ = Server(context: second) }
        #expect(scoped.count == 1, "an observer registered with contextA hears only contextA")
        #expect(unscoped.count == 2, "an observer registered with no object hears every context")
    }

    @Test(arguments: StoreKind.allCases) func objectIDHandOffAcrossQueues(store: StoreKind) async throws {
        let (first, second) = try pair(store)
        let temporary = await first.perform { () -> ManagedObjectID in
            let server = Server(context: first)
            server.name = "handed over"
            return server.objectID
        }
        #expect(temporary.isTemporaryID)
        let permanent = try await first.perform { () throws -> ManagedObjectID in
            try first.save()
            return first.registeredObjects.first!.objectID
        }
        let name = try await second.perform { (try second.existingObject(with: permanent) as! Server).name }
        #expect(name == "handed over")
        let unsaved = await second.perform { () -> Bool in
            (try? second.existingObject(with: temporary)) == nil
        }
        #expect(unsaved, "a temporary ID means nothing in another context")
    }

    @Test(arguments: StoreKind.allCases) func mergeChangesFromContextDidSave(store: StoreKind) throws {
        let (writer, reader) = try pair(store)
        let (server, item, doomed) = try writer.performAndWait {
            let server = Server(context: writer)
            server.name = "v1"
            let item = FeedItem(context: writer)
            item.title = "kept as a fault"
            let doomed = FeedItem(context: writer)
            try writer.save()
            return (server.objectID, item.objectID, doomed.objectID)
        }
        let log = reader.performAndWait { ChangeLog(reader) }
        let (loaded, fault, gone) = reader.performAndWait {
            let loaded = reader.object(with: server) as! Server
            _ = loaded.name
            return (loaded, reader.object(with: item), reader.object(with: doomed))
        }
        let saved = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { saved.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        let inserted = try writer.performAndWait {
            (writer.object(with: server) as! Server).name = "v2"
            (writer.object(with: item) as! FeedItem).read = true
            writer.delete(writer.object(with: doomed))
            let fresh = Server(context: writer)
            try writer.save()
            return fresh.objectID
        }
        let merged = NotificationBox()
        let mergeToken = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidMergeChangesObjectIDs, object: reader, queue: nil) {
            merged.store($0)
        }
        defer { NotificationCenter.default.removeObserver(mergeToken) }
        let note = try #require(saved.last)
        reader.performAndWait {
            log.clear()
            reader.mergeChanges(fromContextDidSave: note)
            #expect(loaded.name == "v2", "updated objects are refreshed")
            #expect(log.changes.count == 1)
            #expect(log.last?.refreshed.contains(fault) == true, "an update to a fault still reaches observers")
            #expect(log.last?.refreshed.contains(loaded) == true)
            #expect(log.last?.deleted == [gone])
            #expect(log.last?.inserted.map(\.objectID) == [inserted])
            // Apple: the merge "invokes delete(_:)" on deleted objects; they
            // leave the context at the next processPendingChanges.
            #expect(gone.isDeleted)
            #expect(reader.deletedObjects == [gone])
            #expect((fault as! FeedItem).read == true)
            reader.processPendingChanges()
            #expect(gone.managedObjectContext == nil)
            #expect(reader.deletedObjects.isEmpty)
        }
        let mergedIDs = try #require(merged.last.flatMap(ManagedObjectContext.DidMergeChangesMessage.makeMessage))
        #expect(mergedIDs.objectIDs.updated == [server, item])
        #expect(mergedIDs.objectIDs.deleted == [doomed])
    }

    /// Core Data refreshes the loaded objects a merge updates
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergechanges(fromcontextdidsave:)).
    /// Coherence reads their latest values in one query per 500 objects,
    /// not one per object; a row deleted meanwhile invalidates its object.
    @Test func mergeReadsLoadedObjectsInBatches() throws {
        let (writer, reader) = try pair(.sqlite)
        let store = try #require(reader.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        let count = 1_200
        try writer.performAndWait {
            for index in 0..<count { FeedItem(context: writer).title = "v1 \(index)" }
            try writer.save()
        }
        let loaded = try reader.performAndWait {
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
            request.returnsObjectsAsFaults = false
            return try reader.fetch(request)
        }
        let saved = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { saved.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        let vanished = try writer.performAndWait {
            let items = try writer.fetch(FetchRequest<FeedItem>())
            for item in items { item.title = item.title.replacingOccurrences(of: "v1", with: "v2") }
            try writer.save()
            return items[0].objectID
        }
        // Another coordinator deletes one row after the save: the merge finds it gone.
        let otherCoordinator = PersistentStoreCoordinator(managedObjectModel: try #require(reader.persistentStoreCoordinator?.managedObjectModel))
        _ = try otherCoordinator.addPersistentStore(.sqlite(store.url))
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: otherCoordinator)
        try other.performAndWait {
            other.delete(try other.existingObject(with: vanished))
            try other.save()
        }
        let note = try #require(saved.last)
        let log = reader.performAndWait { ChangeLog(reader) }
        reader.performAndWait {
            let queries = store.queryCount
            reader.mergeChanges(fromContextDidSave: note)
            #expect(store.queryCount - queries == 3, "1,200 loaded objects in 500s")
            let remaining = loaded.filter { $0.objectID != vanished }
            #expect(remaining.count == count - 1)
            #expect(remaining.allSatisfy { $0.title.hasPrefix("v2 ") }, "updated objects are refreshed")
            #expect(loaded.first { $0.objectID == vanished }?.managedObjectContext == nil, "a row deleted meanwhile invalidates its object")
            #expect(log.last?.refreshed.count == count - 1)
            #expect(log.last?.invalidated.map(\.objectID) == [vanished])
        }
    }

    @Test(arguments: StoreKind.allCases) func automaticallyMergesChangesFromParent(store: StoreKind) async throws {
        let (writer, viewer) = try pair(store)
        viewer.automaticallyMergesChangesFromParent = true
        #expect(viewer.automaticallyMergesChangesFromParent)
        let id = try await writer.perform {
            let server = Server(context: writer)
            server.name = "v1"
            try writer.save()
            return server.objectID
        }
        let held = await viewer.perform { () -> Bool in
            let server = viewer.object(with: id) as! Server
            return server.name == "v1"
        }
        #expect(held)
        var merges = viewer.events(for: ManagedObjectContext.DidMergeChangesMessage.self).makeAsyncIterator()
        try await writer.perform {
            (writer.object(with: id) as! Server).name = "v2"
            try writer.save()
        }
        let merge = try #require(await merges.next())
        #expect(merge.updated == [id])
        let name = await viewer.perform { (viewer.object(with: id) as! Server).name }
        #expect(name == "v2")
        viewer.automaticallyMergesChangesFromParent = false
        #expect(!viewer.automaticallyMergesChangesFromParent)
    }
}

@Suite("Merge policies")
struct MergePolicyTests {
    /// A server saved by `first`, then changed and saved by `second`
    /// (name → "theirs", unreadCount → 9), while `first` changes it too.
    private func conflicted(_ store: StoreKind, policy: MergePolicy) throws -> (ManagedObjectContext, Server) {
        let first = try TestStack.context(store)
        first.mergePolicy = policy
        let second = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first.persistentStoreCoordinator)
        let server = try first.performAndWait {
            let server = Server(context: first)
            server.name = "original"
            server.unreadCount = 1
            try first.save()
            return server
        }
        let id = first.performAndWait { server.objectID }
        try second.performAndWait {
            let copy = try second.existingObject(with: id) as! Server
            copy.name = "theirs"
            copy.unreadCount = 9
            try second.save()
        }
        first.performAndWait {
            server.name = "mine"
            let item = FeedItem(context: first)
            item.server = server // changes server.feedItems here only
        }
        return (first, server)
    }

    private func stored(_ context: ManagedObjectContext, _ id: ManagedObjectID) throws -> (String, Int, Int) {
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        return try reader.performAndWait {
            let server = try reader.existingObject(with: id) as! Server
            return (server.name, server.unreadCount, server.feedItems.count)
        }
    }

    @Test(arguments: StoreKind.allCases) func errorPolicyListsConflictsAndSavesNothing(store: StoreKind) throws {
        let (context, server) = try conflicted(store, policy: .error)
        try context.performAndWait {
            let error = try #require(throws: MergeError.self) { try context.save() }
            let conflict = try #require(error.conflicts.first)
            #expect(error.conflicts.count == 1)
            #expect(conflict.sourceObject(in: context) === server)
            #expect(!conflict.isDeletion)
            #expect(conflict.objectSnapshot["name"] == .string("mine"))
            #expect(conflict.cachedSnapshot?["name"] == .string("original"))
            #expect(conflict.persistedSnapshot?["name"] == .string("theirs"))
            #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 2)
            #expect(context.insertedObjects.count == 1, "the item was not saved either")
            #expect(server.name == "mine", "changes stay pending")
        }
        #expect(try stored(context, context.performAndWait { server.objectID }) == ("theirs", 9, 0))
    }

    @Test(arguments: StoreKind.allCases) func storeTrumpKeepsTheirChangedPropertiesAndMyOthers(store: StoreKind) throws {
        let (context, server) = try conflicted(store, policy: .mergeByPropertyStoreTrump)
        try context.performAndWait { try context.save() }
        let id = context.performAndWait { server.objectID }
        #expect(try stored(context, id) == ("theirs", 9, 1), "both changed name: theirs; only I changed the items: mine")
        #expect(context.performAndWait { server.name } == "theirs")
    }

    @Test(arguments: StoreKind.allCases) func objectTrumpKeepsMyChangedPropertiesAndTheirOthers(store: StoreKind) throws {
        let (context, server) = try conflicted(store, policy: .mergeByPropertyObjectTrump)
        try context.performAndWait { try context.save() }
        let id = context.performAndWait { server.objectID }
        #expect(try stored(context, id) == ("mine", 9, 1), "I changed name, they changed unreadCount")
    }

    @Test(arguments: StoreKind.allCases) func overwriteWritesMyWholeState(store: StoreKind) throws {
        let (context, server) = try conflicted(store, policy: .overwrite)
        try context.performAndWait { try context.save() }
        let id = context.performAndWait { server.objectID }
        #expect(try stored(context, id) == ("mine", 1, 1))
    }

    @Test(arguments: StoreKind.allCases) func rollbackTakesTheirState(store: StoreKind) throws {
        let (context, server) = try conflicted(store, policy: .rollback)
        try context.performAndWait { try context.save() }
        let id = context.performAndWait { server.objectID }
        #expect(try stored(context, id) == ("theirs", 9, 0), "all the server's changes were discarded, its new item too")
        #expect(context.performAndWait { server.name } == "theirs")
    }
}
