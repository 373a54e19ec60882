import Coherence
import Foundation
import Testing

/// Relationships whose destination is a parent entity hold objects of its
/// sub-entities, as Core Data's do (a sub-entity's objects are objects of
/// its parent entity,
/// https://developer.apple.com/documentation/coredata/nsentitydescription/subentities);
/// inverses, delete rules (https://developer.apple.com/documentation/coredata/nsdeleterule),
/// prefetching and derived values treat them as the parent's objects.
@Suite("Sub-entities: relationships")
struct SubentityRelationshipTests {
    @Test(arguments: StoreKind.allCases) func relationshipsToTheParentHoldSubentityObjects(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            context.reset()
            let depot = try #require(try context.fetch(FetchRequest<Depot>()).first)
            #expect(depot.vehicles.count == 4)
            #expect(Set(depot.vehicles.map { String(describing: type(of: $0)) }) == ["Car", "SportCar", "Truck"])
            let sport = try #require(depot.vehicles.first { $0 is SportCar } as? SportCar)
            #expect(sport.depot === depot, "the inverse, inherited from RoadVehicle")
            #expect(depot.vehicleCount == 4, "a derived count over a to-many of the parent counts sub-entities")
            // Many-to-many to Car, with a SportCar, and a sub-entity's own relationship.
            let driver = Driver(context: context)
            driver.name = "Ana"
            let clio = try #require(depot.vehicles.first { $0.name == "Clio" } as? Car)
            driver.cars = [clio, sport]
            let sponsor = Sponsor(context: context)
            sponsor.name = "Acme"
            sport.sponsor = sponsor
            #expect(sport.drivers == [driver], "inverse upkeep on a sub-entity object")
            #expect(sponsor.sportCars == [sport])
            try context.save()
            context.reset()
            let ana = try #require(try context.fetch(FetchRequest<Driver>()).first)
            #expect(Set(ana.cars.map(\.name)) == ["Clio", "Alpine"])
            let alpine = try #require(ana.cars.first { $0 is SportCar } as? SportCar)
            #expect(alpine.drivers.map(\.name) == ["Ana"])
            #expect(alpine.sponsor?.name == "Acme")
            #expect(alpine.depot?.city == "Lyon", "a to-one to a hierarchy-free entity from a sub-entity")
            let acme = try #require(try context.fetch(FetchRequest<Sponsor>()).first)
            #expect(acme.sportCars.map(\.name) == ["Alpine"])
        }
    }

    /// A to-one relationship whose destination has sub-entities reads back
    /// an object of the concrete entity.
    @Test(arguments: StoreKind.allCases) func toOneToAParentReadsTheConcreteEntity(store: StoreKind) throws {
        let context = try SubentityStack.context(store)
        try context.performAndWait { () throws in
            let depot = Depot(context: context)
            let sport = SportCar(context: context)
            sport.name = "Alpine"
            let owner = Driver(context: context)
            owner.cars = [sport]
            depot.vehicles = [sport]
            try context.save()
            let id = sport.objectID
            context.reset()
            let driver = try #require(try context.fetch(FetchRequest<Driver>()).first)
            let car = try #require(driver.cars.first)
            #expect(car.objectID == id)
            #expect(car is SportCar)
            // Predicates through relationships to a hierarchy.
            let inLyon = FetchRequest<RoadVehicle>(predicate: #Predicate { $0.depot != nil })
            #expect(try context.fetch(inLyon).map(\.name) == ["Alpine"])
            let holding = FetchRequest<Driver>(predicate: #Predicate { $0.cars.contains { $0.objectID == id } })
            #expect(try context.count(for: holding) == 1)
        }
    }

    /// Delete rules run for sub-entity objects: a cascade from the depot
    /// deletes every vehicle, the sponsor's nullify clears the sport car's
    /// sponsor.
    @Test(arguments: StoreKind.allCases) func deleteRulesTreatSubentityObjectsAsTheParents(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            let sport = try #require(try context.fetch(FetchRequest<SportCar>()).first)
            let sponsor = Sponsor(context: context)
            sport.sponsor = sponsor
            try context.save()
            context.delete(sponsor)
            try context.save()
            #expect(sport.sponsor == nil)
            let depot = try #require(try context.fetch(FetchRequest<Depot>()).first)
            context.delete(depot)
            try context.save()
            context.reset()
            #expect(try context.count(for: FetchRequest<RoadVehicle>()) == 0)
        }
    }

    /// `relationshipKeyPathsForPrefetching` on a parent fetch prefetches for
    /// sub-entity objects too.
    @Test(arguments: StoreKind.allCases) func prefetchingThroughAParentFetch(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            let sport = try #require(try context.fetch(FetchRequest<SportCar>()).first)
            let driver = Driver(context: context)
            driver.name = "Ana"
            driver.cars = [sport]
            try context.save()
            context.reset()
            let request = FetchRequest<Car>(sortBy: [SortDescriptor(\.name)])
            request.relationshipKeyPathsForPrefetching = ["drivers", "depot"]
            let cars = try context.fetch(request)
            #expect(cars.map { $0.drivers.map(\.name) } == [["Ana"], [], []])
            #expect(cars.allSatisfy { $0.depot?.city == "Lyon" })
        }
    }

    /// Derived values follow sub-entity objects entering and leaving.
    @Test(arguments: StoreKind.allCases) func derivedCountsIncludeSubentityObjects(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            let depot = try #require(try context.fetch(FetchRequest<Depot>()).first)
            #expect(depot.vehicleCount == 4)
            let extra = SportCar(context: context)
            extra.depot = depot
            context.processPendingChanges()
            #expect(depot.vehicleCount == 5)
            let truck = try #require(try context.fetch(FetchRequest<Truck>()).first)
            context.delete(truck)
            context.processPendingChanges()
            #expect(depot.vehicleCount == 4)
            try context.save()
            context.reset()
            #expect(try context.fetch(FetchRequest<Depot>()).first?.vehicleCount == 4)
        }
    }
}
