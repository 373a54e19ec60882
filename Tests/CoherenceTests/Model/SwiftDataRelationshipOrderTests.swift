import Coherence
import Foundation
import Testing

/// SwiftData writes a relationship's delete rule before its inverse:
/// `@Relationship(deleteRule: .cascade, inverse: \Book.library)`
/// ("Relationship(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)",
/// https://developer.apple.com/documentation/swiftdata/relationship(_:deleterule:minimummodelcount:maximummodelcount:originalname:inverse:hashmodifier:)).
/// Coherence accepts that order as well as its own, so SwiftData's
/// relationship declarations port without reordering their arguments.
@Suite("SwiftData's relationship argument order")
struct SwiftDataRelationshipOrderTests {
    final class Library: ManagedObject {
        @Attribute var name = ""
        @Relationship(deleteRule: .cascade, inverse: \Book.library) var books: Set<Book>
    }

    final class Book: ManagedObject {
        @Attribute var title = ""
        @Relationship var library: Library?
        @Relationship var stand: Stand?
    }

    final class Stand: ManagedObject {
        // SwiftData's order with an initial value.
        @Relationship(deleteRule: .deny, inverse: \Book.stand) var book: Book? = nil
    }

    static func context(_ store: StoreKind) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Library.self, Book.self, Stand.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    @Test func theModelHasTheInverseAndTheDeleteRules() throws {
        let model = try ManagedObjectModel(entities: [Library.self, Book.self, Stand.self])
        let books = try #require(model.entitiesByName["Library"]?.relationship(named: "books"))
        let library = try #require(model.entitiesByName["Book"]?.relationship(named: "library"))
        #expect(books.inverseName == "library")
        #expect(books.deleteRule == .cascade)
        #expect(books.isToMany)
        #expect(library.inverseName == "books")
        #expect(!library.isToMany)
        let book = try #require(model.entitiesByName["Stand"]?.relationship(named: "book"))
        #expect(book.inverseName == "stand")
        #expect(book.deleteRule == .deny)
        #expect(!book.isToMany)
    }

    @Test(arguments: StoreKind.allCases) func theRelationshipBehavesAsDeclared(store: StoreKind) throws {
        let context = try Self.context(store)
        try context.performAndWait {
            let library = Library(context: context)
            let book = Book(context: context)
            book.library = library
            #expect(library.books == [book], "the inverse is kept")
            let stand = Stand(context: context)
            stand.book = book
            #expect(book.stand === stand, "the inverse is kept")
            try context.save()
            // The deny rule declared in SwiftData's order applies.
            context.delete(stand)
            #expect(throws: ValidationError.deleteDenied(entity: "Stand", property: "book")) { try context.save() }
            context.rollback()
            stand.book = nil
            try context.save()
            context.delete(library)
            try context.save()
            #expect(book.managedObjectContext == nil, "the cascade deleted the book, and the save invalidated it")
            #expect(try context.count(for: FetchRequest<Book>()) == 0)
        }
    }
}
