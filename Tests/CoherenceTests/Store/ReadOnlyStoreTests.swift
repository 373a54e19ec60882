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

    final class Shelf: ManagedObject {
        @Attribute var name = ""
        @Relationship(inverse: \Book.shelf, deleteRule: .cascade) var books: Set<Book>
        @Derived(count: \Shelf.books, where: #Predicate<Book> { $0.read == false }) var unread: Int
    }

    final class Book: ManagedObject {
        @Attribute var read = false
        @Relationship var shelf: Shelf?
    }

    /// A derivation with a predicate is the same model in every process: a
    /// predicate's description numbers its variables from a process-wide
    /// counter and shows key paths by address, so a store remembered the
    /// model by it, read-only opens refused such stores ("saved with another
    /// model"), and every writable open recomputed every derived value
    /// (found by zeader, whose unread count has a predicate).
    @Test func aDerivationWithAPredicateOpensReadOnlyWithAnotherModelInstance() throws {
        let url = TestFiles.newURL("shelves.sqlite")
        let writer = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Shelf.self, Book.self]))
        try writer.addPersistentStore(.sqlite(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer)
        try context.performAndWait {
            let shelf = Shelf(context: context)
            for read in [true, false, false] {
                let book = Book(context: context)
                book.read = read
                book.shelf = shelf
            }
            try context.save()
        }
        let reader = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Shelf.self, Book.self]))
        try reader.addPersistentStore(readOnlyDescription(url))
        let readContext = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: reader)
        #expect(try readContext.performAndWait { try readContext.fetch(FetchRequest<Shelf>()).map(\.unread) } == [2])
    }
}
