import Coherence
import Foundation
import Testing

@Suite("Object IDs")
struct ManagedObjectIDTests {
    @Test(arguments: StoreKind.allCases) func temporaryIDsBecomePermanentOnSave(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            let temporary = server.objectID
            #expect(temporary.isTemporaryID)
            #expect(temporary.primaryKey == nil)
            #expect(temporary.uriRepresentation().absoluteString.hasPrefix("x-coherence:///Server/t"))
            try context.save()
            let permanent = server.objectID
            #expect(!permanent.isTemporaryID)
            #expect(permanent != temporary, "as in Core Data, the permanent ID is a new ID")
            #expect(context.registeredObject(for: permanent) === server)
            #expect(context.registeredObject(for: temporary) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func obtainPermanentIDsBeforeSaveAndKeepThemThroughTheSave(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            item.server = server
            try context.obtainPermanentIDs(for: [server, item])
            let serverID = server.objectID
            #expect(!serverID.isTemporaryID)
            #expect(item.server === server, "relationships follow the new IDs")
            try context.save()
            #expect(server.objectID == serverID)
            #expect(server.feedItems == [item])
        }
    }

    @Test(arguments: StoreKind.allCases) func uriRepresentationResolvesThroughTheCoordinator(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let (id, uri): (ManagedObjectID, URL) = try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            return (server.objectID, server.objectID.uriRepresentation())
        }
        #expect(uri.scheme == "x-coherence")
        #expect(uri.host == coordinator.persistentStores.first?.identifier)
        #expect(coordinator.managedObjectID(forURIRepresentation: uri) == id)
        #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coherence://nope/Server/p1")!) == nil)
        #expect(coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com/Server/p1")!) == nil)
    }

    @Test(arguments: StoreKind.allCases) func idsAreHashableSendableHandles(store: StoreKind) async throws {
        let context = try TestStack.context(store)
        let id = try await context.perform {
            let server = Server(context: context)
            server.name = "handed over"
            try context.save()
            return server.objectID
        }
        let set: Set<ManagedObjectID> = [id, id]
        #expect(set.count == 1)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let name = try await other.perform {
            (try other.existingObject(with: id) as! Server).name
        }
        #expect(name == "handed over")
    }
}
