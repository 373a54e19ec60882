import Coherence
import Foundation
import Testing

/// Misuse that Swift cannot turn into a thrown error (property accessors
/// cannot throw) stops the program with a message that names the entity.
/// These run in a child process.
@Suite("Misuse traps")
struct MisuseTests {
    @Test func readingARequiredAttributeBeforeItIsSetTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait { _ = Sample(context: context).code }
        }
        let message = result.standardError
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
        let message = result.standardError
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
            context.delete(server)
            #expect(throws: ContextError.objectDeleted(id)) { try context.existingObject(with: id) }
            try context.save()
            #expect(throws: ContextError.objectNotFound(id)) { try context.existingObject(with: id) }
        }
    }

    // MARK: delete(_:)

    // delete(_:) does not throw
    // (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/delete(_:));
    // for an object of another context Core Data raises NSInvalidArgumentException
    // ("An NSManagedObjectContext cannot delete objects in other contexts"), a
    // message its documentation does not quote but that Core Data users meet.
    @Test func deletingAnObjectOfAnotherContextTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
            let foreign = other.performAndWait { Server(context: other) }
            context.performAndWait { context.delete(foreign) }
        }
        let message = result.standardError
        #expect(message.contains("Server"))
        #expect(message.contains("another context"))
    }

    // Core Data raises only for an object of another context; an object that
    // is already gone is left alone, and an inaccessible fault is deleted
    // without an error (shouldDeleteInaccessibleFaults, true by default:
    // https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/shoulddeleteinaccessiblefaults).
    @Test func deletingAnObjectWhoseDeletionWasSavedDoesNothing() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            context.delete(server)
            try context.save()
            context.delete(server)
            #expect(!context.hasChanges)
            #expect(server.managedObjectContext == nil)
        }
    }

    @Test func deletingAnObjectThatWasNeverInsertedDoesNothing() throws {
        let context = try TestStack.context()
        context.performAndWait {
            let server = Server()
            context.delete(server)
            #expect(!context.hasChanges)
            #expect(server.managedObjectContext == nil)
        }
    }

    @Test func deletingAFaultWhoseRowIsGoneDoesNothing() throws {
        let writer = try TestStack.context(.sqlite)
        let id = try writer.performAndWait {
            let server = Server(context: writer)
            try writer.save()
            return server.objectID
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        try writer.performAndWait {
            writer.delete(writer.object(with: id))
            try writer.save()
        }
        try reader.performAndWait {
            let fault = reader.object(with: id) // never loaded
            reader.delete(fault)
            #expect(!reader.hasChanges)
            try reader.save()
        }
    }

    // MARK: setValue(_:forKey:)

    // Key-value coding raises NSUnknownKeyException for a key the object
    // does not have (setValue(_:forUndefinedKey:)):
    // https://developer.apple.com/documentation/objectivec/nsobject-swift.class/setvalue(_:forundefinedkey:)
    @Test func settingAnUnknownKeyTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait { FeedItem(context: context).setValue(1, forKey: "nope") }
        }
        let message = result.standardError
        #expect(message.contains("FeedItem"))
        #expect(message.contains("\"nope\""))
    }

    // Core Data's value(forKey:) "raises an exception" for a key the model
    // does not define:
    // https://developer.apple.com/documentation/coredata/nsmanagedobject/value(forkey:)
    @Test func readingAnUnknownKeyTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait { _ = FeedItem(context: context).value(forKey: "nope") }
        }
        #expect(result.standardError.contains("FeedItem is not key value coding-compliant for the key \"nope\""))
    }

    @Test func settingAValueOfTheWrongTypeTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait { FeedItem(context: context).setValue(42, forKey: "title") }
        }
        let message = result.standardError
        #expect(message.contains("FeedItem.title"))
        #expect(message.contains("expected String, got Int"))
    }

    @Test func settingARelationshipToAnObjectOfTheWrongEntityTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait {
                let item = FeedItem(context: context)
                item.setValue(FeedItem(context: context), forKey: "server")
            }
        }
        let message = result.standardError
        #expect(message.contains("FeedItem.server"))
    }

    @Test func settingADerivedPropertyByKeyTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try DerivedStack.context()
            context.performAndWait { Feed(context: context).setValue(3, forKey: "unreadCount") }
        }
        let message = result.standardError
        #expect(message.contains("Feed.unreadCount"))
        #expect(message.contains("derived"))
    }

    @Test func settingAValueByKeyOnAnInvalidatedObjectTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait {
                let tracked = Tracked(context: context)
                context.reset()
                tracked.setValue("too late", forKey: "name")
            }
        }
        let message = result.standardError
        #expect(message.contains("Tracked.name"))
        #expect(message.contains("invalidated"))
    }
}
