import Coherence
import Foundation

// A hierarchy of entities, as Core Data users model one: an abstract
// `RoadVehicle`, a concrete `Car` with a sub-entity `SportCar`, and `Truck`.

/// Abstract: only its sub-entities have objects.
class RoadVehicle: ManagedObject {
    override class var isAbstract: Bool { true }
    override class var indexes: [[String]] { [["name"]] }
    @Attribute var name = ""
    @Attribute var year = 2000
    @Relationship(inverse: \Depot.vehicles) var depot: Depot?
}

class Car: RoadVehicle {
    @Attribute var seats = 4
    @Relationship(inverse: \Driver.cars) var drivers: Set<Driver>
}

final class SportCar: Car {
    @Attribute var topSpeed = 0.0
    @Relationship(inverse: \Sponsor.sportCars) var sponsor: Sponsor?
}

final class Truck: RoadVehicle {
    @Attribute var load = 0.0
}

final class Depot: ManagedObject {
    @Attribute var city = ""
    @Relationship(deleteRule: .cascade) var vehicles: Set<RoadVehicle>
    @Derived(count: \Depot.vehicles) var vehicleCount: Int
}

final class Driver: ManagedObject {
    @Attribute var name = ""
    @Relationship var cars: Set<Car>
}

final class Sponsor: ManagedObject {
    @Attribute var name = ""
    @Relationship(deleteRule: .nullify) var sportCars: Set<SportCar>
}

enum SubentityStack {
    static let entities: [ManagedObject.Type] = [Depot.self, RoadVehicle.self, Car.self, SportCar.self, Truck.self, Driver.self, Sponsor.self]

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: entities)
    }

    static func context(_ store: StoreKind) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(store.makeDescription())
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }
}
