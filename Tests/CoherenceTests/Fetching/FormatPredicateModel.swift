import Coherence
import Foundation
import Testing

// The model and data the format predicate tests query: cars at dealerships,
// with accessories.

final class FormatCar: ManagedObject {
    @Attribute var name = ""
    @Attribute var doors = 4
    @Attribute var price = 0.0
    @Attribute var electric = false
    @Attribute var nickname: String?
    @Attribute var builtAt = Date(timeIntervalSinceReferenceDate: 0)
    @Relationship var dealership: Dealership?
    @Relationship(inverse: \Accessory.automobile, deleteRule: .cascade) var accessories: Set<Accessory>
}

final class Dealership: ManagedObject {
    @Attribute var name = ""
    @Attribute var city: String?
    @Relationship(inverse: \FormatCar.dealership) var automobiles: Set<FormatCar>
}

final class Accessory: ManagedObject {
    @Attribute var label = ""
    @Attribute var price = 0.0
    @Relationship var automobile: FormatCar?
}

/// The same cars in three places: saved in an SQLite store (queried in SQL),
/// inserted but not saved on an SQLite store (pending changes, evaluated in
/// memory), and saved in an in-memory store. Every query runs on all three
/// and must give the same cars.
@MainActor
struct Garage {
    let saved: ManagedObjectContext
    let pending: ManagedObjectContext
    let inMemory: ManagedObjectContext

    static let hostile = "'; DROP TABLE FormatCar; --"

    init() throws {
        saved = try Self.viewContext(.sqlite(TestFiles.newURL("Garage.sqlite")), save: true)
        pending = try Self.viewContext(.sqlite(TestFiles.newURL("Garage.sqlite")), save: false)
        inMemory = try Self.viewContext(.inMemory, save: true)
    }

    private static func viewContext(_ description: PersistentStoreDescription, save: Bool) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel(entities: [FormatCar.self, Dealership.self, Accessory.self])
        let container = PersistentContainer(name: "Garage", managedObjectModel: model)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.viewContext
        let dealers = [("Zuffenhausen", "Stuttgart"), ("Paris Motors", nil), ("Wolfsburg", "Wolfsburg")].map { name, city in
            let dealer = Dealership(context: context)
            dealer.name = name
            dealer.city = city
            return dealer
        }
        let cars: [(String, Int, Double, Bool, String?, Int, Int?, [(String, Double)])] = [
            ("Porsche 911", 2, 120_000.5, false, "Elfer", 2020, 0, [("spoiler", 500), ("mats", 80)]),
            ("porsche Taycan", 4, 90_000, true, nil, 2022, 0, [("charger", 900)]),
            ("Citroën DS", 4, 35_000, false, "Goddess", 1970, 1, []),
            ("Citroen C4", 4, 25_000, false, nil, 2019, nil, [("mats", 60), ("roof box", 400), ("spoiler", 300)]),
            ("Tesla Model 3", 4, 45_000, true, hostile, 2021, 1, [("charger", 1200)]),
            ("VW Käfer", 2, 5_000, false, "Beetle", 1960, 2, []),
            ("Ünïcode ?* car", 3, 1, false, "", 2000, nil, []),
        ]
        for (name, doors, price, electric, nickname, year, dealer, accessories) in cars {
            let car = FormatCar(context: context)
            car.name = name
            car.doors = doors
            car.price = price
            car.electric = electric
            car.nickname = nickname
            car.builtAt = Self.date(year)
            car.dealership = dealer.map { dealers[$0] }
            for (label, price) in accessories {
                let accessory = Accessory(context: context)
                accessory.label = label
                accessory.price = price
                accessory.automobile = car
            }
        }
        if save { try context.save() }
        return context
    }

    static func date(_ year: Int) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(year - 2001) * 365.25 * 86_400)
    }

    /// The names of the cars `predicate` selects, sorted; checks that the
    /// SQL fetch, the in-memory evaluation of the same saved rows, the
    /// pending (unsaved) objects, the in-memory store, `count(for:)` and
    /// `Predicate.evaluate` all agree.
    func names(_ predicate: Predicate<FormatCar>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let inSQL = try saved.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted()
        let inMemoryRequest = FetchRequest(predicate: predicate)
        inMemoryRequest.evaluatesPredicateInMemory = true
        #expect(try saved.fetch(inMemoryRequest).map(\.name).sorted() == inSQL, "evaluated in memory", sourceLocation: sourceLocation)
        #expect(try saved.count(for: FetchRequest(predicate: predicate)) == inSQL.count, "count", sourceLocation: sourceLocation)
        #expect(try pending.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted() == inSQL, "unsaved objects",
                sourceLocation: sourceLocation)
        #expect(try inMemory.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted() == inSQL, "in-memory store",
                sourceLocation: sourceLocation)
        let all = try pending.fetch(FetchRequest<FormatCar>())
        #expect(try all.filter { try predicate.evaluate($0) }.map(\.name).sorted() == inSQL, "Predicate.evaluate",
                sourceLocation: sourceLocation)
        return inSQL
    }

    /// `names` for a format string.
    func names(_ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try names(Predicate<FormatCar>(format: format, argumentArray: arguments), sourceLocation: sourceLocation)
    }
}
