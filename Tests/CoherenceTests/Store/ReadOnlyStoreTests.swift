import Coherence
import Foundation
import Testing

/// Core Data's read-only stores: `isReadOnly` / `NSReadOnlyPersistentStoreOption`
/// (https://developer.apple.com/documentation/coredata/nspersistentstoredescription/isreadonly)
/// open an existing store for reading; saving to one fails. The reliability
/// campaign (issue 28) found read-only files could not be opened at all.
@Suite("Read-only stores")
struct ReadOnlyStoreTests {
    private func savedStore() throws -> URL {
        let url = TestFiles.newURL("catalog.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(.sqlite(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            Server(context: context).name = "kept"
            try context.save()
        }
        return url
    }

    private func readOnlyDescription(_ url: URL) -> PersistentStoreDescription {
        let description = PersistentStoreDescription.sqlite(url)
        description.setOption(true as NSNumber, forKey: NSReadOnlyPersistentStoreOption)
        return description
    }

    @Test func aReadOnlyStoreReadsAndRefusesSaves() throws {
        let url = try savedStore()
        let before = try Data(contentsOf: url)
        let description = readOnlyDescription(url)
        #expect(description.isReadOnly)
        let container = PersistentContainer(name: "Catalog", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            #expect(try context.fetch(FetchRequest<Server>()).map(\.name) == ["kept"])
            Server(context: context).name = "new"
            #expect(performing: { try context.save() }, throws: { error in
                guard case .readOnlyStore(url.path, _)? = error as? StoreError else { return false }
                return true
            })
            #expect(context.hasChanges, "the context keeps its changes")
            context.rollback()
            #expect(performing: { try context.execute(BatchDeleteRequest<Server>()) }, throws: { error in
                if case .readOnlyStore? = error as? StoreError { true } else { false }
            })
        }
        #expect(try Data(contentsOf: url) == before, "nothing was written")
    }

    @Test func aMissingFileOrAnotherModelIsRefused() throws {
        let missing = TestFiles.newURL("missing.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        #expect(throws: StoreError.readOnlyStore(path: missing.path, reason: "there is no store there to open read-only")) {
            try coordinator.addPersistentStore(readOnlyDescription(missing))
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path), "no file was created")
        let url = try savedStore()
        let other = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [NoteV1.self]))
        #expect(performing: { try other.addPersistentStore(readOnlyDescription(url)) }, throws: { error in
            if case .incompatibleModel? = error as? StoreError { true } else { false }
        })
    }
}
