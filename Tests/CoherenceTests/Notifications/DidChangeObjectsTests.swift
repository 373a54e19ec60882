import Coherence
import Foundation
import Testing

@Suite("didChangeObjects notification")
struct DidChangeObjectsTests {
    @Test(arguments: StoreKind.allCases) func coalescesEverySinceTheLastNotification(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        context.performAndWait {
            let server = Server(context: context)
            server.name = "renamed before the notification"
            let item = FeedItem(context: context)
            item.server = server
            #expect(log.changes.isEmpty, "nothing is posted before processPendingChanges")
            context.processPendingChanges()
            #expect(log.changes.count == 1)
            #expect(log.last?.inserted == [server, item])
            #expect(log.last?.updated.isEmpty == true, "changes to new objects are part of their insertion")
            #expect(log.last?.context === context)
        }
    }

    @Test(arguments: StoreKind.allCases) func insertedThenDeletedAppearsInNeitherSet(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let item = FeedItem(context: context)
            context.delete(item)
            context.processPendingChanges()
            #expect(log.changes.isEmpty, "nothing happened, so nothing is announced")
            #expect(!context.hasChanges)
            try context.save()
            #expect(log.saves.count == 1, "a save with nothing to save still posts didSave")
            #expect(log.saves.first?.inserted.isEmpty == true)
            #expect(item.managedObjectContext == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func anUndoneChangeIsNotAnUpdate(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let item = FeedItem(context: context)
            try context.save()
            log.clear()
            item.read = true
            item.read = false
            context.processPendingChanges()
            #expect(log.changes.isEmpty)
            item.read = true
            context.processPendingChanges()
            #expect(log.last?.updated == [item])
            // Undoing it later is a change relative to the last notification.
            item.read = false
            context.processPendingChanges()
            #expect(log.changes.count == 2)
            #expect(log.last?.updated == [item])
            #expect(!item.isUpdated, "back to the committed value")
        }
    }

    @Test(arguments: StoreKind.allCases) func relationshipChangesUpdateBothSides(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            try context.save()
            log.clear()
            item.server = server
            context.processPendingChanges()
            #expect(log.last?.updated == [server, item])
        }
    }

    @Test(arguments: StoreKind.allCases) func deletionsIncludeCascadedObjects(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            item.server = server
            try context.save()
            log.clear()
            context.delete(server)
            context.processPendingChanges()
            #expect(log.changes.count == 1)
            #expect(log.last?.deleted == [server, item])
            #expect(log.last?.updated.isEmpty == true)
        }
    }

    @Test(arguments: StoreKind.allCases) func userInfoUsesCoreDataKeysAndObjectSets(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let received = NotificationBox()
        let token = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { note in received.store(note) }
        defer { NotificationCenter.default.removeObserver(token) }
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            server.name = "changed"
            context.processPendingChanges()
            let note = try #require(received.last)
            #expect(note.object as? ManagedObjectContext === context)
            let info = try #require(note.userInfo)
            #expect(info[NSUpdatedObjectsKey] as? Set<ManagedObject> == [server])
            #expect(info["updated"] as? Set<ManagedObject> == [server])
            #expect(info[NSInsertedObjectsKey] == nil, "only non-empty sets are present")
            let typed = try #require(ManagedObjectContext.ObjectsDidChangeMessage.makeMessage(note))
            #expect(typed.updated == [server])
            #expect(ManagedObjectContext.DidSaveMessage.makeMessage(note) == nil, "a typed view only reads its own kind")
        }
    }

    @Test func keysAndNamesHaveCoreDataRawValues() {
        #expect(NSInsertedObjectsKey == "inserted")
        #expect(NSUpdatedObjectsKey == "updated")
        #expect(NSDeletedObjectsKey == "deleted")
        #expect(NSRefreshedObjectsKey == "refreshed")
        #expect(NSInvalidatedObjectsKey == "invalidated")
        #expect(NSInvalidatedAllObjectsKey == "invalidatedAll")
        #expect(ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue == "inserted_objectIDs")
        #expect(ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue == "updated_objectIDs")
        #expect(ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue == "deleted_objectIDs")
        #expect(ManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue == "refreshed_objectIDs")
        #expect(ManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue == "invalidated_objectIDs")
        #expect(Notification.Name.NSManagedObjectContextObjectsDidChange == ManagedObjectContext.didChangeObjectsNotification)
        #expect(Notification.Name.NSManagedObjectContextWillSave == ManagedObjectContext.willSaveObjectsNotification)
        #expect(Notification.Name.NSManagedObjectContextDidSave == ManagedObjectContext.didSaveObjectsNotification)
        #expect(Notification.Name.NSManagedObjectContextDidSaveObjectIDs == ManagedObjectContext.didSaveObjectIDsNotification)
        #expect(ManagedObjectContext.didChangeObjectsNotification.rawValue == "NSManagedObjectContextObjectsDidChangeNotification")
        #expect(ManagedObjectContext.didSaveObjectsNotification.rawValue == "NSManagedObjectContextDidSaveNotification")
    }

    @Test(arguments: StoreKind.allCases) func performAndPerformAndWaitEndByProcessingPendingChanges(store: StoreKind) async throws {
        let context = try TestStack.context(store)
        let counter = NotificationCounter(ManagedObjectContext.didChangeObjectsNotification, object: context)
        context.performAndWait { _ = Server(context: context) }
        #expect(counter.count == 1)
        await context.perform { _ = Server(context: context) }
        #expect(counter.count == 2)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            context.perform { _ = Server(context: context) }
            context.perform { done.resume() }
        }
        #expect(counter.count == 3, "the fire-and-forget form processes changes too")
    }

    @Test(arguments: StoreKind.allCases) func fetchAndSaveProcessPendingChangesFirst(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            _ = Server(context: context)
            _ = try context.fetch(FetchRequest<Server>())
            #expect(log.changes.count == 1)
            _ = Server(context: context)
            try context.save()
            #expect(log.changes.count == 2)
            #expect(log.changes[1].inserted.count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func observerChangesAreAnnouncedInAFollowingNotification(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            log.clear()
            let token = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { change in
                if change.updated.contains(server), server.unreadCount == 0 { server.unreadCount = 1 }
            }
            server.name = "trigger"
            context.processPendingChanges()
            #expect(log.changes.count == 2)
            #expect(server.unreadCount == 1)
            token.cancel()
            server.name = "again"
            context.processPendingChanges()
            #expect(log.changes.count == 3)
        }
    }

    @Test func typedObserversRunInRegistrationOrderAndLeaveWhenCancelled() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            var calls: [String] = []
            let first = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { _ in calls.append("first") }
            let second = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { _ in calls.append("second") }
            let saves = context.addObserver(for: ManagedObjectContext.DidSaveMessage.self) { _ in calls.append("saved") }
            let third = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { _ in calls.append("third") }
            _ = Server(context: context)
            context.processPendingChanges()
            #expect(calls == ["first", "second", "third"], "only didChange observers, in registration order")
            calls = []
            second.cancel()
            _ = Server(context: context)
            try context.save()
            #expect(calls == ["first", "third", "saved"])
            withExtendedLifetime((first, saves, third)) {}
        }
    }

    @Test func anObserverCancelledDuringDeliveryIsNotCalled() throws {
        let context = try TestStack.context()
        context.performAndWait {
            var calls: [String] = []
            var later: ContextObservation?
            let first = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { _ in
                calls.append("first")
                later?.cancel()
            }
            later = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { _ in calls.append("later") }
            _ = Server(context: context)
            context.processPendingChanges()
            #expect(calls == ["first"], "cancelled by the first handler, the later one is skipped")
            withExtendedLifetime(first) {}
        }
    }

    @Test(arguments: StoreKind.allCases) func refreshedObjectsAreReported(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "saved"
            try context.save()
            log.clear()
            server.name = "unsaved"
            context.refresh(server, mergeChanges: false)
            context.processPendingChanges()
            #expect(log.last?.refreshed == [server])
            #expect(log.last?.updated.isEmpty == true)
            #expect(server.name == "saved", "the unsaved change was discarded")
        }
    }

    @Test(arguments: StoreKind.allCases) func resetInvalidatesEverything(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            try context.save()
            log.clear()
            context.reset()
            #expect(log.changes.count == 1)
            #expect(log.last?.invalidatedAllIDs == [server.objectID, item.objectID])
            #expect(log.last?.invalidatedAll == true)
            #expect(log.last?.event.invalidatedAll == true)
            #expect(context.registeredObjects.isEmpty)
            #expect(server.managedObjectContext == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func objectsDeletedFromTheStoreAreInvalidatedOnRefresh(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let log = context.performAndWait { ChangeLog(context) }
        let server = try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            return server
        }
        let id = context.performAndWait { server.objectID }
        try other.performAndWait {
            try other.delete(other.existingObject(with: id))
            try other.save()
        }
        context.performAndWait {
            log.clear()
            context.refresh(server, mergeChanges: true)
            context.processPendingChanges()
            #expect(log.last?.invalidated == [server])
            #expect(server.managedObjectContext == nil)
        }
    }
}

/// Keeps the last Foundation notification, from any thread.
final class NotificationBox: @unchecked Sendable {
    private let lock = NSLock()
    private var notifications: [Notification] = []

    func store(_ notification: Notification) {
        lock.withLock { notifications.append(notification) }
    }

    var last: Notification? { lock.withLock { notifications.last } }
    var all: [Notification] { lock.withLock { notifications } }
    var count: Int { lock.withLock { notifications.count } }
}
