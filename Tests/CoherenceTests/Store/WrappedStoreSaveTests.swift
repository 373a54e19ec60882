@testable import Coherence
import Foundation
import Testing

/// A custom store that wraps Coherence's SQLite store and hands it each
/// save's inserted rows in reverse order. Its saves must still give every
/// object its own permanent ID and snapshot: the context may take them by
/// position only from Coherence's own stores.
final class ReversingStore: PersistentStore {
    let base: SQLiteStore

    init(url: URL, model: ManagedObjectModel) throws {
        base = try SQLiteStore(url: url, model: model)
    }

    var identifier: String { base.identifier }
    var type: String { "Reversing" }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        var reversed = request
        reversed.inserted.reverse()
        return try base.save(reversed)
    }

    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? { try base.snapshot(for: objectID) }
    func snapshots(of entity: EntityDescription) throws -> [Snapshot] { try base.snapshots(of: entity) }
    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try base.relatedObjectIDs(of: objectID, relationship: relationship)
    }
    func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        try base.permanentIDs(for: objectIDs, entities: entities)
    }
    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? { try base.fetch(request) }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? { try base.fetchObjectIDs(request) }
    func count(_ request: StoreFetchRequest) throws -> Int? { try base.count(request) }
}

@Suite("A custom store wrapping a built-in one")
struct WrappedStoreSaveTests {
    @Test func insertedObjectsKeepTheirOwnRowsWhenTheWrapperReordersTheSave() throws {
        let model = try TestStack.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try ReversingStore(url: TestFiles.newURL("reversing.sqlite"), model: model))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let saved: [(ManagedObjectID, String)] = try writer.performAndWait {
            let servers = (0..<40).map { number in
                let server = Server(context: writer)
                server.name = "server \(number)"
                server.unreadCount = number
                return server
            }
            try writer.save()
            // Each object's committed state is its own row's.
            for server in servers {
                #expect(server.committedValues(forKeys: ["name"])["name"] as? String == server.name)
            }
            return servers.map { ($0.objectID, $0.name) }
        }
        #expect(Set(saved.map(\.0)).count == 40)
        #expect(saved.allSatisfy { !$0.0.isTemporaryID })
        // Another context reads each ID's row from the store: the names match.
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try reader.performAndWait {
            for (id, name) in saved {
                let server = try #require(try reader.existingObject(with: id) as? Server)
                #expect(server.name == name)
            }
        }
    }
}
