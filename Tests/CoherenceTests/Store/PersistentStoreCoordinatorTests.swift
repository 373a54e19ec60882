@testable import Coherence
import Foundation
import GRDB
import Testing

/// Adding, removing and destroying stores with Core Data's calls.
@Suite("Persistent store coordinator")
struct PersistentStoreCoordinatorTests {
    private func coordinator() throws -> PersistentStoreCoordinator {
        PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
    }

    /// Saves one server named `name` through a new context of `coordinator`.
    private func saveServer(_ name: String, in coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            Server(context: context).name = name
            try context.save()
        }
    }

    private func serverNames(in coordinator: PersistentStoreCoordinator) throws -> [String] {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return try context.performAndWait { try context.fetch(FetchRequest<Server>()).map(\.name).sorted() }
    }

    private func filesBeside(_ url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
    }

    // addPersistentStore(type:configuration:at:options:) returns the store it added:
    // https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/addpersistentstore(type:configuration:at:options:)
    @Test func addPersistentStoreOfATypeAtAURLReturnsTheStore() throws {
        let url = TestFiles.newURL("Typed.sqlite")
        let coordinator = try coordinator()
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: ["NSReadOnlyPersistentStoreOption": false])
        #expect(store.type == SQLiteStoreType)
        #expect((store as? SQLiteStore)?.url == url)
        #expect(coordinator.persistentStores.map(\.identifier) == [store.identifier])
        try saveServer("kept", in: coordinator)

        let reopened = try self.coordinator()
        try reopened.addPersistentStore(type: PersistentStore.StoreType.sqlite, at: url)
        #expect(try serverNames(in: reopened) == ["kept"])

        let memory = try self.coordinator()
        let inMemory = try memory.addPersistentStore(type: .inMemory, at: URL(filePath: "/dev/null"))
        #expect(inMemory.type == InMemoryStoreType)
        #expect(throws: StoreError.unsupportedStoreType("XML")) {
            try memory.addPersistentStore(type: PersistentStoreType(rawValue: "XML"), at: TestFiles.newURL("Store.xml"))
        }
    }

    // remove(_:) takes a store out of the coordinator:
    // https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/remove(_:)
    @Test(arguments: StoreKind.allCases) func removeTakesTheStoreOutOfTheCoordinator(store kind: StoreKind) throws {
        let coordinator = try coordinator()
        let store = try coordinator.addPersistentStore(kind.makeDescription())
        try saveServer("before", in: coordinator)
        #expect(try serverNames(in: coordinator) == ["before"])

        try coordinator.remove(store)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(throws: StoreError.noPersistentStore) { try saveServer("after", in: coordinator) }
        #expect(throws: StoreError.storeNotInCoordinator(store.identifier)) { try coordinator.remove(store) }

        try coordinator.addPersistentStore(store)
        #expect(try serverNames(in: coordinator) == ["before"], "a removed store can be added again")
    }

    @Test func objectsOfARemovedStoreAreNoLongerServedFromTheCache() throws {
        let coordinator = try coordinator()
        let store = try coordinator.addPersistentStore(.inMemory)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        // The saved object keeps its snapshot, and so the cached copy, alive.
        let (server, id) = try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            return (server, server.objectID)
        }
        let before = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        #expect(try before.performAndWait { try before.existingObject(with: id).objectID } == id, "found before the removal")
        try coordinator.remove(store)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        reader.performAndWait {
            #expect(throws: ContextError.objectNotFound(id)) { try reader.existingObject(with: id) }
        }
        withExtendedLifetime(server) {}
    }

    // destroyPersistentStore "deletes (or truncates) the target persistent store
    // in accordance with the store class' requirements":
    // https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/destroypersistentstore(at:type:options:)
    @Test func destroyDeletesTheFileAndItsCompanionsAndUnloadsIt() throws {
        let url = TestFiles.newURL("Doomed.sqlite")
        let coordinator = try coordinator()
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        try saveServer("doomed", in: coordinator)
        #expect(try filesBeside(url) == ["Doomed.sqlite", "Doomed.sqlite-shm", "Doomed.sqlite-wal"])

        try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        // Truncated, not deleted, as Core Data leaves them (the shared-memory
        // file, which open connections map, is removed).
        #expect(try filesBeside(url) == ["Doomed.sqlite", "Doomed.sqlite-wal"])
        for name in try filesBeside(url) {
            let size = try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().appending(path: name).path)[.size] as? Int
            #expect(size == 0, "\(name) is empty")
        }
        #expect(coordinator.persistentStores.isEmpty, "the coordinator's own store of that file was removed")

        try coordinator.addPersistentStore(type: .sqlite, at: url)
        #expect(try serverNames(in: coordinator).isEmpty, "a new, empty store")
    }

    /// Core Data code often removes the files itself after destroying the
    /// store; with Core Data's truncation that removal finds the file.
    @Test func codeThatRemovesTheFileAfterDestroyingTheStoreWorks() throws {
        let url = TestFiles.newURL("Removed.sqlite")
        let coordinator = try coordinator()
        try coordinator.addPersistentStore(ofType: SQLiteStoreType, configurationName: nil, at: url, options: nil)
        try saveServer("removed", in: coordinator)
        try coordinator.destroyPersistentStore(at: url, type: .sqlite, options: nil)
        try FileManager.default.removeItem(at: url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func destroyOfAClosedStoreAndOfNothing() throws {
        let url = TestFiles.newURL("Closed.sqlite")
        do {
            let coordinator = try coordinator()
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            try saveServer("closed", in: coordinator)
        }
        #expect(try filesBeside(url).contains("Closed.sqlite"))
        let coordinator = try coordinator()
        try coordinator.destroyPersistentStore(at: url, type: .sqlite)
        #expect(try filesBeside(url).contains("Closed.sqlite"), "truncated and left in place")
        try FileManager.default.removeItem(at: url)
        try coordinator.destroyPersistentStore(at: url, type: .sqlite) // missing: nothing to do
        try coordinator.destroyPersistentStore(at: URL(filePath: "/dev/null"), type: .inMemory)
    }

    @Test func destroyRefusesAFileThatIsNotACoherenceStoreAndLeavesItUntouched() throws {
        let coordinator = try coordinator()
        let notes = TestFiles.newURL("notes.sqlite")
        let text = Data("These are my notes, not a database.\n".utf8)
        try text.write(to: notes)
        #expect(throws: StoreError.notASQLiteDatabase(path: notes.path)) {
            try coordinator.destroyPersistentStore(at: notes, type: .sqlite)
        }
        #expect(try Data(contentsOf: notes) == text)

        let other = TestFiles.newURL("other.sqlite")
        do {
            let queue = try DatabaseQueue(path: other.path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)") }
            try queue.close()
        }
        let original = try Data(contentsOf: other)
        #expect(throws: StoreError.notACoherenceStore(path: other.path)) {
            try coordinator.destroyPersistentStore(at: other, type: .sqlite)
        }
        #expect(try Data(contentsOf: other) == original)
    }
}
