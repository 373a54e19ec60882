import Coherence
import Foundation
import Testing

/// A computed property that reads an attribute is not that attribute: a
/// predicate or sort on it must not become SQL on the attribute's column
/// (which would return the wrong rows), but be refused or done in memory.
@Suite("Computed key paths")
struct ComputedKeyPathTests {
    private func seeded(_ store: StoreKind) throws -> ManagedObjectContext {
        let context = try TestStack.context(store)
        try context.performAndWait {
            for title in ["", "A", "z"] { FeedItem(context: context).title = title }
            try context.save()
        }
        return context
    }

    /// The in-memory store evaluates every predicate in Swift: the computed
    /// property's own value decides.
    @Test func theInMemoryStoreEvaluatesTheComputedProperty() throws {
        let context = try seeded(.inMemory)
        try context.performAndWait { () throws in
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.displayTitle == "Untitled" })
            #expect(try context.fetch(request).map(\.title) == [""])
        }
    }

    /// Asked to, the SQLite store evaluates it in memory too.
    @Test func theSQLiteStoreEvaluatesItInMemoryWhenAsked() throws {
        let context = try seeded(.sqlite)
        try context.performAndWait { () throws in
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.displayTitle == "Untitled" })
            request.evaluatesPredicateInMemory = true
            #expect(try context.fetch(request).map(\.title) == [""])
        }
    }

    @Test func theSQLiteStoreRefusesAComputedPropertyRatherThanReadingTheColumn() throws {
        let context = try seeded(.sqlite)
        context.performAndWait {
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.displayTitle == "Untitled" })
            #expect(throws: FetchError.self) { try context.fetch(request) }
        }
    }

    @Test(arguments: StoreKind.allCases) func aSortOnAComputedPropertySortsItsValues(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.displayTitle)])
            // Sorted by the column, "" would come first.
            #expect(try context.fetch(request).map(\.displayTitle) == ["A", "Untitled", "z"])
        }
    }
}
