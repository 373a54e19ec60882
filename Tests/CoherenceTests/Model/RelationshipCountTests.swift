@testable import Coherence
import Foundation
import Testing

/// A model file's required relationships and to-many counts are checked by
/// each save, with Core Data's errors: `NSValidationMissingMandatoryPropertyError`
/// for an empty required relationship,
/// `NSValidationRelationshipLacksMinimumCountError` and
/// `NSValidationRelationshipExceedsMaximumCountError` for counts.
/// <https://developer.apple.com/documentation/coredata/nsvalidationrelationshiplacksminimumcounterror>
@Suite("Relationship counts from model files")
struct RelationshipCountTests {
    static func model() throws -> ManagedObjectModel {
        let folder = try ModelFileErrorTests.modelFolder("""
            <entity name="Order">
                <relationship name="customer" maxCount="1" deletionRule="Nullify" destinationEntity="Customer" inverseName="orders" inverseEntity="Customer"/>
                <relationship name="lines" optional="YES" toMany="YES" minCount="2" maxCount="3" deletionRule="Cascade" destinationEntity="Line" inverseName="order" inverseEntity="Line"/>
            </entity>
            <entity name="Customer">
                <relationship name="orders" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Order" inverseName="customer" inverseEntity="Order"/>
            </entity>
            <entity name="Line">
                <relationship name="order" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Order" inverseName="lines" inverseEntity="Order"/>
            </entity>
            """)
        return try ManagedObjectModel(contentsOf: folder)
    }

    @Test func theModelKeepsTheCounts() throws {
        let order = try #require(try Self.model().entitiesByName["Order"])
        let customer = try #require(order.relationships.first { $0.name == "customer" })
        let lines = try #require(order.relationships.first { $0.name == "lines" })
        #expect(!customer.isOptional && lines.isOptional)
        #expect((lines.minCount, lines.maxCount) == (2, 3))
    }

    @Test(arguments: StoreKind.allCases) func savesCheckRequiredRelationshipsAndCounts(store kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(try kind.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let order = EntityDescription.insertNewObject(forEntityName: "Order", into: context)
            let lines = (0..<4).map { _ in EntityDescription.insertNewObject(forEntityName: "Line", into: context) }
            order.setValue(lines[0...0], forKey: "lines")
            // No customer, one line of at least two.
            let first = #expect(throws: ValidationError.self) { try context.save() }
            #expect(Set(first?.errors ?? []) == [.missingValue(entity: "Order", property: "customer"),
                                                  .tooFewDestinations(entity: "Order", property: "lines", count: 1, minimum: 2)])
            #expect((first?.errors.map { ($0 as NSError).code }.sorted()) == [NSValidationMissingMandatoryPropertyError,
                                                                             NSValidationRelationshipLacksMinimumCountError])
            order.setValue(EntityDescription.insertNewObject(forEntityName: "Customer", into: context), forKey: "customer")
            order.setValue(lines, forKey: "lines")
            let second = #expect(throws: ValidationError.self) { try context.save() }
            #expect(second == .tooManyDestinations(entity: "Order", property: "lines", count: 4, maximum: 3))
            #expect((second.map { $0 as NSError })?.code == NSValidationRelationshipExceedsMaximumCountError)
            order.setValue(lines[0..<3], forKey: "lines")
            context.delete(lines[3])
            try context.save()
            // An optional to-many may be empty whatever its minimum.
            order.setValue([ManagedObject](), forKey: "lines")
            try context.save()
            #expect((order.value(forKey: "lines") as? Set<ManagedObject>)?.isEmpty == true)
        }
    }
}

/// A batch insert's to-one relationship takes the ID of an object of the
/// destination entity or of a sub-entity, checked by entity: in a model
/// file, a sub-entity's class need not subclass its parent's.
@Suite("Batch inserts into model-file hierarchies")
struct ModelFileBatchInsertTests {
    @Test(arguments: StoreKind.databases) func aSubEntityIDFillsARelationshipToItsParent(store kind: StoreKind) throws {
        let folder = try ModelFileErrorTests.modelFolder("""
            <entity name="Shelf">
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="shelves"/>
            </entity>
            <entity name="Item">
                <relationship name="shelves" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Shelf" inverseName="item"/>
            </entity>
            <entity name="Book" parentEntity="Item"/>
            <entity name="Poster"/>
            """)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: folder))
        try coordinator.addPersistentStore(try kind.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let book = EntityDescription.insertNewObject(forEntityName: "Book", into: context)
            let poster = EntityDescription.insertNewObject(forEntityName: "Poster", into: context)
            try context.save()
            let request = BatchInsertRequest<ManagedObject>(entityName: "Shelf", objects: [["item": book.objectID]])
            _ = try context.execute(request)
            let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            #expect(shelf.value(forKey: "item") as? ManagedObject === book)
            // An object of an entity outside the hierarchy is refused.
            #expect(throws: ContextError.self) {
                try context.execute(BatchInsertRequest<ManagedObject>(entityName: "Shelf", objects: [["item": poster.objectID]]))
            }
        }
    }
}
