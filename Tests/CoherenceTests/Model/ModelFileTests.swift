@testable import Coherence
import Foundation
import Testing

// The class a port of the `Library` model's Xcode-generated
// `Novel+CoreDataClass.swift` gives, under a base class that is no entity
// (these tests list no other class: the other entities' objects are plain
// `ManagedObject`s, as in Core Data; ManagedPropertyTests lists more).
class LibraryRecord: ManagedObject {
    var shelfMark: String { "\(entity.name)-\(objectID.primaryKey ?? 0)" }
}
final class Novel: LibraryRecord {}

/// The Xcode model file in `Fixtures/Library.xcdatamodeld` (two versions),
/// read with `ManagedObjectModel(contentsOf:classes:)` and used through
/// every store, as Core Data uses the model Xcode compiles from it.
@Suite("Xcode model files")
struct ModelFileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let library = fixtures.appendingPathComponent("Library.xcdatamodeld")
    static let version1 = library.appendingPathComponent("Library.xcdatamodel")

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: library, classes: [Novel.self])
    }

    static func context(_ description: PersistentStoreDescription, model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(description)
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    /// The current version (`.xccurrentversion` names "Library 2") with
    /// its hierarchy, types, defaults, options and user info, as Core
    /// Data's `NSManagedObjectModel(contentsOf:)` reads them.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/init(contentsof:)>
    @Test func readsTheCurrentVersion() throws {
        let model = try Self.model()
        #expect(model.entities.map(\.name) == ["Bookcase", "Borrower", "Medium", "Novel", "Recording"])
        #expect(model.entitiesByName["Borrower"]?.relationship(named: "media")?.isOrdered == true)
        #expect(model.entitiesByName["Bookcase"]?.relationship(named: "novels")?.isOrdered == false)
        let medium = try #require(model.entitiesByName["Medium"])
        let novel = try #require(model.entitiesByName["Novel"])
        let recording = try #require(model.entitiesByName["Recording"])
        let borrower = try #require(model.entitiesByName["Borrower"])
        #expect(medium.isAbstract && !novel.isAbstract)
        #expect(novel.superentity === medium && recording.superentity === medium)
        #expect(novel.managedObjectClass == Novel.self && ModeledClasses.isModeled(medium.managedObjectClass))
        // Entities without a listed class get a class of their own, the
        // same for the same name in every model.
        #expect(recording.managedObjectClass != borrower.managedObjectClass)
        #expect(try ManagedObjectModel(contentsOf: Self.version1).entitiesByName["Borrower"]?.managedObjectClass
                == borrower.managedObjectClass)
        // A sub-entity has its parent's properties first.
        #expect(novel.attributes.map(\.name) == ["price", "title", "year", "pages", "signed"])
        #expect(novel.relationships.map(\.name) == ["borrower", "bookcase"])
        let types = Dictionary(uniqueKeysWithValues: borrower.attributes.map { ($0.name, $0.attributeType) })
        #expect(types == ["homepage": .uri, "joined": .date, "name": .string, "nickname": .string, "photo": .binaryData,
                          "rating": .float, "token": .uuid, "visits": .integer64])
        #expect(medium.attributes.map(\.attributeType) == [.decimal, .string, .integer16])
        #expect(novel.attributes.last?.attributeType == .boolean)
        #expect(recording.attributes.last?.attributeType == .double)
        let name = try #require(borrower.attributes.first { $0.name == "name" })
        #expect(!name.isOptional && name.defaultValue == .string(""))
        #expect(borrower.attributes.first { $0.name == "nickname" }?.isTransient == true)
        #expect(borrower.attributes.first { $0.name == "joined" }?.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 0)))
        #expect(medium.attributes[2].defaultValue == .integer(2000) && !medium.attributes[2].isOptional)
        #expect(medium.attributes[2].userInfo == ["unit": "calendar year"])
        #expect(novel.userInfo == ["shelfMark": "fiction"])
        #expect(borrower.propertyRenamingIdentifiers == ["name": "fullName"] && medium.propertyRenamingIdentifiers.isEmpty)
        #expect(medium.indexes == [["title"]] && borrower.uniquenessConstraints == [["name"]])
        let novels = try #require(model.entitiesByName["Bookcase"]?.relationships.first)
        #expect(novels.isToMany && novels.deleteRule == .cascade && novels.inverseName == "bookcase")
        #expect(novels.destinationEntityName == "Novel")
    }

    /// Objects of every entity, with and without a class, saved and
    /// fetched on every store: `NSManagedObject(entity:insertInto:)` and
    /// `NSEntityDescription.insertNewObject(forEntityName:into:)` make
    /// objects of an entity without a class, read and written by key.
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/insertnewobject(forentityname:into:)>
    @Test(arguments: StoreKind.allCases) func objectsRoundTrip(store kind: StoreKind) throws {
        let model = try Self.model()
        let writer = try Self.context(try kind.makeDescription(), model: model)
        let token = UUID()
        try writer.performAndWait {
            let borrowerEntity = try #require(EntityDescription.entity(forEntityName: "Borrower", in: writer))
            let ada = ManagedObject(entity: borrowerEntity, insertInto: writer)
            #expect(ada.entity === borrowerEntity)
            #expect(ada.value(forKey: "visits") as? Int64 == 0)
            ada.setValue("Ada", forKey: "name")
            ada.setValue(URL(string: "https://example.org/ada"), forKey: "homepage")
            ada.setValue(Float(4.5), forKey: "rating")
            ada.setValue(token, forKey: "token")
            ada.setValue(Data([1, 2, 3]), forKey: "photo")
            let novel = Novel(context: writer)
            novel.setValue("Middlemarch", forKey: "title")
            novel.setValue(Int32(880), forKey: "pages")
            novel.setValue(Decimal(string: "12.50"), forKey: "price")
            novel.setValue(ada, forKey: "borrower")
            let recording = EntityDescription.insertNewObject(forEntityName: "Recording", into: writer)
            recording.setValue("Goldberg Variations", forKey: "title")
            recording.setValue(51.5, forKey: "minutes")
            recording.setValue(ada, forKey: "borrower")
            let bookcase = EntityDescription.insertNewObject(forEntityName: "Bookcase", into: writer)
            bookcase.setValue([novel], forKey: "novels")
            #expect(novel.value(forKey: "bookcase") as? ManagedObject === bookcase)
            // `media` is ordered: an NSOrderedSet, in the order the inverse was set.
            #expect((ada.value(forKey: "media") as? NSOrderedSet)?.array as? [ManagedObject] == [novel, recording])
            try writer.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator!)
        try reader.performAndWait {
            let media = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Medium", sortBy: [SortDescriptor(key: "title")]))
            #expect(media.map { $0.value(forKey: "title") as? String } == ["Goldberg Variations", "Middlemarch"])
            #expect(media.map(\.entity.name) == ["Recording", "Novel"])
            let novel = try #require(media.last as? Novel)
            #expect(novel.value(forKey: "pages") as? Int32 == 880)
            #expect(novel.value(forKey: "price") as? Decimal == Decimal(string: "12.50"))
            #expect(novel.value(forKey: "year") as? Int16 == 2000)
            #expect(novel.value(forKey: "signed") as? Bool == false)
            #expect(media.first?.value(forKey: "minutes") as? Double == 51.5)
            let ada = try #require(novel.value(forKey: "borrower") as? ManagedObject)
            #expect(ada.value(forKey: "name") as? String == "Ada")
            #expect(ada.value(forKey: "homepage") as? URL == URL(string: "https://example.org/ada"))
            #expect(ada.value(forKey: "rating") as? Float == 4.5)
            #expect(ada.value(forKey: "token") as? UUID == token)
            #expect(ada.value(forKey: "photo") as? Data == Data([1, 2, 3]))
            #expect(ada.value(forKey: "joined") as? Date == Date(timeIntervalSinceReferenceDate: 0))
            let loans = (ada.value(forKey: "media") as? NSOrderedSet)?.array as? [ManagedObject]
            #expect(loans?.map { $0.value(forKey: "title") as? String } == ["Middlemarch", "Goldberg Variations"])
            // A class's own fetch request, and a predicate in Core Data's format.
            #expect(try reader.fetch(FetchRequest<Novel>()).count == 1)
            let request = FetchRequest<ManagedObject>(entityName: "Borrower", predicate: Predicate<ManagedObject>(format: "name == %@", "Ada"))
            #expect(try reader.count(for: request) == 1)
            // The bookcase's delete rule cascades to its novels.
            let bookcase = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Bookcase")).first)
            reader.delete(bookcase)
            try reader.save()
            #expect(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Medium")).map(\.entity.name) == ["Recording"])
        }
    }

    /// The file's derived attributes (`novels.@count`, `novels.@sum.pages`,
    /// `borrower.name`) are current after `processPendingChanges()` and
    /// stored, as Core Data's `NSDerivedAttributeDescription`s are after a
    /// save.
    /// <https://developer.apple.com/documentation/coredata/nsderivedattributedescription>
    @Test(arguments: StoreKind.allCases) func derivedAttributesFromTheFile(store kind: StoreKind) throws {
        let context = try Self.context(try kind.makeDescription(), model: try Self.model())
        try context.performAndWait {
            let bookcase = EntityDescription.insertNewObject(forEntityName: "Bookcase", into: context)
            for pages in [Int32(100), 200] {
                let novel = Novel(context: context)
                novel.setValue(pages, forKey: "pages")
                novel.setValue(bookcase, forKey: "bookcase")
            }
            let ada = EntityDescription.insertNewObject(forEntityName: "Borrower", into: context)
            ada.setValue("Ada", forKey: "name")
            let recording = EntityDescription.insertNewObject(forEntityName: "Recording", into: context)
            recording.setValue(ada, forKey: "borrower")
            context.processPendingChanges()
            #expect(bookcase.value(forKey: "novelCount") as? Int64 == 2)
            #expect(bookcase.value(forKey: "totalPages") as? Int32 == 300)
            #expect(recording.value(forKey: "borrowerName") as? String == "Ada")
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Bookcase", predicate: Predicate<ManagedObject>(format: "novelCount == 2"))
            let bookcase = try #require(try reader.fetch(request).first)
            #expect(bookcase.value(forKey: "totalPages") as? Int32 == 300)
        }
    }

    /// The uniqueness constraint the file declares is enforced: a second
    /// borrower of the same name is a constraint conflict.
    @Test(arguments: StoreKind.allCases) func constraintsFromTheFileHold(store kind: StoreKind) throws {
        let context = try Self.context(try kind.makeDescription(), model: try Self.model())
        context.performAndWait {
            for _ in 0..<2 { EntityDescription.insertNewObject(forEntityName: "Borrower", into: context).setValue("Ada", forKey: "name") }
            #expect(throws: MergeError.self) { try context.save() }
        }
    }

    /// A store saved with version 1 opens with version 2: the renamed
    /// attribute (renaming ID `fullName`) keeps its values, added
    /// attributes take their defaults, new entities are empty, and the
    /// relationship version 2 makes ordered (`Borrower.media`) keeps its
    /// members, in key order until an order is saved.
    @Test(arguments: StoreKind.databases) func migratesLightweightBetweenVersions(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let old = try Self.context(database.description, model: try ManagedObjectModel(contentsOf: Self.version1, classes: [Novel.self]))
        try old.performAndWait {
            let borrower = EntityDescription.insertNewObject(forEntityName: "Borrower", into: old)
            borrower.setValue("Anne Elliot", forKey: "fullName")
            for title in ["Persuasion", "Emma"] {
                let novel = Novel(context: old)
                novel.setValue(title, forKey: "title")
                novel.setValue(Decimal(7), forKey: "price")
                novel.setValue(borrower, forKey: "borrower")
                try old.save()   // one save each: keys in this order
            }
        }
        let current = try Self.context(database.description, model: try Self.model())
        try current.performAndWait {
            let byTitle = FetchRequest<Novel>(predicate: Predicate<Novel>(format: "title == %@", "Persuasion"))
            let novel = try #require(try current.fetch(byTitle).first)
            #expect(novel.value(forKey: "title") as? String == "Persuasion")
            #expect(novel.value(forKey: "price") as? Decimal == Decimal(7))
            #expect(novel.value(forKey: "year") as? Int16 == 2000)
            let borrower = try #require(novel.value(forKey: "borrower") as? ManagedObject)
            #expect(borrower.value(forKey: "name") as? String == "Anne Elliot")
            #expect(borrower.value(forKey: "visits") as? Int64 == 0)
            #expect(try current.count(for: FetchRequest<ManagedObject>(entityName: "Bookcase")) == 0)
            let media = try #require(borrower.value(forKey: "media") as? NSOrderedSet)
            #expect((media.array as? [ManagedObject])?.compactMap { $0.value(forKey: "title") as? String } == ["Persuasion", "Emma"])
            borrower.setValue(NSOrderedSet(array: media.array.reversed()), forKey: "media")
            try current.save()
        }
        let reader = try Self.context(database.description, model: try Self.model())
        try reader.performAndWait {
            let borrower = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Borrower")).first)
            let media = try #require(borrower.value(forKey: "media") as? NSOrderedSet)
            #expect((media.array as? [ManagedObject])?.compactMap { $0.value(forKey: "title") as? String } == ["Emma", "Persuasion"])
        }
    }
}
