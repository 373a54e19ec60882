import Coherence
import Foundation
import Testing

/// Dictionary fetches with grouping and aggregates, as Core Data runs them
/// with `resultType = .dictionaryResultType`:
/// - `propertiesToGroupBy`: "the SELECT values must be literals,
///   aggregates, or columns specified in propertiesToGroupBy. Aggregates
///   will operate on the groups specified in propertiesToGroupBy rather
///   than the whole table."
///   (https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestogroupby)
/// - `havingPredicate`: filters the groups of a query with a GROUP BY
///   (https://developer.apple.com/documentation/coredata/nsfetchrequest/havingpredicate)
/// - `returnsDistinctResults`: whether the fetch request "returns only
///   distinct values for the fields specified by propertiesToFetch"
///   (https://developer.apple.com/documentation/coredata/nsfetchrequest/returnsdistinctresults)
/// - `NSExpressionDescription`: a name, an expression and a result type
///   (https://developer.apple.com/documentation/coredata/nsexpressiondescription)
/// - Dictionary results reflect the store, not the context's unsaved
///   changes (`includesPendingChanges`, Special Considerations:
///   https://developer.apple.com/documentation/coredata/nsfetchrequest/includespendingchanges;
///   see also https://developer.apple.com/documentation/coredata/nsfetchrequestresulttype/dictionaryresulttype)
///
/// Each test runs on the SQLite store (one SQL query) and on the in-memory
/// store (evaluated by the context), and the results must be identical.
@Suite("Grouping and aggregates in dictionary fetches")
struct AggregateFetchTests {
    static func expression(_ name: String, _ expression: AggregateExpression, _ type: AttributeType = .double) -> PropertyToFetch {
        .expression(ExpressionDescription(name: name, expression: expression, resultType: type))
    }

    static let perMake: [PropertyToFetch] = [
        "make",
        expression("count", .count("model"), .integer64),
        expression("total", .sum("price")),
        expression("first", .min("year"), .integer64),
        expression("last", .max("year"), .integer64),
        expression("mean", .average("price")),
    ]

    /// The rows keyed by their "make".
    private func byMake(_ rows: [[String: Any]]) -> [String: [String: Any]] {
        Dictionary(uniqueKeysWithValues: rows.map { ($0["make"] as! String, $0) })
    }

    @Test(arguments: StoreKind.allCases) func groupByWithAggregates(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let rows = try context.fetchDictionaries(FetchRequest<Automobile>(), propertiesToFetch: Self.perMake, propertiesToGroupBy: ["make"])
            let groups = byMake(rows)
            #expect(groups.count == 5)
            #expect(groups["Tesla"]?["count"] as? Int == 2)
            #expect(groups["Tesla"]?["total"] as? Double == 90_000)
            #expect(groups["Tesla"]?["first"] as? Int == 2021)
            #expect(groups["Tesla"]?["last"] as? Int == 2023)
            #expect(groups["Tesla"]?["mean"] as? Double == 45_000)
            #expect(groups["Volvo"]?["total"] as? Double == 66_000)
            // Fiat's one car has no model: count leaves it out.
            #expect(groups["Fiat"]?["count"] as? Int == 0)
            #expect(groups["fiat"]?["count"] as? Int == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func havingPredicate(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>(sortBy: [SortDescriptor(\.make)])
            let many = try context.fetchDictionaries(request, propertiesToFetch: Self.perMake, propertiesToGroupBy: ["make"],
                                                     havingPredicate: .compare("count", .greaterThan, 1))
            #expect(many.map { $0["make"] as? String } == ["Tesla", "Volvo"])
            let combined: HavingPredicate = .or([.and([.compare("total", .greaterThanOrEqual, 20_000.0), .not(.compare("make", .equal, "Tesla"))]),
                                                 .compare("first", .equal, 2021)])
            let rows = try context.fetchDictionaries(request, propertiesToFetch: Self.perMake, propertiesToGroupBy: ["make"],
                                                     havingPredicate: combined)
            #expect(Set(rows.map { $0["make"] as! String }) == ["BMW", "Volvo", "Tesla", "fiat"])
            // Values are bound, never SQL text.
            let hostile = try context.fetchDictionaries(request, propertiesToFetch: Self.perMake, propertiesToGroupBy: ["make"],
                                                        havingPredicate: .compare("make", .equal, "Volvo') OR (1=1"))
            #expect(hostile.isEmpty)
        }
    }

    /// Aggregates without grouping: one row over every matching object,
    /// even when none matches.
    @Test(arguments: StoreKind.allCases) func aggregatesOverAllRows(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let columns = [Self.expression("n", .count("make"), .integer64), Self.expression("total", .sum("price")),
                           Self.expression("cheapest", .min("make"), .string), Self.expression("years", .sum("year"), .integer64)]
            let all = try context.fetchDictionaries(FetchRequest<Automobile>(), propertiesToFetch: columns)
            #expect(all.count == 1)
            #expect(all.first?["n"] as? Int == 7)
            #expect(all.first?["total"] as? Double == 208_000)
            #expect(all.first?["cheapest"] as? String == "BMW")
            #expect(all.first?["years"] as? Int == 14_146)
            let electric = try context.fetchDictionaries(FetchRequest<Automobile>(predicate: #Predicate { $0.isElectric }), propertiesToFetch: columns)
            #expect(electric.first?["n"] as? Int == 4)
            let none = try context.fetchDictionaries(FetchRequest<Automobile>(predicate: #Predicate { $0.year > 3000 }), propertiesToFetch: columns)
            #expect(none.count == 1)
            #expect(none.first?["n"] as? Int == 0)
            #expect(none.first?["total"] == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func distinctResults(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>(sortBy: [SortDescriptor(\.year, order: .reverse)])
            let years = try context.fetchDictionaries(request, propertiesToFetch: ["year"], returnsDistinctResults: true)
            #expect(years.map { $0["year"] as? Int } == [2024, 2023, 2021, 2019])
            let pairs = try context.fetchDictionaries(FetchRequest<Automobile>(), propertiesToFetch: ["make", "isElectric"], returnsDistinctResults: true)
            #expect(pairs.count == 6) // Tesla/true, Volvo/false, Volvo/true, Fiat, BMW, fiat
            let all = try context.fetchDictionaries(request, propertiesToFetch: ["year"], returnsDistinctResults: false)
            #expect(all.count == 7)
        }
    }

    @Test(arguments: StoreKind.allCases) func groupByToOneRelationship(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let dealers = try context.fetch(FetchRequest<CarDealer>(sortBy: [SortDescriptor(\.name)]))
            let rows = try context.fetchDictionaries(FetchRequest<Automobile>(),
                                                     propertiesToFetch: ["dealer", Self.expression("cars", .count("dealer"), .integer64),
                                                                         Self.expression("value", .sum("price"))],
                                                     propertiesToGroupBy: ["dealer"])
            let byDealer = Dictionary(uniqueKeysWithValues: rows.map { ($0["dealer"] as! ManagedObjectID, $0) })
            #expect(byDealer[dealers[0].objectID]?["cars"] as? Int == 4)
            #expect(byDealer[dealers[0].objectID]?["value"] as? Double == 141_000)
            #expect(byDealer[dealers[1].objectID]?["cars"] as? Int == 3)
        }
    }

    @Test(arguments: StoreKind.allCases) func unsavedChangesAreNotIncluded(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let extra = Automobile(context: context)
            extra.make = "Tesla"
            extra.price = 1
            let tesla = try #require(try context.fetch(FetchRequest<Automobile>(predicate: #Predicate { $0.make == "Tesla" })).first)
            tesla.price += 1_000
            let rows = try context.fetchDictionaries(FetchRequest<Automobile>(), propertiesToFetch: Self.perMake, propertiesToGroupBy: ["make"])
            #expect(byMake(rows)["Tesla"]?["total"] as? Double == 90_000)
            #expect(byMake(rows)["Tesla"]?["count"] as? Int == 2)
        }
    }

    /// Sorting, limit and offset apply to the groups; the stores agree on
    /// every request, order included.
    @Test func storesAgree() throws {
        let sqlite = try RunTimeQueryStack.seeded(.sqlite), memory = try RunTimeQueryStack.seeded(.inMemory)
        let window = FetchRequest<Automobile>(sortBy: [SortDescriptor(key: "make", ascending: false)])
        window.fetchLimit = 3
        window.fetchOffset = 1
        let requests: [(FetchRequest<Automobile>, [PropertyToFetch], [String], HavingPredicate?, Bool)] = [
            (window, Self.perMake, ["make"], nil, false),
            (FetchRequest(predicate: #Predicate { $0.price > 14_000 }, sortBy: [SortDescriptor(\.year)]),
             ["year", Self.expression("n", .count("make"), .integer64), Self.expression("dearest", .max("price"))], ["year"],
             .not(.compare("n", .equal, 1)), false),
            (FetchRequest(sortBy: [SortDescriptor(\.make), SortDescriptor(\.year)]), ["make", "year"], [], nil, true),
            (FetchRequest(sortBy: [SortDescriptor(\.model)]), ["model"], ["model"], nil, false),
        ]
        for (index, (request, properties, groupBy, having, distinct)) in requests.enumerated() {
            let a = try sqlite.performAndWait {
                try sqlite.fetchDictionaries(request, propertiesToFetch: properties, propertiesToGroupBy: groupBy,
                                             havingPredicate: having, returnsDistinctResults: distinct)
            }
            let b = try memory.performAndWait {
                try memory.fetchDictionaries(request, propertiesToFetch: properties, propertiesToGroupBy: groupBy,
                                             havingPredicate: having, returnsDistinctResults: distinct)
            }
            #expect(a.map { "\($0.sorted { $0.key < $1.key })" } == b.map { "\($0.sorted { $0.key < $1.key })" }, "request \(index)")
            #expect(!a.isEmpty, "request \(index)")
        }
    }

    /// In-memory evaluation of the predicate gives the SQLite store's rows.
    @Test func predicateEvaluatedInMemory() throws {
        let context = try RunTimeQueryStack.seeded(.sqlite)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>(predicate: #Predicate { $0.make.count == 5 })
            request.evaluatesPredicateInMemory = true
            let rows = try context.fetchDictionaries(request, propertiesToFetch: Self.perMake, propertiesToGroupBy: ["make"])
            #expect(Set(rows.map { $0["make"] as! String }) == ["Tesla", "Volvo"])
        }
    }

    @Test(arguments: StoreKind.allCases) func invalidRequestsThrow(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<Automobile>()
            #expect(throws: ContextError.self) {
                try context.fetchDictionaries(request, propertiesToFetch: ["colour"], propertiesToGroupBy: [])
            }
            #expect(throws: ContextError.self) {
                try context.fetchDictionaries(request, propertiesToFetch: [Self.expression("x", .sum("make"))])
            }
            #expect(throws: ContextError.self) { // "year" is neither grouped nor aggregated
                try context.fetchDictionaries(request, propertiesToFetch: ["make", "year"], propertiesToGroupBy: ["make"])
            }
            #expect(throws: ContextError.self) {
                try context.fetchDictionaries(request, propertiesToFetch: ["make"], propertiesToGroupBy: ["make"],
                                              havingPredicate: .compare("total", .greaterThan, 1))
            }
            #expect(throws: ContextError.self) {
                try context.fetchDictionaries(request, propertiesToFetch: ["make", "year"], propertiesToGroupBy: ["cars"])
            }
        }
    }

    /// Random inventories (missing models, accents composed and decomposed,
    /// repeated values), random groupings, aggregates, having conditions
    /// and distinct fetches: the SQLite store's SQL and the context's
    /// evaluation give the same rows.
    @Test(arguments: 0..<12) func storesAgreeOnRandomData(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let makes = ["Tesla", "Volvo", "Fiat", "fiat", "Škoda", "S\u{30C}koda", "é", "e\u{301}", ""]
        let models: [String?] = [nil, "A", "B", "a", "Z 1", "é"]
        let inventory = (0..<random.next(below: 40)).map { _ in
            (makes[random.next(below: makes.count)], models[random.next(below: models.count)], 2000 + random.next(below: 25),
             Double(random.next(below: 50) * 1_000), random.next(below: 2) == 0)
        }
        let sqlite = try RunTimeQueryStack.seeded(.sqlite, inventory: inventory)
        let memory = try RunTimeQueryStack.seeded(.inMemory, inventory: inventory)
        let groupable = ["make", "model", "year", "isElectric", "dealer"]
        for _ in 0..<8 {
            let groupBy = groupable.filter { _ in random.next(below: 3) == 0 }
            let aggregates: [(String, AggregateExpression, AttributeType)] = [
                ("n", .count(["make", "model", "dealer"][random.next(below: 3)]), .integer64),
                ("total", .sum(["price", "year"][random.next(below: 2)]), .double),
                ("low", .min(["make", "model", "year", "price"][random.next(below: 4)]), .string),
                ("high", .max(["make", "model", "year", "price"][random.next(below: 4)]), .string),
                ("mean", .average("price"), .double),
            ].filter { _ in random.next(below: 2) == 0 }
            let properties: [PropertyToFetch] = groupBy.map { .property($0) } + aggregates.map { Self.expression($0.0, $0.1, $0.2) }
            guard !properties.isEmpty else { continue }
            var having: HavingPredicate?
            if let first = aggregates.first, random.next(below: 2) == 0 {
                let threshold = first.0 == "n" ? StoreValue.integer(Int64(random.next(below: 4))) : .double(Double(random.next(below: 60_000)))
                having = first.0 == "low" || first.0 == "high" ? .compare(first.0, .greaterThan, "F")
                    : .or([.comparison(first.0, .greaterThan, threshold), .not(.comparison(first.0, .lessThan, threshold))])
            }
            let distinct = groupBy.isEmpty && aggregates.isEmpty ? true : random.next(below: 2) == 0
            let predicate: Predicate<Automobile>? = random.next(below: 2) == 0 ? #Predicate { $0.year > 2010 } : nil
            let request = FetchRequest<Automobile>(predicate: predicate)
            let a = try sqlite.performAndWait {
                try sqlite.fetchDictionaries(request, propertiesToFetch: properties, propertiesToGroupBy: groupBy,
                                             havingPredicate: having, returnsDistinctResults: distinct)
            }
            let b = try memory.performAndWait {
                try memory.fetchDictionaries(request, propertiesToFetch: properties, propertiesToGroupBy: groupBy,
                                             havingPredicate: having, returnsDistinctResults: distinct)
            }
            #expect(Self.normalized(a, dealersOf: sqlite) == Self.normalized(b, dealersOf: memory),
                    "seed \(seed): \(properties) by \(groupBy) having \(String(describing: having))")
        }
    }

    /// Rows as sorted text, dealers by name (their IDs differ between stores).
    private static func normalized(_ rows: [[String: Any]], dealersOf context: ManagedObjectContext) -> [String] {
        context.performAndWait {
            rows.map { row in
                row.sorted { $0.key < $1.key }.map { key, value in
                    if let id = value as? ManagedObjectID { return "\(key)=\((context.object(with: id) as! CarDealer).name)" }
                    return "\(key)=\(value)"
                }.joined(separator: ",")
            }.sorted()
        }
    }
}

/// A small seeded generator, so that a failure can be replayed.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
