import Coherence
import Foundation
import Observation
import Testing

/// Managed objects take part in Swift's Observation framework (in contexts
/// with `isObservationEnabled` on: see `ObservationSwitchTests`).
@Suite("Observation")
struct ObservationTests {
    /// Counts how often `withObservationTracking`'s onChange fires for what
    /// `read` touches; re-arms after each change.
    final class Tracker: @unchecked Sendable {
        private(set) var changes = 0
        private let read: () -> Void

        init(_ read: @escaping () -> Void) {
            self.read = read
            arm()
        }

        private func arm() {
            withObservationTracking { read() } onChange: { [self] in
                changes += 1
            }
        }

        /// After a change, observe again (onChange fires once per tracking).
        func rearm() { arm() }
    }

    @Test(arguments: StoreKind.allCases) func propertyWritesNotifyObserversOfThatProperty(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            context.isObservationEnabled = true
            let server = Server(context: context)
            let other = Server(context: context)
            try context.save()
            let tracker = Tracker { _ = server.name }
            other.name = "someone else"
            #expect(tracker.changes == 0, "another object's change does not fire")
            server.name = "renamed"
            #expect(tracker.changes == 1)
            tracker.rearm()
            let item = FeedItem(context: context)
            let itemsTracker = Tracker { _ = server.feedItems }
            item.server = server
            #expect(itemsTracker.changes == 1, "inverse upkeep reaches observers of the other side")
        }
    }

    @Test(arguments: StoreKind.allCases) func mergesRefreshesAndRollbacksNotifyObservers(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let server = try context.performAndWait {
            context.isObservationEnabled = true
            let server = Server(context: context)
            server.name = "v1"
            try context.save()
            return server
        }
        let id = context.performAndWait { server.objectID }
        let tracker = context.performAndWait { Tracker { _ = server.name } }
        let saved = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: other, queue: nil) { saved.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        try other.performAndWait {
            (try other.existingObject(with: id) as! Server).name = "v2"
            try other.save()
        }
        let note = try #require(saved.last)
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: note)
            #expect(tracker.changes == 1, "a merge notifies")
            #expect(server.name == "v2")
            tracker.rearm()
            server.unreadCount = 3
            #expect(tracker.changes == 1, "observing name: unreadCount's setter does not fire it")
            context.rollback()
            #expect(tracker.changes == 2, "a rollback notifies")
            tracker.rearm()
            context.refresh(server, mergeChanges: false)
            #expect(tracker.changes == 3, "a refresh notifies")
        }
    }
}
