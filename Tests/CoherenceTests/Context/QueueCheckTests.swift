import Coherence
import Foundation
import Testing

/// The queue check accepts exactly what Core Data allows: the thread that
/// holds a private-queue context (a `perform` block on its queue, or a
/// `performAndWait` block on the calling thread), and the main queue for a
/// main-queue context, wherever that queue runs (under `swift test` on Linux
/// the main actor does not run on the process's main thread). Anything else
/// stops the program with a message naming the entity and the context; the
/// traps run in a child process.
@Suite("Queue check")
struct QueueCheckTests {
    @MainActor @Test func theMainActorMayUseAMainQueueContextDirectly() throws {
        let context = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: try TestStack.coordinator())
        let server = Server(context: context)
        server.name = "on the main actor"
        #expect(server.name == "on the main actor")
        #expect(context.insertedObjects == [server])
    }

    @Test func aMainQueueBlockMayUseAMainQueueContextDirectly() async throws {
        let context = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: try TestStack.coordinator())
        let (name, inserted) = try await DispatchQueue.main.runWaiting {
            let server = Server(context: context)
            server.name = "in a main-queue block"
            return (server.name, context.insertedObjects == [server])
        }
        #expect(name == "in a main-queue block")
        #expect(inserted)
    }

    // The object-access check runs in debug builds.
    #if DEBUG
    @Test func aMainQueueObjectTouchedFromAPlainThreadTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: try TestStack.coordinator())
            context.name = "viewContext"
            let server = context.performAndWait { Server(context: context) }
            _ = server.name // this thread is not the main queue
        }
        let message = result.standardError
        #expect(message.contains("Server"))
        #expect(message.contains("viewContext"))
    }

    @Test func anObjectTouchedInsideAnotherContextsBlockTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = try TestStack.coordinator()
            let owner = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            owner.name = "owner"
            let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            let item = owner.performAndWait { FeedItem(context: owner) }
            // Holding `other` does not make `owner`'s objects usable.
            other.performAndWait { _ = item.title }
        }
        let message = result.standardError
        #expect(message.contains("FeedItem"))
        #expect(message.contains("owner"))
    }

    @Test func aPrivateObjectTouchedFromTheMainQueueOutsideItsBlockTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context(name: "background")
            let item = context.performAndWait { FeedItem(context: context) }
            nonisolated(unsafe) let unsafeItem = item
            DispatchQueue.main.sync { _ = unsafeItem.title } // the main queue does not hold `background`
        }
        let message = result.standardError
        #expect(message.contains("FeedItem"))
        #expect(message.contains("background"))
    }

    /// Once a `performAndWait` returns, its thread no longer holds the context.
    @Test func theCallingThreadLetsGoWhenTheBlockEnds() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context(name: "released")
            let item = context.performAndWait {
                let item = FeedItem(context: context)
                item.title = "inside"
                return item
            }
            _ = item.title
        }
        let message = result.standardError
        #expect(message.contains("FeedItem"))
        #expect(message.contains("released"))
    }
    #endif

    /// Core Data checks confinement only under its
    /// `-com.apple.CoreData.ConcurrencyDebug 1` launch argument
    /// (<https://developer.apple.com/documentation/xcode/diagnosing-memory-thread-and-crash-issues-early>);
    /// `COHERENCE_CONCURRENCY_DEBUG` is that switch, in any build.
    @Test func concurrencyDebugZeroTurnsTheCheckOff() async throws {
        await #expect(processExitsWith: .success) {
            setenv("COHERENCE_CONCURRENCY_DEBUG", "0", 1)
            let context = try TestStack.context(name: "unchecked")
            let item = context.performAndWait {
                let item = FeedItem(context: context)
                item.title = "inside"
                return item
            }
            // Off the queue, on a thread nothing else uses: not checked.
            guard item.title == "inside" else { exit(2) }
        }
    }

    @Test func concurrencyDebugOneTurnsTheCheckOnAndNamesTheSwitch() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("COHERENCE_CONCURRENCY_DEBUG", "1", 1)
            let context = try TestStack.context(name: "checked")
            let item = context.performAndWait { FeedItem(context: context) }
            _ = item.title
        }
        let message = result.standardError
        #expect(message.contains("FeedItem"))
        #expect(message.contains("checked"))
        #expect(message.contains("COHERENCE_CONCURRENCY_DEBUG=0"))
    }
}
