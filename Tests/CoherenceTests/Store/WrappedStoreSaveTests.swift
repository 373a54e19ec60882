@testable import Coherence
import Foundation
import Testing

/// A custom store that wraps Coherence's SQLite store and hands it each
/// save's inserted rows in reverse order. Its saves must still give every
/// object its own permanent ID and snapshot: the context may take them by
/// position only from Coherence's own stores.
final class ReversingStore: WrappingStore {
    let base: any PersistentStore

    init(url: URL, model: ManagedObjectModel) throws {
        base = try SQLiteStore(url: url, model: model)
    }

    var type: String { "Reversing" }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        var reversed = request
        reversed.inserted.reverse()
        return try base.save(reversed)
    }

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
