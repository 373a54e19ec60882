import Coherence
import Foundation
import Testing

// Classes that only these tests build models with: which model a class's
// entity comes from is process-wide, and other suites run in parallel.
class RegistryVehicle: ManagedObject {
    @Attribute var name = ""
}

final class RegistryBike: RegistryVehicle {
    @Attribute var gears = 1
}

final class RegistryBoat: RegistryVehicle {
    @Attribute var sails = 0
}

/// `Entity.entity()` comes from the last model built with the class that is
/// still alive, and an entity lists its sub-entities while its model lives.
/// Neither holds a model or an entity: a model nothing else holds is freed.
@Suite("Models and their entities", .serialized)
struct ModelRegistryTests {
    private static let classes: [ManagedObject.Type] = [RegistryVehicle.self, RegistryBike.self, RegistryBoat.self]

    /// A second model with the classes, and the entity of its `RegistryVehicle`,
    /// built in a function of its own so that only what it returns outlives it.
    private static func laterModel(keeping: Bool) throws -> (model: ManagedObjectModel?, vehicle: EntityDescription, freed: () -> Bool) {
        let model = try ManagedObjectModel(entities: classes)
        let vehicle = try #require(model.entitiesByName["RegistryVehicle"])
        #expect(RegistryBike.entity() === model.entitiesByName["RegistryBike"], "the last model built wins")
        weak let weakModel = model
        return (keeping ? model : nil, vehicle, { weakModel == nil })
    }

    @Test func theClassEntityIsThatOfTheLastModelAliveAndAFreedModelLeavesNothingBehind() throws {
        let first = try ManagedObjectModel(entities: Self.classes)
        let (gone, goneVehicle, freed) = try Self.laterModel(keeping: false)
        #expect(gone == nil)
        // Nothing kept the later model: not its entities (one of them is still
        // held here), not the registry.
        #expect(freed())
        #expect(RegistryBike.entity() === first.entitiesByName["RegistryBike"], "back to the model built before")
        #expect(RegistryVehicle.entity().subentities.map(\.name) == ["RegistryBike", "RegistryBoat"])
        // An entity that outlives its model keeps its own description; its
        // sub-entities went with the model.
        #expect(goneVehicle.name == "RegistryVehicle")
        #expect(goneVehicle.isInHierarchy)
        #expect(goneVehicle.subentities.isEmpty)
        withExtendedLifetime(first) {}
    }

    @Test func subentitiesAreListedInModelOrderWhileTheModelLives() throws {
        let first = try ManagedObjectModel(entities: Self.classes)
        let (later, laterVehicle, freed) = try Self.laterModel(keeping: true)
        #expect(!freed())
        #expect(laterVehicle.subentities.map(\.name) == ["RegistryBike", "RegistryBoat"])
        #expect(laterVehicle.subentities.allSatisfy { $0.superentity === laterVehicle })
        #expect(laterVehicle.selfAndDescendants.count == 3)
        #expect(RegistryBoat.entity() === later?.entitiesByName["RegistryBoat"])
        #expect(first.entitiesByName["RegistryVehicle"]?.subentities.map(\.name) == ["RegistryBike", "RegistryBoat"])
        withExtendedLifetime(later) {}
    }
}
