@testable import Coherence
import Foundation
import Testing

/// Shared behaviour and an attribute, and no entity: Core Data's
/// `BaseEntity` pattern, where the class hierarchy is not the entity
/// hierarchy.
class TimestampedRecord: ManagedObject {
    @Attribute var createdAt = Date(timeIntervalSinceReferenceDate: 0)
    func touch() { createdAt = Date(timeIntervalSinceReferenceDate: 42) }
}
final class Memo: TimestampedRecord { @Attribute var text = "" }
final class Label: TimestampedRecord { @Attribute var title = "" }

/// An entity, a base class between it and its sub-entity, and the sub-entity.
class Appliance: ManagedObject { @Attribute var name = "" }
class ApplianceBase: Appliance { @Attribute var serial = 0 }
final class Toaster: ApplianceBase { @Attribute var slots = 2 }

/// A superclass that is not listed in the model is an ordinary base class:
/// its properties belong to each entity below it, and the nearest listed
/// superclass is the parent entity. Core Data's "class hierarchy … need not
/// match the entity hierarchy".
/// <https://developer.apple.com/documentation/coredata/nsentitydescription>
@Suite("Base classes that are not entities")
struct BaseClassTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [Memo.self, Label.self, Appliance.self, Toaster.self])
    }

    @Test func theBaseClassPropertiesBelongToEachEntity() throws {
        let model = try Self.model()
        let memo = try #require(model.entitiesByName["Memo"])
        let label = try #require(model.entitiesByName["Label"])
        let toaster = try #require(model.entitiesByName["Toaster"])
        #expect(memo.superentity == nil && label.superentity == nil)
        #expect(memo.attributes.map(\.name) == ["createdAt", "text"])
        #expect(label.attributes.map(\.name) == ["createdAt", "title"])
        #expect(toaster.superentity === model.entitiesByName["Appliance"])
        #expect(toaster.attributes.map(\.name) == ["name", "serial", "slots"])
        #expect(model.entitiesByName["TimestampedRecord"] == nil && model.entitiesByName["ApplianceBase"] == nil)
    }

    @Test(arguments: StoreKind.allCases) func objectsRoundTrip(store kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(try kind.makeDescription())
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try writer.performAndWait {
            let memo = Memo(context: writer)
            memo.text = "buy bread"
            memo.touch()
            Label(context: writer).title = "errands"
            let toaster = Toaster(context: writer)
            toaster.name = "Dualit"
            toaster.serial = 77
            try writer.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try reader.performAndWait {
            let memo = try #require(try reader.fetch(FetchRequest<Memo>()).first)
            #expect(memo.createdAt == Date(timeIntervalSinceReferenceDate: 42) && memo.text == "buy bread")
            #expect(try reader.fetch(FetchRequest<Label>()).first?.createdAt == Date(timeIntervalSinceReferenceDate: 0))
            // A fetch of the parent entity returns the sub-entity's objects.
            let appliances = try reader.fetch(FetchRequest<Appliance>())
            let toaster = try #require(appliances.first as? Toaster)
            #expect(appliances.count == 1 && toaster.serial == 77 && toaster.slots == 2)
            let byBase = try reader.fetch(FetchRequest<Toaster>(predicate: #Predicate { $0.serial == 77 }))
            #expect(byBase.count == 1)
        }
    }
}
