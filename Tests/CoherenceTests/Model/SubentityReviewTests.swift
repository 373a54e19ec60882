import Coherence
import Foundation
import Testing

/// Sub-entity cases found in review: values of a sub-entity's object read at
/// the parent's property positions, IDs that name a parent for a
/// sub-entity's row, sibling to-one relationships sharing a column,
/// migrations that would lose values, and the descriptions' ownership.
/// https://developer.apple.com/documentation/coredata/nsentitydescription/subentities
@Suite("Sub-entities: review cases")
struct SubentityReviewTests {
    @Test(arguments: StoreKind.allCases) func dictionaryFetchesOfAParentReadEachObjectsOwnLayout(store: StoreKind) throws {
        let context = try SubentityStack.context(store)
        try context.performAndWait {
            let depot = Depot(context: context)
            depot.city = "Lyon"
            let car = SportCar(context: context)
            car.name = "GT"
            car.topSpeed = 300
            car.depot = depot
            let truck = Truck(context: context)
            truck.name = "Hauler"
            truck.depot = depot
            try context.save()
            let rows = try context.fetchDictionaries(FetchRequest<RoadVehicle>(sortBy: [SortDescriptor(\.name)]),
                                                     propertiesToFetch: ["name", "depot"])
            #expect(rows.map { $0["name"] as? String } == ["GT", "Hauler"])
            #expect(rows.map { $0["depot"] as? ManagedObjectID } == [depot.objectID, depot.objectID],
                    "a relationship of the parent, read from each sub-entity's position")
            let count = ExpressionDescription(name: "count", expression: .count("name"), resultType: .integer64)
            let request = FetchRequest<RoadVehicle>()
            request.evaluatesPredicateInMemory = true
            let grouped = try context.fetchDictionaries(request, propertiesToFetch: ["depot", .expression(count)],
                                                        propertiesToGroupBy: ["depot"])
            #expect(grouped.count == 1)
            #expect(grouped.first?["depot"] as? ManagedObjectID == depot.objectID)
            #expect(grouped.first?["count"] as? Int == 2)
        }
    }

    @Test func anIDNamingTheParentOfASubentitysRowNamesNoObject() throws {
        let context = try SubentityStack.context(.sqlite)
        try context.performAndWait {
            let car = SportCar(context: context)
            car.name = "GT"
            try context.save()
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            let parentEntity = try #require(model.entitiesByName["Car"])
            let wrong = ManagedObjectID(entity: parentEntity, storeIdentifier: try #require(car.objectID.storeIdentifier),
                                        primaryKey: try #require(car.objectID.primaryKey))
            #expect(throws: (any Error).self) { try context.existingObject(with: wrong) }
            #expect(try context.existingObject(with: car.objectID) === car)
        }
    }

    @Test func siblingsCannotEachDeclareAToOneOfOneName() throws {
        final class Harbor: ManagedObject {
            @Attribute var name = ""
            @Relationship(inverse: \Ketch.harbor) var ketches: Set<Ketch>
            @Relationship(inverse: \Schooner.harbor) var schooners: Set<Schooner>
        }
        class Yacht: ManagedObject {
            @Attribute var name = ""
        }
        final class Ketch: Yacht {
            @Relationship var harbor: Harbor?
        }
        final class Schooner: Yacht {
            @Relationship var harbor: Harbor?
        }
        #expect(throws: ModelError.self) {
            try ManagedObjectModel(entities: [Harbor.self, Yacht.self, Ketch.self, Schooner.self])
        }
    }

    /// The SQLite store keeps a hierarchy in one table; a migration that
    /// would move or drop one of its columns is refused before the file
    /// changes, and the data is still there for the old model.
    @Test func aMigrationThatWouldLoseHierarchyValuesIsRefused() throws {
        class Animal: ManagedObject {
            @Attribute var name = ""
        }
        final class Dog: Animal {
            @Attribute var breed = ""
        }
        class AnimalV2: ManagedObject {
            override class var entityName: String { "Animal" }
            @Attribute var name = ""
        }
        final class DogV2: AnimalV2 {
            override class var entityName: String { "Dog" }
            @Attribute var pedigree = ""   // `breed` removed
        }
        let url = TestFiles.newURL("hierarchy.sqlite")
        let first = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Animal.self, Dog.self]))
        try first.addPersistentStore(.sqlite(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first)
        try context.performAndWait {
            let dog = Dog(context: context)
            dog.name = "Rex"
            dog.breed = "Collie"
            try context.save()
        }
        let second = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [AnimalV2.self, DogV2.self]))
        #expect(throws: StoreError.self) { try second.addPersistentStore(.sqlite(url)) }
        let again = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Animal.self, Dog.self]))
        try again.addPersistentStore(.sqlite(url))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: again)
        let breeds = try reader.performAndWait { try reader.fetch(FetchRequest<Dog>()).map(\.breed) }
        #expect(breeds == ["Collie"])
    }

    @Test func aModelWithSubentitiesIsFreed() throws {
        weak var released: ManagedObjectModel?
        weak var child: EntityDescription?
        do {
            let model = try SubentityStack.model()
            released = model
            child = model.entitiesByName["SportCar"]
            #expect(model.entitiesByName["Car"]?.subentities.map(\.name) == ["SportCar"])
        }
        #expect(released == nil, "parent and child descriptions do not keep each other alive")
        #expect(child == nil)
    }
    /// "Subentities may extend a superentity's constraint" (uniquenessConstraints):
    /// a sub-entity that drops its parent's is refused by the model.
    /// https://developer.apple.com/documentation/coredata/nsentitydescription/uniquenessconstraints
    @Test func aSubentityKeepsItsParentsConstraints() throws {
        class Member: ManagedObject {
            override class var uniquenessConstraints: [[String]] { [["email"]] }
            @Attribute var email = ""
        }
        final class Guest: Member {
            override class var uniquenessConstraints: [[String]] { [["badge"]] }
            @Attribute var badge = 0
        }
        final class Host: Member {
            override class var uniquenessConstraints: [[String]] { super.uniquenessConstraints + [["room"]] }
            @Attribute var room = 0
        }
        #expect(throws: ModelError.self) { try ManagedObjectModel(entities: [Member.self, Guest.self]) }
        let model = try ManagedObjectModel(entities: [Member.self, Host.self])
        #expect(model.entitiesByName["Host"]?.uniquenessConstraints == [["email"], ["room"]])
    }
    /// NSBatchUpdateRequest.includesSubentities: true by default; false
    /// leaves sub-entities' rows alone (and so for batch deletes).
    /// https://developer.apple.com/documentation/coredata/nsbatchupdaterequest/includessubentities
    @Test(arguments: StoreKind.allCases) func batchRequestsCanLeaveSubentitiesOut(store: StoreKind) throws {
        let context = try SubentityStack.context(store)
        try context.performAndWait {
            let car = Car(context: context)
            car.name = "Sedan"
            let sport = SportCar(context: context)
            sport.name = "GT"
            try context.save()
            let update = BatchUpdateRequest<Car>(propertiesToUpdate: ["seats": 7])
            update.includesSubentities = false
            #expect((try context.execute(update) as! BatchUpdateResult).count == 1)
            let delete = BatchDeleteRequest<Car>()
            delete.includesSubentities = false
            #expect((try context.execute(delete) as! BatchDeleteResult).count == 1)
            context.reset()
            let left = try context.fetch(FetchRequest<Car>())
            #expect(left.map(\.name) == ["GT"])
            #expect(left.map(\.seats) == [4], "the sub-entity's row was not updated")
            #expect((try context.execute(BatchUpdateRequest<Car>(propertiesToUpdate: ["seats": 2])) as! BatchUpdateResult).count == 1, "included by default")
        }
    }
    /// Renaming identifiers left from an earlier migration (usual Core Data
    /// practice) do not make an unchanged hierarchy's store refuse to open.
    @Test func staleRenamingIdentifiersDoNotBlockAHierarchy() throws {
        class Pet: ManagedObject {
            override class var propertyRenamingIdentifiers: [String: String] { ["name": "title"] }
            @Attribute var name = ""
        }
        final class Cat: Pet {
            @Attribute var lives = 9
        }
        let url = TestFiles.newURL("renames.sqlite")
        for _ in 0..<2 {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Pet.self, Cat.self]))
            try coordinator.addPersistentStore(.sqlite(url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            try context.performAndWait {
                Cat(context: context).name = "Tom"
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Pet.self, Cat.self]))
        try coordinator.addPersistentStore(.sqlite(url))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Cat>()) } == 2)
    }
}
