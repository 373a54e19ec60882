import Coherence
import Foundation
import Testing

/// Fetch requests for an entity given by name, as Core Data's
/// `NSFetchRequest(entityName:)`
/// (https://developer.apple.com/documentation/coredata/nsfetchrequest/init(entityname:)),
/// for generic code that does not know the entity's class.
@Suite("Fetching an entity by name")
struct EntityNameFetchTests {
    @Test(arguments: StoreKind.allCases) func fetchCountAndDictionaries(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<ManagedObject>(entityName: "Automobile",
                                                      sortBy: [SortDescriptor(key: "year", ascending: false), SortDescriptor(key: "price")])
            let cars = try context.fetch(request)
            #expect(cars.count == 7)
            #expect(cars.allSatisfy { $0 is Automobile })
            #expect(cars.map { $0.value(forKey: "model") as? String } == ["EX30", "Model Y", "500", "Model 3", nil, "i3", "XC40"])
            #expect(try context.count(for: request) == 7)
            request.fetchLimit = 2
            #expect(try context.fetch(request).map { $0.value(forKey: "make") as? String } == ["Volvo", "Tesla"])
            let rows = try context.fetchDictionaries(request, propertiesToFetch: ["make", "year"])
            #expect(rows.map { $0["year"] as? Int } == [2024, 2023])
            #expect(try context.fetchObjectIDs(request) == cars.prefix(2).map(\.objectID))
            let count = ExpressionDescription(name: "count", expression: .count("make"), resultType: .integer64)
            let perYear = try context.fetchDictionaries(
                FetchRequest<ManagedObject>(entityName: "Automobile", sortBy: [SortDescriptor(key: "year")]),
                propertiesToFetch: ["year", .expression(count)], propertiesToGroupBy: ["year"])
            #expect(perYear.map { $0["year"] as? Int } == [2019, 2021, 2023, 2024])
            #expect(perYear.map { $0["count"] as? Int } == [3, 2, 1, 1])
        }
    }

    /// Compound predicates of predicates on `ManagedObject` itself, and
    /// unsaved insertions of the entity, which count as in any fetch.
    @Test(arguments: StoreKind.allCases) func predicatesAndPendingChanges(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let cars = try context.fetch(FetchRequest<Automobile>(sortBy: [SortDescriptor(\.price)]))
            let (cheapest, second) = (cars[0].objectID, cars[1].objectID)
            let predicate = CompoundPredicate.or([
                #Predicate<ManagedObject> { $0.objectID == cheapest },
                #Predicate<ManagedObject> { $0.objectID == second },
            ])
            let request = FetchRequest<ManagedObject>(entityName: "Automobile", predicate: predicate, sortBy: [SortDescriptor(key: "make")])
            #expect(try context.fetch(request).map(\.objectID) == [cheapest, second])
            #expect(try context.count(for: request) == 2)

            let kia = Automobile(context: context)
            kia.make = "Kia"
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Automobile")) == 8)
            #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Automobile", sortBy: [SortDescriptor(key: "make")])).first === kia
                || SortDescriptor<Automobile>(\.make).compare(kia, cars[0]) != .orderedAscending)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "CarDealer")) == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func unknownEntityThrows(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<ManagedObject>(entityName: "Truck")
            for attempt in [{ _ = try context.fetch(request) }, { _ = try context.count(for: request) },
                            { _ = try context.fetchDictionaries(request) }] {
                #expect {
                    try attempt()
                } throws: { error in
                    guard case FetchError.unknownEntity(let name) = error else { return false }
                    return name == "Truck"
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func unknownSortKeyNamesTheEntity(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            #expect {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "CarDealer", sortBy: [SortDescriptor(key: "make")]))
            } throws: { error in
                guard case FetchError.unknownSortKey(let entity, let key) = error else { return false }
                return entity == "CarDealer" && key == "make"
            }
        }
    }

    /// A fetched results controller over an entity given by name, sectioned
    /// and sorted by name, follows changes as a typed one does.
    @Test(arguments: StoreKind.allCases) func fetchedResultsController(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<ManagedObject>(entityName: "Automobile",
                                                      sortBy: [SortDescriptor(key: "year"), SortDescriptor(key: "price")])
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "year")
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["2019", "2021", "2023", "2024"])
            #expect(controller.sections?.first?.numberOfObjects == 3)
            let bmw = try #require(try context.fetch(FetchRequest<Automobile>(predicate: #Predicate { $0.make == "BMW" })).first)
            bmw.year = 2030
            try context.save()
            #expect(controller.sections?.map(\.name) == ["2019", "2021", "2023", "2024", "2030"])
            #expect(controller.fetchedObjects?.last === bmw)
        }
    }
}
