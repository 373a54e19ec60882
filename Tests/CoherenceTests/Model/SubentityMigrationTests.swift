@testable import Coherence
import Foundation
import Testing

// A model's versions: first `Boat` alone, then `Boat` with a sub-entity
// `Sailboat` (the classes are the same; the model lists more of them).
class Boat: ManagedObject {
    @Attribute var name = ""
    @Attribute var length = 0.0
}

final class Sailboat: Boat {
    @Attribute var masts = 1
    @Attribute var rig: String?
}

// Two versions of one sub-entity `Tanker` of `Ship`: the second adds an
// attribute with an initial value.
class Ship: ManagedObject {
    @Attribute var name = ""
}

final class TankerV1: Ship {
    override class var entityName: String { "Tanker" }
    @Attribute var capacity = 0
}

final class TankerV2: Ship {
    override class var entityName: String { "Tanker" }
    @Attribute var capacity = 0
    @Attribute var hulls = 2
}

/// Lightweight migration of an SQLite store whose model gained a
/// sub-entity: Core Data's lightweight migration handles changes of the
/// entity hierarchy, among them creating a new child entity
/// (https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/CoreDataVersioning/Articles/vmLightweightMigration.html).
@Suite("Sub-entities: migration")
struct SubentityMigrationTests {
    static func coordinator(at url: URL, entities: [ManagedObject.Type]) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: entities))
        try coordinator.addPersistentStore(.sqlite(url))
        return coordinator
    }

    @Test func addingASubentityMigratesTheStore() throws {
        let url = TestFiles.newURL("boats.sqlite")
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue,
                                               persistentStoreCoordinator: try Self.coordinator(at: url, entities: [Boat.self]))
            try context.performAndWait {
                let boat = Boat(context: context)
                boat.name = "Dinghy"
                boat.length = 3
                try context.save()
            }
        }
        let coordinator = try Self.coordinator(at: url, entities: [Boat.self, Sailboat.self])
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let sail = Sailboat(context: context)
            sail.name = "Sloop"
            sail.length = 9
            sail.masts = 1
            sail.rig = "Bermuda"
            try context.save()
            context.reset()
            let boats = try context.fetch(FetchRequest<Boat>(sortBy: [SortDescriptor(\.length)]))
            #expect(boats.map(\.name) == ["Dinghy", "Sloop"], "the old row is a Boat, the new one a Sailboat")
            #expect(boats.map { $0 is Sailboat } == [false, true])
            #expect((boats[1] as? Sailboat)?.rig == "Bermuda")
            #expect(Set(boats.compactMap(\.objectID.primaryKey)).count == 2)
            let exact = FetchRequest<Boat>()
            exact.includesSubentities = false
            #expect(try context.fetch(exact).map(\.name) == ["Dinghy"])
        }
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        let columns = try store.database.read { db in try db.columns(in: "Boat").map(\.name) }
        #expect(columns == ["Z_PK", "Z_OPT", "name", "length", "Z_ENT", "masts", "rig"])
        // Opened again with the same model: nothing left to migrate.
        let old = try #require(try SQLiteStore.inspect(url: url, model: nil)?.1)
        #expect(try SQLMigration(from: old, to: coordinator.managedObjectModel).isEmpty)
    }

    /// A sub-entity that gains an attribute: its saved objects take the
    /// initial value (Core Data's lightweight migration adds attributes).
    @Test func aSubentityGainingAnAttributeMigrates() throws {
        let url = TestFiles.newURL("ships.sqlite")
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue,
                                               persistentStoreCoordinator: try Self.coordinator(at: url, entities: [Ship.self, TankerV1.self]))
            try context.performAndWait {
                let tanker = TankerV1(context: context)
                tanker.name = "Knock Nevis"
                tanker.capacity = 564_763
                Ship(context: context).name = "Tug"
                try context.save()
            }
        }
        let coordinator = try Self.coordinator(at: url, entities: [Ship.self, TankerV2.self])
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let ships = try context.fetch(FetchRequest<Ship>(sortBy: [SortDescriptor(\.name)]))
            #expect(ships.map(\.name) == ["Knock Nevis", "Tug"])
            let tanker = try #require(ships.first as? TankerV2)
            #expect(tanker.capacity == 564_763)
            #expect(tanker.hulls == 2, "the new attribute's initial value")
        }
    }

    /// A store of a model without sub-entities keeps its model hash: the
    /// sub-entity support adds nothing to the stored model description.
    @Test func aModelWithoutSubentitiesKeepsItsStoredForm() throws {
        let model = try ManagedObjectModel(entities: [Boat.self])
        let json = String(decoding: try StoredModel(model).encoded(), as: UTF8.self)
        #expect(!json.contains("superentity"))
    }
}
