@testable import Coherence
import Foundation
import Observation
import Testing

/// `ManagedObjectContext.isObservationEnabled`: objects of a context that
/// takes part in Observation get a registrar and notify observers; objects
/// of one that does not pay nothing for it. Core Data has no counterpart
/// (its objects are not `Observable`); Coherence decides with Observation's
/// public API only.
@Suite("Observation switch")
struct ObservationSwitchTests {
    @MainActor @Test func mainQueueContextsTakePartByDefaultPrivateOnesDoNot() throws {
        let coordinator = try TestStack.coordinator(.inMemory)
        let main = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
        #expect(main.isObservationEnabled)
        let server = Server(context: main)
        let tracker = ObservationTests.Tracker { _ = server.name }
        server.name = "renamed"
        #expect(tracker.changes == 1, "a main-queue context's objects are observable without setup")
        let background = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        #expect(background.performAndWait { background.isObservationEnabled } == false)
    }

    @Test(arguments: StoreKind.allCases) func objectsOfAContextWithoutObservationGetNoRegistrar(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            let tracker = ObservationTests.Tracker { _ = server.name }
            server.name = "renamed"
            #expect(server._observation == nil, "read inside tracking, but the context does not take part")
            #expect(tracker.changes == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func turningItOnMakesRegisteredAndLaterObjectsObservable(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "v1"
            try context.save()
            _ = server.name
            #expect(server._observation == nil)
            context.isObservationEnabled = true
            #expect(context.isObservationEnabled)
            let tracker = ObservationTests.Tracker { _ = server.name }
            #expect(server._observation != nil, "an object registered before the switch was turned on")
            server.name = "v2"
            #expect(tracker.changes == 1)
            tracker.rearm()
            context.rollback()
            #expect(tracker.changes == 2, "changes outside the setters notify too")

            // Registered after the switch: a fault of a fetch.
            context.reset()
            let fetched = try #require(try context.fetch(FetchRequest<Server>()).first)
            let fetchedTracker = ObservationTests.Tracker { _ = fetched.name }
            fetched.name = "v3"
            #expect(fetchedTracker.changes == 1, "an object registered after the switch was turned on")
        }
    }

    @Test func turningItOffStopsRegisteringReadsButObserversKeepTheirNotifications() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            context.isObservationEnabled = true
            let first = Server(context: context)
            let second = Server(context: context)
            try context.save()
            let tracker = ObservationTests.Tracker { _ = first.name }
            context.isObservationEnabled = false
            #expect(!context.isObservationEnabled)
            let unregistered = ObservationTests.Tracker { _ = second.name }
            #expect(second._observation == nil, "read after the switch was turned off")
            second.name = "second"
            #expect(unregistered.changes == 0)
            first.name = "first"
            #expect(tracker.changes == 1, "an observer registered while it was on is still told")
        }
    }

    @Test func nestedTrackingKeepsTheOuterScopeTracking() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            context.isObservationEnabled = true
            let first = Server(context: context)
            let second = Server(context: context)
            try context.save()
            let changes = Counter()
            withObservationTracking {
                withObservationTracking({ _ = first.name }, onChange: {})
                _ = second.name // read after the inner scope ended: still tracked by the outer one
            } onChange: {
                changes.increment()
            }
            second.name = "renamed"
            #expect(changes.value == 1)
        }
    }
}

/// A count shared with an onChange closure.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
