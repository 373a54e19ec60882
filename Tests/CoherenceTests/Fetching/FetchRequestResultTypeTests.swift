import Coherence
import Foundation
import Testing

// Fetch requests for results other than objects, written as Core Data code
// writes them: `NSFetchRequest<NSDictionary>(entityName:)` with
// `resultType = .dictionaryResultType`, `NSFetchRequest<NSManagedObjectID>`,
// `NSFetchRequest<NSNumber>` with `.countResultType`, and the untyped
// `NSFetchRequest<NSFetchRequestResult>` whose results are cast.
// https://developer.apple.com/documentation/coredata/nsfetchrequest/resulttype
// https://developer.apple.com/documentation/coredata/nsfetchrequestresulttype
// https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestofetch
// https://developer.apple.com/documentation/coredata/nsfetchrequest/affectedstores

@Suite("Fetch requests: Core Data's result types")
struct FetchRequestResultTypeTests {
    /// Distinct values of one attribute, with a format predicate and a sort
    /// by name, and groups with a computed column and a having predicate.
    @Test(arguments: StoreKind.allCases) func dictionaryResults(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait {
            let request = FetchRequest<NSDictionary>(entityName: "Automobile")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["make"]
            request.returnsDistinctResults = true
            request.predicate = Predicate(format: "isElectric == YES")
            request.sortDescriptors = [SortDescriptor(key: "make", ascending: true)]
            let makes = try context.fetch(request).map { $0["make"] as! String }
            #expect(makes == ["BMW", "Tesla", "Volvo"])

            let total = ExpressionDescription(name: "total", expression: .sum("price"), resultType: .double)
            let groups = FetchRequest<NSDictionary>(entityName: "Automobile")
            groups.resultType = .dictionaryResultType
            groups.propertiesToFetch = ["make", .expression(total)]
            groups.propertiesToGroupBy = ["make"]
            groups.havingPredicate = .compare("total", .greaterThan, 30_000.0)
            groups.sortDescriptors = [SortDescriptor(key: "make", ascending: true)]
            let rows = try context.fetch(groups)
            #expect(rows.map { $0["make"] as! String } == ["Tesla", "Volvo"])
            #expect(rows.map { $0["total"] as! Double } == [90_000, 66_000])

            let everything = FetchRequest<NSDictionary>(entityName: "Automobile")
            everything.resultType = .dictionaryResultType
            everything.predicate = Predicate(format: "model == %@", "XC40")
            let row = try #require(try context.fetch(everything).first)
            #expect(row["year"] as? Int == 2019)
            #expect(row["dealer"] is ManagedObjectID, "a to-one relationship is its destination's ID, as in Core Data")
        }
    }

    /// IDs and counts, each in the request's own result type.
    @Test(arguments: StoreKind.allCases) func objectIDAndCountResults(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Automobile")
            request.resultType = .managedObjectIDResultType
            request.predicate = Predicate(format: "year == 2019")
            request.sortDescriptors = [SortDescriptor(key: "price", ascending: true)]
            let ids = try context.fetch(request)
            let typed = FetchRequest<Automobile>(predicate: #Predicate { $0.year == 2019 }, sortBy: [SortDescriptor(\.price)])
            #expect(ids == (try context.fetchObjectIDs(typed)))
            #expect(ids.count == 3)

            let count = FetchRequest<NSNumber>(entityName: "Automobile")
            count.resultType = .countResultType
            count.predicate = Predicate(format: "make BEGINSWITH[c] 'f'")
            #expect(try context.fetch(count).map(\.intValue) == [2])
        }
    }

    /// Core Data's untyped request: objects cast from the results, counted
    /// with `count(for:)`, the entity set through `entity`, and handed to a
    /// batch delete.
    @Test(arguments: StoreKind.allCases) func untypedRequests(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait {
            let request = FetchRequest<FetchRequestResult>(entityName: "Automobile")
            request.predicate = Predicate(format: "price > %d", 30_000)
            request.sortDescriptors = [SortDescriptor(key: "price", ascending: false)]
            let cars = try context.fetch(request) as! [Automobile]
            #expect(cars.map(\.model) == ["Model Y", "Model 3", "EX30"])
            #expect(try context.count(for: request) == 3)
            request.fetchLimit = 2
            #expect(try context.fetch(request).count == 2)

            let byEntity = FetchRequest<FetchRequestResult>()
            byEntity.entity = Automobile.entity()
            byEntity.resultType = .managedObjectIDResultType
            #expect((try context.fetch(byEntity) as! [ManagedObjectID]).count == 7)

            let cheap = FetchRequest<FetchRequestResult>(entityName: "Automobile")
            cheap.predicate = CompoundPredicate.and([Predicate(format: "price < %d", 20_000), Predicate(value: true)])
            let delete = BatchDeleteRequest(fetchRequest: cheap)
            delete.resultType = .resultTypeCount
            #expect((try context.execute(delete) as! BatchDeleteResult).result as? Int == 2)
            context.reset()
            #expect(try context.count(for: FetchRequest<Automobile>()) == 5)
        }
    }

    /// A request that names no entity, or whose predicate cannot be read on
    /// the entity's objects, throws a typed error.
    @Test func requestsThatCannotRunThrow() throws {
        let context = try RunTimeQueryStack.seeded(.inMemory)
        context.performAndWait {
            let unnamed = FetchRequest<NSDictionary>()
            unnamed.resultType = .dictionaryResultType
            #expect(performing: { try context.fetch(unnamed) }, throws: { error in
                if case .noEntity("NSDictionary")? = error as? FetchError { true } else { false }
            })
            let typedPredicate = FetchRequest<NSNumber>(entityName: "Automobile")
            typedPredicate.resultType = .countResultType
            typedPredicate.predicate = #Predicate<NSNumber> { $0.intValue > 1 }
            #expect(performing: { try context.fetch(typedPredicate) }, throws: { error in
                if case .predicateNotOnObjects("NSNumber")? = error as? FetchError { true } else { false }
            })
            let typedSort = FetchRequest<FetchRequestResult>(entityName: "Automobile")
            typedSort.sortDescriptors = [SortDescriptor(key: "colour", ascending: true)]
            #expect(performing: { try context.fetch(typedSort) }, throws: { error in
                if case .unknownSortKey("Automobile", _)? = error as? FetchError { true } else { false }
            })
        }
    }

    /// A result type the request's `Result` cannot hold stops the program,
    /// naming both, where Core Data's cast of the results fails.
    @Test func aResultTypeTheRequestCannotHoldTraps() async {
        let typed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try RunTimeQueryStack.seeded(.inMemory)
            try context.performAndWait {
                let request = FetchRequest<Automobile>()
                request.resultType = .countResultType
                _ = try context.fetch(request)
            }
        }
        #expect(typed.standardError.contains("a FetchRequest<Automobile> returns Automobile objects, but its resultType is countResultType"))
        let dictionaries = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try RunTimeQueryStack.seeded(.inMemory)
            try context.performAndWait {
                let request = FetchRequest<NSDictionary>(entityName: "Automobile")
                request.resultType = .countResultType
                _ = try context.fetch(request)
            }
        }
        #expect(dictionaries.standardError.contains("which a FetchRequest<NSDictionary> cannot hold"))
    }

    /// `affectedStores` limits a fetch to some of the coordinator's stores.
    @Test func affectedStoresLimitTheFetch() throws {
        let model = try ManagedObjectModel(entities: [Automobile.self, CarDealer.self])
        var urls: [URL] = []
        for makes in [["Tesla", "Volvo"], ["Fiat", "BMW", "Audi"]] {
            let url = TestFiles.newURL("cars.sqlite")
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(.sqlite(url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            try context.performAndWait {
                for make in makes { Automobile(context: context).make = make }
                try context.save()
            }
            urls.append(url)
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let first = try coordinator.addPersistentStore(.sqlite(urls[0]))
        let second = try coordinator.addPersistentStore(.sqlite(urls[1]))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait { () throws in
            Automobile(context: context).make = "Unsaved"
            let request = Automobile.fetchRequest()
            request.sortDescriptors = [SortDescriptor(\.make)]
            #expect(try context.fetch(request).map(\.make) == ["Audi", "BMW", "Fiat", "Tesla", "Unsaved", "Volvo"])
            request.affectedStores = [second]
            #expect(try context.fetch(request).map(\.make) == ["Audi", "BMW", "Fiat"])
            #expect(try context.count(for: request) == 3)
            request.fetchOffset = 1
            request.fetchLimit = 1
            #expect(try context.fetch(request).map(\.make) == ["BMW"])
            request.fetchOffset = 0
            request.fetchLimit = 0
            request.affectedStores = [first]
            #expect(try context.fetchObjectIDs(request).count == 3, "the first store's two cars and the unsaved one, which Core Data assigns to the first store")
        }
    }
}

/// Calls that generic code and Core Data's untyped shapes make.
@Suite("Fetch requests: generic and untyped call shapes")
struct FetchRequestGenericCallTests {
    /// A fetch in code generic over `FetchRequestResult`, for an entity's
    /// class: typed predicates and by-name sort descriptors work.
    private func fetch<T: FetchRequestResult>(_ type: T.Type, entity: String, in context: ManagedObjectContext,
                                                predicate: Predicate<T>?) throws -> ([T], Int) {
        let request = FetchRequest<T>(entityName: entity)
        request.predicate = predicate
        request.sortDescriptors = [SortDescriptor<T>(key: "price", ascending: true)]
        return (try context.fetch(request), try context.count(for: request))
    }

    @Test func genericCodeOverFetchRequestResult() throws {
        let context = try RunTimeQueryStack.seeded(.sqlite)
        try context.performAndWait {
            let (cars, count) = try fetch(Automobile.self, entity: "Automobile", in: context, predicate: #Predicate { $0.year == 2019 })
            #expect(cars.map(\.make) == ["Fiat", "BMW", "Volvo"])
            #expect(count == 3)
            // The same by-name descriptor sorts in a fetched results controller.
            let request = FetchRequest<Automobile>()
            request.sortDescriptors = [Self.byName(Automobile.self)]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.first?.make == "Fiat")
        }
    }

    private static func byName<T: FetchRequestResult>(_: T.Type) -> SortDescriptor<T> {
        SortDescriptor<T>(key: "price", ascending: true)
    }

    /// `fetchLimit = Int.max` with an offset is "no limit" after the offset,
    /// where the window is made in memory (it overflowed before).
    @Test func aWindowNoLimitCanOverflow() throws {
        let context = try RunTimeQueryStack.seeded(.inMemory)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>(sortBy: [SortDescriptor(\.price)])
            request.fetchOffset = 2
            request.fetchLimit = .max
            #expect(try context.fetch(request).count == 5)
            request.fetchOffset = -3
            #expect(try context.fetch(request).count == 7, "a negative offset is no offset")
        }
    }

    /// Core Data's `let request: NSFetchRequest<NSFetchRequestResult> = Car.fetchRequest()`.
    @Test func anUntypedRequestFromTheClass() throws {
        let context = try RunTimeQueryStack.seeded(.inMemory)
        try context.performAndWait { () throws in
            let request: FetchRequest<FetchRequestResult> = Automobile.fetchRequest()
            #expect(request.entityName == "Automobile")
            request.predicate = Predicate(format: "isElectric == NO")
            #expect((try context.fetch(request) as! [Automobile]).count == 3)
            let typed = Automobile.fetchRequest()
            #expect(type(of: typed) == FetchRequest<Automobile>.self, "without a type to match, the typed request")
        }
    }

    /// A typed request whose resultType asks for dictionaries still works
    /// with the typed dictionary fetch, on every store.
    @Test(arguments: StoreKind.allCases) func typedDictionaryFetchesIgnoreTheResultType(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait {
            let request = FetchRequest<Automobile>(sortBy: [SortDescriptor(\.price)])
            request.resultType = .dictionaryResultType
            #expect(try context.fetchDictionaries(request, propertiesToFetch: ["make"]).first?["make"] as? String == "Fiat")
            let unsorted = FetchRequest<Automobile>()
            unsorted.resultType = .countResultType
            let grouped = try context.fetchDictionaries(unsorted, propertiesToFetch: ["make"], propertiesToGroupBy: ["make"])
            #expect(grouped.count == 5)
        }
    }
}
