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
    @Managed public var swatches: [Color]?
}

/// A class whose `@Managed` property declares a Binary attribute as an
/// object: a mistake, since only a Transformable attribute keeps one.
public class Sketch: ManagedObject {}

extension Sketch {
    @Managed public var image: Color?
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
                <attribute name="swatches" optional="YES" attributeType="Transformable" customClassName="[Color]"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
            </entity>
            <entity name="Sketch" representedClassName="Sketch">
                <attribute name="image" optional="YES" attributeType="Binary"/>
            </entity>
            """)
        return try ManagedObjectModel(contentsOf: folder, classes: [Swatchbook.self, Sketch.self])
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
            // An equal value is no change, whatever the archive's bytes.
            book.palette = ["ochre": 3]
            book.tags = ["warm", "matte"]
            #expect(!book.hasChanges)
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

    /// A collection may hold only Foundation values: an archive of one
    /// holding a class of the app could not be read back on Linux, so the
    /// write stops the program, naming the attribute.
    @Test func aCollectionOfAppClassesStopsTheProgramNamingTheAttribute() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TransformableAttributeTests.model())
            try coordinator.addPersistentStore(.inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            context.performAndWait {
                let book = Swatchbook(context: context)
                book.swatches = [Color(name: "ochre")]
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Swatchbook.swatches") && message.contains("only Foundation values"), "\(message)")
    }
    /// A Binary attribute holds `Data`: declaring it as an object in
    /// `@Managed` stops the program at the first write, naming the
    /// attribute, instead of archiving the object as a Transformable
    /// attribute would.
    @Test func aBinaryAttributeDeclaredAsAnObjectStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TransformableAttributeTests.model())
            try coordinator.addPersistentStore(.inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            context.performAndWait {
                Sketch(context: context).image = Color(name: "ochre")
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Sketch.image is a Binary attribute"), "\(message)")
    }
}
