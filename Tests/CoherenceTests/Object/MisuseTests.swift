import Coherence
import Foundation
import Testing

/// Misuse that Swift cannot turn into a thrown error (property accessors
/// cannot throw) stops the program with a message that names the entity.
/// These run in a child process.
@Suite("Misuse traps")
struct MisuseTests {
    @Test func touchingAnObjectOffItsQueueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context(name: "writer")
            let item = context.performAndWait { FeedItem(context: context) }
            _ = item.title // not on the context's queue
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("FeedItem"))
        #expect(message.contains("writer"))
    }

    @Test func readingARequiredAttributeBeforeItIsSetTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait { _ = Sample(context: context).code }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Sample.code was read before it was set"))
    }

    @Test func changingAnInvalidatedObjectTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait {
                let item = FeedItem(context: context)
                context.reset()
                item.title = "too late"
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("FeedItem.title"))
        #expect(message.contains("invalidated"))
    }

    @Test(arguments: StoreKind.allCases) func existingObjectThrowsForUnknownAndDeletedIDs(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            let id = server.objectID
            let unknown = try #require(context.persistentStoreCoordinator?.managedObjectID(
                forURIRepresentation: URL(string: id.uriRepresentation().absoluteString.replacingOccurrences(of: "/p1", with: "/p999"))!))
            #expect(throws: ContextError.objectNotFound(unknown)) { try context.existingObject(with: unknown) }
            try context.delete(server)
            #expect(throws: ContextError.objectDeleted(id)) { try context.existingObject(with: id) }
            try context.save()
            #expect(throws: ContextError.objectNotFound(id)) { try context.existingObject(with: id) }
            #expect(throws: ContextError.objectInvalidated(entity: "Server")) { try context.delete(server) }
        }
    }

    @Test(arguments: StoreKind.allCases) func deletingAnObjectOfAnotherContextThrows(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let foreign = other.performAndWait { Server(context: other) }
        context.performAndWait {
            #expect(throws: ContextError.objectNotInContext(entity: "Server")) { try context.delete(foreign) }
        }
    }
}
