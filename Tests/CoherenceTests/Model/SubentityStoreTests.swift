@testable import Coherence
import GRDB
import Foundation
import Testing

/// Objects of sub-entities in contexts and stores: a fetch of a parent
/// entity returns its sub-entities' objects too unless
/// `includesSubentities` is off (Core Data's `NSFetchRequest.includesSubentities`,
/// https://developer.apple.com/documentation/coredata/nsfetchrequest/includessubentities),
/// and every object keeps its concrete entity (`NSManagedObjectID.entity`,
/// https://developer.apple.com/documentation/coredata/nsmanagedobjectid/entity).
@Suite("Sub-entities: storing and fetching")
struct SubentityStoreTests {
    /// Three cars, one of them sporty, and a truck, saved.
    static func seeded(_ store: StoreKind) throws -> ManagedObjectContext {
        let context = try SubentityStack.context(store)
        try context.performAndWait { () throws in
            let depot = Depot(context: context)
            depot.city = "Lyon"
            for (name, year) in [("Clio", 2019), ("Zoe", 2021)] {
                let car = Car(context: context)
                car.name = name
                car.year = year
                car.depot = depot
            }
            let sport = SportCar(context: context)
            sport.name = "Alpine"
            sport.year = 2020
            sport.seats = 2
            sport.topSpeed = 250
            sport.depot = depot
            let truck = Truck(context: context)
            truck.name = "Actros"
            truck.year = 2018
            truck.load = 18
            truck.depot = depot
            try context.save()
        }
        return context
    }

    @Test(arguments: StoreKind.allCases) func aFetchOfTheParentReturnsSubentities(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait { () throws in
            context.reset()
            let cars = try context.fetch(FetchRequest<Car>(sortBy: [SortDescriptor(\.name)]))
            #expect(cars.map(\.name) == ["Alpine", "Clio", "Zoe"])
            #expect(cars.map { $0 is SportCar } == [true, false, false])
            #expect((cars[0] as? SportCar)?.topSpeed == 250)
            #expect(cars[0].objectID.entityName == "SportCar", "the ID names the concrete entity")
            #expect(cars[0].entity.name == "SportCar")
            let vehicles = try context.fetch(FetchRequest<RoadVehicle>(sortBy: [SortDescriptor(\.year)]))
            #expect(vehicles.map(\.name) == ["Actros", "Clio", "Alpine", "Zoe"])
            #expect(try context.count(for: FetchRequest<RoadVehicle>()) == 4)
            #expect(try context.count(for: FetchRequest<Car>()) == 3)
            #expect(try context.fetch(FetchRequest<SportCar>()).map(\.name) == ["Alpine"])
            #expect(try context.fetchObjectIDs(FetchRequest<Car>(sortBy: [SortDescriptor(\.name)])) == cars.map(\.objectID))
        }
    }

    @Test(arguments: StoreKind.allCases) func includesSubentitiesOffFetchesTheEntityItself(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait { () throws in
            context.reset()
            let request = FetchRequest<Car>(sortBy: [SortDescriptor(\.name)])
            request.includesSubentities = false
            #expect(try context.fetch(request).map(\.name) == ["Clio", "Zoe"])
            #expect(try context.count(for: request) == 2)
            let abstract = FetchRequest<RoadVehicle>()
            abstract.includesSubentities = false
            #expect(try context.fetch(abstract).isEmpty, "an abstract entity has no objects of its own")
            // Unsaved objects follow the same rule.
            let sport = SportCar(context: context)
            sport.name = "Berlinette"
            #expect(try context.fetch(request).map(\.name) == ["Clio", "Zoe"])
            #expect(try context.count(for: FetchRequest<Car>()) == 4)
        }
    }

    /// A predicate on the parent's attributes matches objects of every
    /// sub-entity, in the store and in memory; one on a sub-entity's own
    /// attribute only its objects.
    @Test(arguments: StoreKind.allCases) func predicatesOnTheParentsAttributes(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait { () throws in
            context.reset()
            let recent = FetchRequest<RoadVehicle>(predicate: #Predicate { $0.year >= 2020 }, sortBy: [SortDescriptor(\.name)])
            #expect(try context.fetch(recent).map(\.name) == ["Alpine", "Zoe"])
            #expect(try context.count(for: recent) == 2)
            let twoSeats = FetchRequest<Car>(predicate: #Predicate { $0.seats == 2 })
            #expect(try context.fetch(twoSeats).map(\.name) == ["Alpine"])
            let fast = FetchRequest<SportCar>(predicate: #Predicate { $0.topSpeed > 200 && $0.name == "Alpine" })
            #expect(try context.fetch(fast).count == 1)
            // An unsaved change is evaluated in memory.
            let truck = try #require(try context.fetch(FetchRequest<Truck>()).first)
            truck.year = 2024
            #expect(try context.fetch(recent).map(\.name) == ["Actros", "Alpine", "Zoe"])
            let windowed = FetchRequest<RoadVehicle>(sortBy: [SortDescriptor(\.name)])
            windowed.fetchLimit = 2
            windowed.fetchOffset = 1
            #expect(try context.fetch(windowed).map(\.name) == ["Alpine", "Clio"])
        }
    }

    /// Dictionary fetches, grouping and `fetchBatchSize` on a parent cover
    /// its sub-entities (Core Data's `fetchBatchSize`,
    /// https://developer.apple.com/documentation/coredata/nsfetchrequest/fetchbatchsize).
    @Test(arguments: StoreKind.allCases) func dictionaryAndBatchedFetchesOfTheParent(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait { () throws in
            context.reset()
            let request = FetchRequest<Car>(sortBy: [SortDescriptor(\.name)])
            let rows = try context.fetchDictionaries(request, propertiesToFetch: ["name", "seats"])
            #expect(rows.map { $0["name"] as? String } == ["Alpine", "Clio", "Zoe"])
            #expect(rows.map { $0["seats"] as? Int } == [2, 4, 4])
            let count = ExpressionDescription(name: "count", expression: .count("name"), resultType: .integer64)
            let perSeats = try context.fetchDictionaries(FetchRequest<Car>(sortBy: [SortDescriptor(\.seats)]),
                                                         propertiesToFetch: ["seats", .expression(count)], propertiesToGroupBy: ["seats"])
            #expect(perSeats.map { $0["count"] as? Int } == [1, 2])
            let batched = FetchRequest<RoadVehicle>(sortBy: [SortDescriptor(\.name)])
            batched.fetchBatchSize = 2
            let vehicles = try context.fetch(batched)
            #expect(vehicles.map { String(describing: type(of: $0)) } == ["Truck", "SportCar", "Car", "Car"])
            #expect(vehicles.map(\.name) == ["Actros", "Alpine", "Clio", "Zoe"])
        }
    }

    /// Primary keys come from one counter per hierarchy: no two objects of
    /// a hierarchy share a key, so IDs never collide.
    @Test(arguments: StoreKind.allCases) func objectIDsAreDistinctAcrossTheHierarchy(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait { () throws in
            let vehicles = try context.fetch(FetchRequest<RoadVehicle>())
            #expect(Set(vehicles.compactMap(\.objectID.primaryKey)).count == 4)
            let sport = try #require(vehicles.first { $0 is SportCar })
            let id = sport.objectID
            context.reset()
            let again = context.object(with: id)
            #expect(again is SportCar)
            #expect((again as? SportCar)?.topSpeed == 250)
            #expect(try context.existingObject(with: id).objectID.entityName == "SportCar")
        }
    }

    /// Updates and deletions of sub-entity objects reach the store.
    @Test(arguments: StoreKind.allCases) func updatingAndDeletingSubentityObjects(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait { () throws in
            let sport = try #require(try context.fetch(FetchRequest<SportCar>()).first)
            sport.topSpeed = 260
            sport.name = "A110"
            try context.save()
            context.reset()
            let again = try #require(try context.fetch(FetchRequest<Car>(predicate: #Predicate { $0.name == "A110" })).first as? SportCar)
            #expect(again.topSpeed == 260)
            context.delete(again)
            try context.save()
            context.reset()
            #expect(try context.count(for: FetchRequest<RoadVehicle>()) == 3)
            #expect(try context.fetch(FetchRequest<SportCar>()).isEmpty)
        }
    }

    /// The SQLite layout is Core Data's: one table per hierarchy, named
    /// after its root, with the entity column and every entity's columns;
    /// an index the sub-entities inherit is created once.
    @Test func oneTablePerHierarchy() throws {
        let context = try Self.seeded(.sqlite)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        let (tables, columns, indexes) = try store.database.read { db in
            (try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name"),
             try db.columns(in: "RoadVehicle").map(\.name),
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'ZFETCHINDEX *'"))
        }
        #expect(tables == ["Depot", "Driver", "RoadVehicle", "Sponsor"])
        #expect(columns == ["Z_PK", "Z_OPT", "Z_ENT", "name", "year", "depot", "seats", "topSpeed", "sponsor", "load"])
        #expect(indexes == ["ZFETCHINDEX RoadVehicle(name)"])
    }
}
