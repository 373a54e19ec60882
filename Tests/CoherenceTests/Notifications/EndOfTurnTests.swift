import Coherence
import Foundation
import Testing

/// A main-queue context used directly on the main queue, outside any
/// `perform`, announces its changes at the end of the current main-queue
/// turn, as Core Data's run-loop observer does: processPendingChanges "is
/// invoked automatically at least once during the event loop (at the end of
/// the loop)"
/// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/processpendingchanges()).
/// The seed articles rely on it: didChangeObjects "will fire at the end of
/// each run loop where an entity has changed", and "we don't need to save the
/// context to receive this notification". No test here calls
/// `processPendingChanges()`.
@Suite("didChangeObjects at the end of the main-queue turn")
struct EndOfTurnTests {
    enum Change: String, CaseIterable, Sendable {
        case insert, update, delete, refresh, refreshAllObjects
    }

    /// A main-queue context with one saved, loaded server.
    @MainActor private func viewContext() throws -> (ManagedObjectContext, Server) {
        let context = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: try TestStack.coordinator(.sqlite))
        let server = Server(context: context)
        server.name = "saved"
        try context.save()
        return (context, server)
    }

    @MainActor private func make(_ change: Change, in context: ManagedObjectContext, server: Server) {
        switch change {
        case .insert: Server(context: context).name = "inserted"
        case .update: server.name = "updated"
        case .delete: context.delete(server)
        case .refresh: context.refresh(server, mergeChanges: false)
        case .refreshAllObjects: context.refreshAllObjects()
        }
    }

    @MainActor @Test(arguments: Change.allCases) func eachChangeIsAnnouncedWithoutProcessPendingChanges(change: Change) async throws {
        let (context, server) = try viewContext()
        await mainQueueRoundTrip() // the save's own turn is over
        let changes = NotificationWaiter(.NSManagedObjectContextObjectsDidChange, object: context)
        make(change, in: context, server: server)
        #expect(changes.count == 0, "posted at the end of the turn, not at once")
        #expect(await changes.wait(), "\(change) was never announced")
        let userInfo = try #require(changes.notifications.first?.userInfo)
        switch change {
        case .insert: #expect((userInfo[NSInsertedObjectsKey] as? Set<ManagedObject>)?.count == 1)
        case .update: #expect(userInfo[NSUpdatedObjectsKey] as? Set<ManagedObject> == [server])
        case .delete: #expect(userInfo[NSDeletedObjectsKey] as? Set<ManagedObject> == [server])
        case .refresh: #expect(userInfo[NSRefreshedObjectsKey] as? Set<ManagedObject> == [server])
        case .refreshAllObjects: #expect(userInfo[NSRefreshedObjectsKey] as? Set<ManagedObject> == [server])
        }
    }

    @MainActor @Test func severalChangesInOneTurnGiveOneNotification() async throws {
        let (context, server) = try viewContext()
        await mainQueueRoundTrip()
        let changes = NotificationWaiter(.NSManagedObjectContextObjectsDidChange, object: context)
        let first = Server(context: context)
        let second = FeedItem(context: context)
        second.server = first
        server.name = "renamed"
        #expect(await changes.wait())
        await mainQueueRoundTrip()
        #expect(changes.count == 1)
        let userInfo = try #require(changes.notifications.first?.userInfo)
        #expect(userInfo[NSInsertedObjectsKey] as? Set<ManagedObject> == [first, second])
        #expect(userInfo[NSUpdatedObjectsKey] as? Set<ManagedObject> == [server])
    }

    /// The same from a block on the main queue, as a Linux server that calls
    /// `dispatchMain()` runs it (under `swift test` the main queue is drained
    /// the same way, by a thread that is not the process's main thread).
    @Test func aChangeInAMainQueueBlockIsAnnouncedAtTheEndOfItsTurn() async throws {
        let context = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: try TestStack.coordinator(.sqlite))
        let changes = NotificationWaiter(.NSManagedObjectContextObjectsDidChange, object: context)
        let countInBlock = try await DispatchQueue.main.runWaiting {
            Server(context: context).name = "first"
            Server(context: context).name = "second"
            return changes.count
        }
        #expect(countInBlock == 0)
        #expect(await changes.wait())
        await mainQueueRoundTrip()
        #expect(changes.count == 1)
        let inserted = changes.notifications.first?.userInfo?[NSInsertedObjectsKey] as? Set<ManagedObject>
        #expect(inserted?.count == 2)
    }

    /// Changes made inside `perform` are announced when the block ends; the
    /// end of the turn then finds nothing left to announce.
    @Test func aPerformBlockIsAnnouncedOnce() async throws {
        let context = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: try TestStack.coordinator(.sqlite))
        let changes = NotificationWaiter(.NSManagedObjectContextObjectsDidChange, object: context)
        let countAtTheEnd = await context.perform { () -> Int in
            _ = Server(context: context)
            _ = Server(context: context)
            return changes.count
        }
        #expect(countAtTheEnd == 0, "announced when the block ends, not before")
        #expect(changes.count == 1)
        await mainQueueRoundTrip()
        #expect(changes.count == 1)
    }

    /// A save in the same turn announces the changes itself (before
    /// willSave); the end of the turn adds nothing.
    @MainActor @Test func aChangeSavedInTheSameTurnIsAnnouncedOnce() async throws {
        let (context, server) = try viewContext()
        await mainQueueRoundTrip()
        let changes = NotificationWaiter(.NSManagedObjectContextObjectsDidChange, object: context)
        server.name = "renamed and saved"
        try context.save()
        #expect(changes.count == 1)
        await mainQueueRoundTrip()
        await mainQueueRoundTrip()
        #expect(changes.count == 1)
    }
}
