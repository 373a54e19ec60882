import Coherence
import Foundation
import Testing

/// The userInfo of context notifications, exactly as Core Data posts them
/// (issue 9, part 3), and the typed views carrying the same information.
@Suite("Core Data payloads")
struct CoreDataPayloadTests {
    /// Records the Foundation notifications of one name posted by `object`.
    private func record(_ name: Notification.Name, from object: AnyObject) -> (NotificationBox, any NSObjectProtocol) {
        let box = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { box.store($0) }
        return (box, token)
    }

    /// After `reset()`, Core Data lists the invalidated objects as an array of
    /// their object IDs under `NSInvalidatedAllObjectsKey` ("all objects in the
    /// context have been invalidated":
    /// https://developer.apple.com/documentation/coredata/nsinvalidatedallobjectskey).
    /// CoreDataPlus's payload tests, run against Core Data, read that value as
    /// `[NSManagedObjectID]` and find one ID per registered object:
    /// https://github.com/alemar11/CoreDataPlus/blob/main/Tests/Notifications/NotificationPayloadTests.swift
    @Test(arguments: StoreKind.allCases) func resetListsTheInvalidatedObjectIDsAsAnArray(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let (changes, token) = record(.NSManagedObjectContextObjectsDidChange, from: context)
        defer { NotificationCenter.default.removeObserver(token) }
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            try context.save()
            context.reset()
            let note = try #require(changes.last)
            let ids = try #require(note.userInfo?[NSInvalidatedAllObjectsKey] as? [ManagedObjectID])
            #expect(Set(ids) == [server.objectID, item.objectID])
            #expect(ids.count == 2)
            #expect(note.userInfo?[NSInvalidatedAllObjectsKey] as? Set<ManagedObject> == nil, "IDs, not objects")
            let typed = try #require(ManagedObjectContext.ObjectsDidChangeMessage.makeMessage(note))
            #expect(typed.invalidatedAllIDs == [server.objectID, item.objectID])
            #expect(typed.invalidatedAll == true)
            #expect(typed.event.invalidatedAll)
            #expect(typed.event.invalidated == [server.objectID, item.objectID])
        }
    }

    /// Core Data's didMergeChangesObjectIDs "userInfo dictionary contains the
    /// identifiers of the inserted, updated, deleted, refreshed, and
    /// invalidated managed objects":
    /// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didmergechangesobjectidsnotification
    @Test(arguments: StoreKind.allCases) func mergeListsRefreshedAndInvalidatedObjectIDs(store: StoreKind) throws {
        let writer = try TestStack.context(store)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        let (saves, saveToken) = record(.NSManagedObjectContextDidSave, from: writer)
        let (merges, mergeToken) = record(.NSManagedObjectContextDidMergeChangesObjectIDs, from: reader)
        defer {
            NotificationCenter.default.removeObserver(saveToken)
            NotificationCenter.default.removeObserver(mergeToken)
        }
        let servers = try writer.performAndWait {
            let servers = ["loaded", "fault", "unknown", "gone"].map { name in
                let server = Server(context: writer)
                server.name = name
                return server
            }
            try writer.save()
            return servers
        }
        let ids = servers.map(\.objectID)
        // Held here, so a merge that refreshes them cannot let them go.
        let (readerLog, held) = try reader.performAndWait {
            let loaded = try reader.existingObject(with: ids[0]) as! Server
            _ = loaded.name
            let fault = reader.object(with: ids[1])
            let gone = try reader.existingObject(with: ids[3]) as! Server
            _ = gone.name
            return (ChangeLog(reader), [loaded, fault, gone])
        }
        try writer.performAndWait {
            for server in servers { server.unreadCount = 1 }
            try writer.save()
            writer.delete(servers[3])            // deleted before the reader merges the update
            try writer.save()
        }
        #expect(saves.count == 3)
        let update = try #require(saves.all.dropFirst().first, "the save that updated them")
        try reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: update)
            let note = try #require(merges.last)
            let info = try #require(note.userInfo)
            func ids(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObjectID>? { info[key.rawValue] as? Set<ManagedObjectID> }
            #expect(ids(.updatedObjectIDs) == Set(servers.map(\.objectID)))
            #expect(ids(.refreshedObjectIDs) == [servers[0].objectID, servers[1].objectID], "the registered objects it refreshed")
            #expect(ids(.invalidatedObjectIDs) == [servers[3].objectID], "registered, but gone from the store")
            #expect(ids(.insertedObjectIDs) == [] && ids(.deletedObjectIDs) == [])
            let typed = try #require(ManagedObjectContext.DidMergeChangesMessage.makeMessage(note))
            #expect(typed.objectIDs.refreshed == [servers[0].objectID, servers[1].objectID])
            #expect(typed.objectIDs.invalidated == [servers[3].objectID])
            let announced = try #require(readerLog.last)
            #expect(Set(announced.refreshed.map(\.objectID)) == typed.objectIDs.refreshed, "the same objects its didChangeObjects refreshed")
            #expect(Set(announced.invalidated.map(\.objectID)) == typed.objectIDs.invalidated)
        }
        withExtendedLifetime(held) {}
    }

    /// Core Data posts willSave and didSave for every `save()`, also when
    /// there is nothing to save, then with empty sets. Apple's pages do not
    /// say so; it is what Core Data users report: "When you call save()
    /// method WillSaveNotification and DidSaveNotification notifications will
    /// surely call" (https://ali-akhtar.medium.com/mastering-in-coredata-part-13-multithreading-concurrency-strategy-notifications-63ef0f110293),
    /// and saving without checking `hasChanges` gives "a possible empty
    /// notification" (https://github.com/magicalpanda/MagicalRecord/issues/147).
    /// didSaveObjectIDs accompanies every didSave, so it is posted too.
    @Test(arguments: StoreKind.allCases) func aSaveWithNothingToSavePostsEmptySaveNotifications(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let (willSaves, willToken) = record(.NSManagedObjectContextWillSave, from: context)
        let (didSaves, didToken) = record(.NSManagedObjectContextDidSave, from: context)
        let (idSaves, idToken) = record(.NSManagedObjectContextDidSaveObjectIDs, from: context)
        defer { [willToken, didToken, idToken].forEach(NotificationCenter.default.removeObserver) }
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            #expect(!context.hasChanges)
            try context.save()
            #expect(willSaves.count == 1 && didSaves.count == 1 && idSaves.count == 1)
            #expect(willSaves.last?.userInfo == nil, "willSave has no userInfo")
            let info = try #require(didSaves.last?.userInfo)
            for key in [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSDeletedObjectsKey] {
                #expect(info[key] as? Set<ManagedObject> == [], "empty \(key)")
            }
            let idInfo = try #require(idSaves.last?.userInfo)
            for key: ManagedObjectContext.NotificationKey in [.insertedObjectIDs, .updatedObjectIDs, .deletedObjectIDs] {
                #expect(idInfo[key.rawValue] as? Set<ManagedObjectID> == [], "empty \(key.rawValue)")
            }
            #expect(log.willSaves == 1 && log.saves.count == 1)
            #expect(log.saves.last?.objectIDs == ObjectIDChanges())
            #expect(log.changes.isEmpty)
        }
    }

    /// A task waiting for the next didSave is resumed by a save with nothing to save.
    @Test func aTaskAwaitingTheDidSaveOfAnEmptySaveIsResumed() async throws {
        let context = try TestStack.context()
        let saves = context.events(for: ManagedObjectContext.DidSaveMessage.self)
        try context.performAndWait { try context.save() }
        let event = try await withDeadline("the didSave event") {
            var iterator = saves.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(event == ObjectIDChanges())
    }

    /// willSave observers may add to the save: "Only use the notification to
    /// operate on the in-process save operation. For example, to insert
    /// additional managed objects."
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/willsaveobjectsnotification)
    /// That holds for a save that had nothing else to save.
    @Test(arguments: StoreKind.allCases) func aWillSaveObserverCanInsertIntoASaveWithNothingElse(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let token = context.addObserver(for: ManagedObjectContext.WillSaveMessage.self) { _ in Server(context: context).name = "added" }
            try context.save()
            token.cancel()
            #expect(log.saves.last?.inserted.count == 1)
            #expect(!context.hasChanges)
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait { () throws in
            #expect(try reader.fetch(FetchRequest<Server>()).map(\.name) == ["added"])
        }
    }
}
