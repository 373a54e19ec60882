import Coherence
import Foundation
import Testing

/// Sort descriptors by attribute name, as Core Data's
/// `NSSortDescriptor(key:ascending:)`
/// (https://developer.apple.com/documentation/foundation/nssortdescriptor/init(key:ascending:)),
/// ordering as the typed descriptor on the same attribute does, in SQL and
/// in memory.
@Suite("Sorting by key name")
struct SortByKeyNameTests {
    static let pairs: [(String, SortDescriptor<Automobile>, SortDescriptor<Automobile>)] = [
        ("make", SortDescriptor(key: "make"), SortDescriptor(\.make)),
        ("make desc", SortDescriptor(key: "make", ascending: false), SortDescriptor(\.make, order: .reverse)),
        ("model (optional)", SortDescriptor(key: "model"), SortDescriptor(\.model)),
        ("model desc", SortDescriptor(key: "model", order: .reverse), SortDescriptor(\.model, order: .reverse)),
        ("year", SortDescriptor(key: "year"), SortDescriptor(\.year)),
        ("price desc", SortDescriptor(key: "price", ascending: false), SortDescriptor(\.price, order: .reverse)),
    ]

    @Test(arguments: StoreKind.allCases, 0..<pairs.count) func ordersAsTheTypedDescriptor(store: StoreKind, index: Int) throws {
        let (name, byName, typed) = Self.pairs[index]
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            // Ties broken the same way by a second, typed descriptor.
            let expected = try context.fetch(FetchRequest<Automobile>(sortBy: [typed, SortDescriptor(\.price)])).map(\.objectID)
            let fetched = try context.fetch(FetchRequest<Automobile>(sortBy: [byName, SortDescriptor(\.price)])).map(\.objectID)
            #expect(fetched == expected, "\(name)")
            // With unsaved changes, the context sorts in memory.
            Automobile(context: context).make = "Audi"
            let expectedPending = try context.fetch(FetchRequest<Automobile>(sortBy: [typed, SortDescriptor(\.price)])).map(\.objectID)
            let pending = try context.fetch(FetchRequest<Automobile>(sortBy: [byName, SortDescriptor(\.price)])).map(\.objectID)
            #expect(pending == expectedPending, "\(name), pending")
            #expect(pending.count == 8)
            // Outside a fetch.
            let objects = try context.fetch(FetchRequest<Automobile>())
            #expect(objects.sorted(using: [byName, SortDescriptor(\.price)]) == objects.sorted(using: [typed, SortDescriptor(\.price)]))
        }
    }

    /// A limited, sorted fetch with no pending changes: the SQLite store
    /// sorts and windows in SQL; the result is the same window as the
    /// typed descriptor's.
    @Test(arguments: StoreKind.allCases) func windowedFetch(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>(sortBy: [SortDescriptor(key: "year", ascending: false), SortDescriptor(key: "price")])
            request.fetchLimit = 3
            request.fetchOffset = 1
            #expect(try context.fetch(request).map(\.model) == ["Model Y", "500", "Model 3"])
            request.fetchBatchSize = 2
            context.reset()
            let batched = try context.fetch(request)
            // Only a fetch the store sorts and windows returns batch faults.
            #expect(batched.allSatisfy { $0.isFault } == (store != .inMemory))
            #expect(batched.map(\.model) == ["Model Y", "500", "Model 3"])
        }
    }

    /// Core Data checks a sort key when the fetch runs; Coherence throws a
    /// typed error naming the entity and the key.
    @Test(arguments: StoreKind.allCases) func unknownKeyThrowsAtFetch(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            for key in ["colour", "photo", "dealer"] {
                #expect {
                    try context.fetch(FetchRequest<Automobile>(sortBy: [SortDescriptor(key: key)]))
                } throws: { error in
                    guard case FetchError.unknownSortKey(let entity, let name) = error else { return false }
                    return entity == "Automobile" && name == key
                }
            }
        }
    }

    /// A fetched results controller accepts a by-name descriptor and keeps
    /// its objects in the typed descriptor's order as they change.
    @Test(arguments: StoreKind.allCases) func fetchedResultsController(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Automobile>(sortBy: [SortDescriptor(key: "make"), SortDescriptor(key: "price")]),
                managedObjectContext: context)
            try controller.performFetch()
            let typed = FetchRequest<Automobile>(sortBy: [SortDescriptor(\.make), SortDescriptor(\.price)])
            #expect(controller.fetchedObjects == (try context.fetch(typed)))
            #expect(controller.fetchedObjects?.first?.make == "BMW")
            let bmw = try #require(controller.fetchedObjects?.first)
            bmw.make = "Zastava"
            try context.save()
            #expect(controller.fetchedObjects == (try context.fetch(typed)))
            #expect(controller.fetchedObjects?.firstIndex(of: bmw) != 0)
        }
    }
}
