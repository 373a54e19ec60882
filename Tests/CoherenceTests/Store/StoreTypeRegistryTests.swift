@testable import Coherence
import Foundation
import Testing

/// Store types registered with the coordinator, as Core Data's
/// `NSPersistentStoreCoordinator.registerStoreClass(_:type:)`
/// (https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/AtomicStore_Concepts/Articles/asRegistration.html).
@Suite("Store type registry")
struct StoreTypeRegistryTests {
    @Test("A registered type loads through its factory, with the description and the coordinator's model")
    func registeredTypeLoads() throws {
        let type = PersistentStoreType(rawValue: "Fake-\(UUID().uuidString)")
        let seen = Locked<[String]>([])
        PersistentStoreCoordinator.registerStoreType(type) { description, model in
            seen.withLock { $0.append("\(description.type) \(description.url?.absoluteString ?? "") \(model.entities.count)") }
            return InMemoryStore()
        }
        let coordinator = try TestStack.coordinator()
        let description = PersistentStoreDescription(url: URL(string: "fake://somewhere")!)
        description.type = type.rawValue
        let store = try coordinator.addPersistentStore(description)
        #expect(store is InMemoryStore)
        #expect(coordinator.persistentStores.count == 2)
        #expect(seen.withLock { $0 } == ["\(type.rawValue) fake://somewhere \(coordinator.managedObjectModel.entities.count)"])

        // The store works: a save through it is fetched back.
        let saving = PersistentStoreCoordinator(managedObjectModel: coordinator.managedObjectModel)
        try saving.addPersistentStore(description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: saving)
        let names = try context.performAndWait {
            Server(context: context).name = "registered"
            try context.save()
            return try context.fetch(FetchRequest<Server>()).map(\.name)
        }
        #expect(names == ["registered"])
    }

    @Test("A factory's error is what loading throws; an unregistered type is unsupportedStoreType")
    func errorsAndUnknownTypes() throws {
        let type = PersistentStoreType(rawValue: "Failing-\(UUID().uuidString)")
        PersistentStoreCoordinator.registerStoreType(type) { _, _ in throw StoreError.missingStoreURL }
        let coordinator = try TestStack.coordinator()
        let description = PersistentStoreDescription()
        description.type = type.rawValue
        #expect(throws: StoreError.missingStoreURL) { try coordinator.addPersistentStore(description) }
        description.type = "Unregistered-\(UUID().uuidString)"
        #expect(throws: StoreError.unsupportedStoreType(description.type)) { try coordinator.addPersistentStore(description) }
        #expect(coordinator.persistentStores.count == 1)
    }

    @Test("Registering from many threads at once is safe, and each type keeps its factory")
    func concurrentRegistration() async throws {
        let types = (0..<50).map { PersistentStoreType(rawValue: "Concurrent-\($0)-\(UUID().uuidString)") }
        await withTaskGroup(of: Void.self) { group in
            for type in types {
                group.addTask {
                    PersistentStoreCoordinator.registerStoreType(type) { _, _ in InMemoryStore(identifier: type.rawValue) }
                }
            }
        }
        let coordinator = try TestStack.coordinator()
        for type in types {
            let description = PersistentStoreDescription()
            description.type = type.rawValue
            #expect(try coordinator.addPersistentStore(description).identifier == type.rawValue)
        }
    }
}
