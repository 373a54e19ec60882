@testable import Coherence
import Foundation
import Testing

/// An entity of a model file with Transformable attributes, as Xcode
/// generates its class: a Foundation collection and a class of the app's
/// that conforms to `NSSecureCoding` (`Color`, from the CoreDataPlus port).
public class Swatchbook: ManagedObject {}

extension Swatchbook {
    @Managed public var tags: [String]?
    @Managed public var color: Color?
    @Managed public var palette: [String: Int]?
}

/// Transformable attributes are kept as keyed archives made with secure
/// coding, as Core Data's default transformer (`NSSecureUnarchiveFromData`)
/// keeps them, and read back as the `@Managed` property's type.
/// <https://developer.apple.com/documentation/coredata/nsattributetype/transformableattributetype>
@Suite("Transformable attributes of a model file")
struct TransformableAttributeTests {
    static func model() throws -> ManagedObjectModel {
        let folder = try ModelFileErrorTests.modelFolder("""
            <entity name="Swatchbook" representedClassName="Swatchbook">
                <attribute name="color" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="Color"/>
                <attribute name="palette" optional="YES" attributeType="Transformable" customClassName="[String: Int]"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
            </entity>
            """)
        return try ManagedObjectModel(contentsOf: folder, classes: [Swatchbook.self])
    }

    @Test(arguments: StoreKind.allCases) func valuesRoundTripThroughTheStore(store kind: StoreKind) throws {
        let model = try Self.model()
        #expect(model.entitiesByName["Swatchbook"]?.attribute(named: "tags")?.attributeType == .binaryData)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try kind.makeDescription())
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let id = try writer.performAndWait {
            let book = Swatchbook(context: writer)
            #expect(book.tags == nil && book.color == nil)
            book.tags = ["warm", "matte"]
            book.color = Color(name: "ochre")
            book.palette = ["ochre": 3]
            #expect(book.tags == ["warm", "matte"] && book.color?.name == "ochre")
            try writer.save()
            return book.objectID
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try reader.performAndWait {
            let book = try #require(try reader.existingObject(with: id) as? Swatchbook)
            #expect(book.tags == ["warm", "matte"])
            #expect(book.color?.name == "ochre")
            #expect(book.palette == ["ochre": 3])
            // A change is a change of the archive: saved, and seen by others.
            book.tags = ["cool"]
            #expect(book.changedValues().keys.sorted() == ["tags"])
            book.color = nil
            try reader.save()
        }
        try writer.performAndWait {
            writer.refreshAllObjects()
            let book = try #require(try writer.existingObject(with: id) as? Swatchbook)
            #expect(book.tags == ["cool"] && book.color == nil && book.palette == ["ochre": 3])
        }
    }
}
