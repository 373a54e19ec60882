@testable import Coherence
import Foundation
import Observation
import Testing

/// Objects read outside `withObservationTracking` get no
/// `ObservationRegistrar`; objects read inside it do, and their changes reach
/// the observer however the object was used before.
@Suite("Observation scope")
struct ObservationScopeTests {
    #if os(Linux)
    @Test func coherenceCanTellWhetherAThreadIsTracking() {
        // Otherwise every read would take the slow path: correct, but the
        // cost this suite exists to remove would silently come back.
        #expect(ObservationScope.canTell)
        #expect(!ObservationScope.mayBeTracking)
        let inside = withObservationTracking({ ObservationScope.mayBeTracking }, onChange: {})
        #expect(inside)
        #expect(!ObservationScope.mayBeTracking)
    }
    #endif

    @Test(arguments: StoreKind.allCases) func objectsReadOutsideTrackingHaveNoRegistrarUntilReadInside(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "v1"
            try context.save()
            _ = server.name
            server.name = "v2"
            if ObservationScope.canTell {
                #expect(server._observation == nil, "read and written, but never observed")
            }
            let tracker = ObservationTests.Tracker { _ = server.name }
            #expect(server._observation != nil)
            server.name = "v3"
            #expect(tracker.changes == 1, "an object read outside tracking first still notifies once observed")
            tracker.rearm()
            context.rollback()
            #expect(tracker.changes == 2, "changes outside the setters notify too")
        }
    }

    @Test func nestedTrackingKeepsTheOuterScopeTracking() throws {
        let context = try TestStack.context()
        try context.performAndWait {
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

    @Test func trackingOnAnotherThreadDoesNotCountOnThisOne() throws {
        guard ObservationScope.canTell else { return }
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            withObservationTracking({
                inside.signal()
                _ = release.wait(timeout: .now() + 60)
            }, onChange: {})
        }
        thread.start()
        #expect(inside.wait(timeout: .now() + 60) == .success, "the other thread entered its tracking scope")
        let context = try TestStack.context()
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            _ = server.name
            #expect(server._observation == nil, "another thread's tracking scope is not this thread's")
        }
        release.signal()
    }
}

/// A count shared with an onChange closure.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
