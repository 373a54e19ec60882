@testable import Coherence
import Foundation
import Testing

/// Sub-entities, as Core Data's entity inheritance: a listed class that
/// subclasses another listed class is a sub-entity of its entity
/// (`NSEntityDescription.superentity` / `subentities`,
/// https://developer.apple.com/documentation/coredata/nsentitydescription/superentity,
/// https://developer.apple.com/documentation/coredata/nsentitydescription/subentities),
/// inheriting its attributes and relationships.
@Suite("Sub-entities: the model")
struct SubentityTests {
    @Test func aSubclassIsASubentityOfItsSuperclassEntity() throws {
        let model = try SubentityStack.model()
        let vehicle = try #require(model.entitiesByName["RoadVehicle"])
        let car = try #require(model.entitiesByName["Car"])
        let sportCar = try #require(model.entitiesByName["SportCar"])
        let truck = try #require(model.entitiesByName["Truck"])
        #expect(vehicle.superentity == nil)
        #expect(car.superentity === vehicle)
        #expect(sportCar.superentity === car)
        #expect(vehicle.subentities.map(\.name) == ["Car", "Truck"])
        #expect(car.subentities.map(\.name) == ["SportCar"])
        #expect(sportCar.rootEntity === vehicle)
        #expect(sportCar.isKind(of: vehicle) && !truck.isKind(of: car))
        #expect(model.entities.map(\.name) == SubentityStack.entities.map(\.entityName), "the model keeps the order given")
    }

    /// A sub-entity has its parent's properties first, at the parent's
    /// attribute indexes, then its own.
    @Test func aSubentityInheritsAttributesAndRelationships() throws {
        let model = try SubentityStack.model()
        let car = try #require(model.entitiesByName["Car"])
        let sportCar = try #require(model.entitiesByName["SportCar"])
        #expect(car.attributes.map(\.name) == ["name", "year", "seats"])
        #expect(sportCar.attributes.map(\.name) == ["name", "year", "seats", "topSpeed"])
        #expect(car.relationships.map(\.name) == ["depot", "drivers"])
        #expect(sportCar.relationships.map(\.name) == ["depot", "drivers", "sponsor"])
        #expect(sportCar.relationship(named: "depot")?.destinationEntityName == "Depot")
        #expect(sportCar.relationship(named: "depot")?.inverseName == "vehicles")
        // The parent's key paths resolve on the sub-entity.
        #expect(sportCar.propertyIndex(for: \RoadVehicle.name) == 0)
        #expect(sportCar.propertyIndex(for: \Car.seats) == 2)
        #expect(sportCar.propertyIndex(for: \SportCar.topSpeed) == 3)
        #expect(sportCar.propertyIndex(for: \RoadVehicle.depot) == sportCar.relationship(named: "depot")?.index)
        // A relationship's inverse, found from the other side, on a sub-entity object.
        let depot = try #require(model.entitiesByName["Depot"]?.relationship(named: "vehicles"))
        #expect(sportCar.inverse(of: depot)?.name == "depot")
        #expect(car.inverse(of: depot)?.name == "depot")
    }

    /// Core Data's `isAbstract`
    /// (https://developer.apple.com/documentation/coredata/nsentitydescription/isabstract);
    /// a sub-entity of an abstract entity is concrete.
    @Test func abstractEntities() throws {
        let model = try SubentityStack.model()
        #expect(model.entitiesByName["RoadVehicle"]?.isAbstract == true)
        #expect(model.entitiesByName["Car"]?.isAbstract == false)
        #expect(model.entitiesByName["Truck"]?.isAbstract == false)
        #expect(model.entitiesByName["Depot"]?.isAbstract == false)
    }

    /// Inserting an object of an abstract entity stops the program naming
    /// the entity, as Core Data raises for it.
    @Test func insertingAnAbstractEntityTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try SubentityStack.context(.inMemory)
            context.performAndWait { _ = RoadVehicle(context: context) }
        }
        #expect(result.standardError.contains("RoadVehicle is an abstract entity"))
    }


    /// Class relations come from Swift's own dynamic casts (no runtime
    /// internals): a class is related to itself and its ancestors only, and
    /// classes outside ManagedObject's hierarchy to themselves only.
    @Test func subclassChecksFollowTheClassHierarchy() {
        #expect(isSameOrSubclass(SportCar.self, of: SportCar.self))
        #expect(isSameOrSubclass(SportCar.self, of: Car.self))
        #expect(isSameOrSubclass(SportCar.self, of: RoadVehicle.self))
        #expect(isSameOrSubclass(SportCar.self, of: ManagedObject.self))
        #expect(!isSameOrSubclass(Car.self, of: SportCar.self))
        #expect(!isSameOrSubclass(Truck.self, of: Car.self))
        #expect(!isSameOrSubclass(SportCar.self, of: Truck.self))
        #expect(!isSameOrSubclass(NSObject.self, of: Car.self))
        #expect(!isSameOrSubclass(Car.self, of: NSObject.self))
        #expect(isSameOrSubclass(NSObject.self, of: NSObject.self))
    }

    /// Each entity's parent is its nearest listed ancestor, whatever order
    /// the classes are listed in.
    @Test func parentsAreTheNearestListedAncestorsInAnyOrder() throws {
        let model = try ManagedObjectModel(entities: [SportCar.self, Truck.self, Car.self, RoadVehicle.self, Depot.self, Driver.self, Sponsor.self])
        #expect(model.entitiesByName["SportCar"]?.superentity?.name == "Car")
        #expect(model.entitiesByName["Car"]?.superentity?.name == "RoadVehicle")
        #expect(model.entitiesByName["Truck"]?.superentity?.name == "RoadVehicle")
        #expect(model.entitiesByName["RoadVehicle"]?.superentity == nil)
    }

    /// Siblings share their root's table: the same property name with
    /// different types in two of them is refused, naming both.
    @Test func siblingsCannotDeclareOneNameWithTwoTypes() throws {
        #expect(throws: ModelError.conflictingSubentityProperty(
            entity: "Schooner", property: "rating", reason: "it is an attribute of type string but Ketch.rating is an attribute of type integer64")) {
            try ManagedObjectModel(entities: [Yacht.self, Ketch.self, Schooner.self])
        }
    }
}

class Yacht: ManagedObject {
    @Attribute var name = ""
}

final class Ketch: Yacht {
    @Attribute var rating = 0
}

final class Schooner: Yacht {
    @Attribute var rating = ""
}
