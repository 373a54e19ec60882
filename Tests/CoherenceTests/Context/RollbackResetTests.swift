import Coherence
import Foundation
import Testing

@Suite("Rollback, refresh and reset")
struct RollbackResetTests {
    @Test(arguments: StoreKind.allCases) func rollbackDiscardsInsertionsDeletionsAndUpdates(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "committed"
            let kept = FeedItem(context: context)
            kept.server = server
            try context.save()

            server.name = "edited"
            context.delete(kept)
            let added = FeedItem(context: context)
            added.server = server
            context.processPendingChanges()
            log.clear()

            context.rollback()
            #expect(server.name == "committed")
            #expect(server.feedItems == [kept])
            #expect(!kept.isDeleted && kept.server === server)
            #expect(added.managedObjectContext == nil, "the discarded insertion left the context")
            #expect(!context.hasChanges)
            // One notification with the net difference from the last one. Core
            // Data also reports rolled-back insertions as deleted (see
            // blindingskies/BSFetchedResultsController#6).
            #expect(log.changes.count == 1)
            #expect(log.last?.deleted == [added])
            #expect(log.last?.inserted == [kept])
            #expect(log.last?.updated == [server])
        }
    }

    @Test(arguments: StoreKind.allCases) func rollbackOfUnannouncedChangesIsSilent(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            log.clear()
            server.name = "never announced"
            _ = FeedItem(context: context)
            context.rollback()
            #expect(log.changes.isEmpty)
            #expect(server.name == "")
        }
    }

    @Test(arguments: StoreKind.allCases) func refreshWithMergeKeepsLocalChangesAndTakesTheRest(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let server = try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            return server
        }
        let id = context.performAndWait { server.objectID }
        try other.performAndWait {
            let copy = try other.existingObject(with: id) as! Server
            copy.name = "theirs"
            copy.unreadCount = 9
            try other.save()
        }
        context.performAndWait {
            server.unreadCount = 1
            context.refresh(server, mergeChanges: true)
            #expect(server.name == "theirs", "unchanged properties take the store's values")
            #expect(server.unreadCount == 1, "local changes stay")
            #expect(server.committedValues(forKeys: ["unreadCount"])["unreadCount"] as? Int == 9)
        }
    }

    @Test(arguments: StoreKind.allCases) func refreshAllObjectsTurnsUnchangedObjectsIntoFaults(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let clean = Server(context: context)
            let dirty = Server(context: context)
            try context.save()
            dirty.name = "pending"
            context.refreshAllObjects()
            #expect(clean.isFault)
            #expect(!dirty.isFault)
            #expect(dirty.name == "pending")
        }
    }

    @Test(arguments: StoreKind.allCases) func resetInvalidatesObjectsAndForgetsChanges(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let tracked = try context.performAndWait {
            let tracked = Tracked(context: context)
            tracked.name = "before reset"
            try context.save()
            tracked.name = "unsaved"
            tracked.calls = []
            context.reset()
            return tracked
        }
        context.performAndWait {
            #expect(tracked.calls == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(tracked.managedObjectContext == nil)
            #expect(!context.hasChanges)
            #expect(tracked.name == "unsaved", "an invalidated object keeps its last values")
        }
    }
}
