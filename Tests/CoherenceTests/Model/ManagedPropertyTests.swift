@testable import Coherence
import Foundation
import Observation
import Testing

// Xcode's generated `+CoreDataClass.swift` and `+CoreDataProperties.swift`
// for two entities of `Fixtures/Library.xcdatamodeld`, ported by renaming
// `@NSManaged` to `@Managed`, `NSManagedObject` to `ManagedObject` and
// `NSFetchRequest` to `FetchRequest`, and deleting the generated to-many
// accessor functions.

public class Bookcase: ManagedObject {}

extension Bookcase {
    @nonobjc public class func fetchRequest() -> FetchRequest<Bookcase> {
        FetchRequest<Bookcase>(entityName: "Bookcase")
    }

    @Managed public var label: String?
    @Managed public var novels: NSSet?
}

// The extension Xcode generates with `addToNovels(_:)` and
// `removeFromNovels(_:)` is deleted: `@Managed var novels` generates them.

extension Novel {
    @nonobjc public class func fetchRequest() -> FetchRequest<Novel> {
        FetchRequest<Novel>(entityName: "Novel")
    }

    @Managed public var pages: Int32
    @Managed public var signed: Bool
    @Managed public var bookcase: Bookcase?
    @Managed public var title: String?
    @Managed public var price: NSDecimalNumber?
    @Managed public var year: Int16
    @Managed public var borrower: ManagedObject?
    /// Core Data's primitive accessor for `title`.
    @Managed private var primitiveTitle: String?

    /// Sets the title without recording a change, as Core Data code does
    /// with a primitive accessor.
    func stampTitle(_ title: String) { primitiveTitle = title }
    var storedTitle: String? { primitiveTitle }
}

// Borrower+CoreDataClass.swift and Recording+CoreDataClass.swift, with
// their properties; Recording, like Novel, has the non-entity base class
// LibraryRecord. `media` is ordered in version 2 of the model.

public class Borrower: ManagedObject {}

extension Borrower {
    @Managed public var name: String
    @Managed public var visits: Int64
    @Managed public var nickname: String?
    @Managed public var media: NSOrderedSet?
}

final class Recording: LibraryRecord {}

extension Recording {
    @Managed public var title: String?
    @Managed public var minutes: Double
    @Managed public var borrowerName: String?
    @Managed public var borrower: Borrower?
}

/// `@Managed` properties and accessors, declared in extensions as Xcode
/// generates them, on every store.
@Suite("@Managed properties")
struct ManagedPropertyTests {
    static func context(_ kind: StoreKind) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel(contentsOf: ModelFileTests.library, classes: [Novel.self, Bookcase.self])
        return try ModelFileTests.context(try kind.makeDescription(), model: model)
    }

    /// Reads and writes through the generated properties: Swift types as
    /// the model has them, Xcode's scalar and Foundation types, to-one and
    /// to-many relationships, with the model's defaults.
    /// <https://developer.apple.com/documentation/coredata/nsmanaged>
    @Test(arguments: StoreKind.allCases) func generatedPropertiesReadAndWrite(store kind: StoreKind) throws {
        let context = try Self.context(kind)
        try context.performAndWait {
            let novel = Novel(context: context)
            // The model's defaults: year 2000, pages 0, not signed, no title.
            #expect(novel.year == 2000 && novel.pages == 0 && novel.signed == false && novel.title == nil)
            #expect(novel.price == NSDecimalNumber(string: "0.0"))
            novel.title = "Emma"
            novel.pages = 474
            novel.signed = true
            novel.price = NSDecimalNumber(string: "9.99")
            let bookcase = Bookcase(context: context)
            bookcase.label = "Austen"
            novel.bookcase = bookcase
            #expect(bookcase.novels?.count == 1)
            try context.save()
            #expect(!novel.hasChanges)
            // A write through the property is a tracked change.
            novel.pages = 475
            #expect(novel.changedValues().keys.sorted() == ["pages"])
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
        try reader.performAndWait {
            let novel = try #require(try reader.fetch(Novel.fetchRequest()).first)
            #expect(novel.title == "Emma" && novel.pages == 475 && novel.signed && novel.year == 2000)
            #expect(novel.price == NSDecimalNumber(string: "9.99"))
            #expect(novel.bookcase?.label == "Austen")
            #expect(novel.borrower == nil)
            novel.title = nil
            #expect(novel.title == nil && novel.value(forKey: "title") == nil)
        }
    }

    /// The generated to-many accessors add and remove one object or a set,
    /// keeping the inverse in step.
    @Test(arguments: StoreKind.allCases) func generatedToManyAccessors(store kind: StoreKind) throws {
        let context = try Self.context(kind)
        try context.performAndWait {
            let bookcase = Bookcase(context: context)
            let (emma, persuasion, sanditon) = (Novel(context: context), Novel(context: context), Novel(context: context))
            bookcase.addToNovels(emma)
            bookcase.addToNovels(NSSet(array: [persuasion, sanditon]))
            #expect(bookcase.novels?.count == 3)
            #expect(sanditon.bookcase === bookcase)
            bookcase.removeFromNovels(sanditon)
            bookcase.removeFromNovels(NSSet(array: [emma]))
            #expect(bookcase.novels?.allObjects.compactMap { $0 as? Novel } == [persuasion])
            #expect(sanditon.bookcase == nil && emma.bookcase == nil && persuasion.bookcase === bookcase)
            try context.save()
            // An `NSSet?` set to `nil` empties the relationship.
            bookcase.novels = nil
            #expect(bookcase.novels?.count == 0 && persuasion.bookcase == nil)
            bookcase.novels = NSSet(array: [persuasion])
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
        try reader.performAndWait {
            let bookcase = try #require(try reader.fetch(Bookcase.fetchRequest()).first)
            #expect(bookcase.novels?.count == 1)
        }
    }

    /// An ordered relationship to an abstract entity's sub-entities
    /// (`Borrower.media`: novels and recordings) through Xcode's generated
    /// accessors, with the derived `borrowerName` following it; the order
    /// is saved and read back on every store.
    @Test(arguments: StoreKind.allCases) func orderedAccessorsAcrossSubentities(store kind: StoreKind) throws {
        let model = try ManagedObjectModel(contentsOf: ModelFileTests.library, classes: [Novel.self, Bookcase.self, Borrower.self, Recording.self])
        let context = try ModelFileTests.context(try kind.makeDescription(), model: model)
        try context.performAndWait {
            let ada = Borrower(context: context)
            ada.name = "Ada"
            // Keys in the reverse of the order saved below (one save each), so
            // that a lost order (read back by key) cannot pass for it.
            let emma = Novel(context: context)
            emma.title = "Emma"
            try context.save()
            let persuasion = Novel(context: context)
            persuasion.title = "Persuasion"
            try context.save()
            let goldberg = Recording(context: context)
            goldberg.title = "Goldberg Variations"
            ada.addToMedia(emma)
            ada.insertIntoMedia(goldberg, at: 0)
            ada.insertIntoMedia([persuasion], at: NSIndexSet(index: 1))
            #expect(ada.media?.array.compactMap { ($0 as? ManagedObject)?.value(forKey: "title") as? String }
                    == ["Goldberg Variations", "Persuasion", "Emma"])
            #expect(goldberg.borrower === ada && emma.borrower === ada)
            context.processPendingChanges()
            #expect(goldberg.borrowerName == "Ada")
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
        try reader.performAndWait {
            let ada = try #require(try reader.fetch(FetchRequest<Borrower>(entityName: "Borrower")).first)
            #expect(ada.media?.array.compactMap { ($0 as? ManagedObject)?.value(forKey: "title") as? String }
                    == ["Goldberg Variations", "Persuasion", "Emma"])
            #expect((ada.media?.firstObject as? Recording)?.minutes == 0)
            ada.removeFromMedia(at: 0)
            try reader.save()
        }
        let second = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
        try second.performAndWait {
            let ada = try #require(try second.fetch(FetchRequest<Borrower>(entityName: "Borrower")).first)
            #expect(ada.media?.array.compactMap { ($0 as? ManagedObject)?.value(forKey: "title") as? String } == ["Persuasion", "Emma"])
            #expect(try second.count(for: FetchRequest<Recording>(entityName: "Recording")) == 1)
        }
    }

    /// A primitive accessor (`primitiveTitle` for `title`) changes the
    /// value without recording a change, as Core Data's does.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/setprimitivevalue(_:forkey:)>
    @Test func primitiveAccessorsRecordNoChange() throws {
        let context = try Self.context(.inMemory)
        try context.performAndWait {
            let novel = Novel(context: context)
            novel.title = "Lady Susan"
            try context.save()
            novel.stampTitle("Lady Susan, revised")
            #expect(novel.storedTitle == "Lady Susan, revised" && novel.title == "Lady Susan, revised")
            #expect(!novel.hasChanges)
        }
    }

    /// Observation tracks `@Managed` properties one by one: a read
    /// registers the property it read, and only a write of that property
    /// (through `@Managed` or by key) reports a change.
    @Test func observationSeesManagedWrites() throws {
        let context = try Self.context(.inMemory)
        try context.performAndWait {
            context.isObservationEnabled = true
            let novel = Novel(context: context)
            try context.save()
            let changes = Locked(0)
            func track() {
                withObservationTracking { _ = novel.pages } onChange: { changes.withLock { $0 += 1 } }
            }
            track()
            novel.title = "Emma"
            novel.signed = true
            #expect(changes.withLock { $0 } == 0, "writes of other properties are not changes of pages")
            novel.pages = 12
            #expect(changes.withLock { $0 } == 1)
            track()
            novel.setValue(Int32(13), forKey: "pages")
            #expect(changes.withLock { $0 } == 2, "a write by key is seen by a @Managed read")
            #expect(novel.pages == 13)
        }
    }
}

/// Fetches find `@Managed` properties by name, as Core Data code names
/// them (`NSPredicate(format:)`, `NSSortDescriptor(key:ascending:)`), and
/// by key path (`#Predicate`, `SortDescriptor(\.title)`, as
/// `NSSortDescriptor(keyPath:ascending:)` does): Swift gives no way to name
/// a `@Managed` property from its key path, so the SQL stores leave such a
/// predicate or sort to the context, which evaluates it on objects with
/// the same results.
@Suite("@Managed properties in fetches")
struct ManagedPropertyFetchTests {
    @Test(arguments: StoreKind.allCases) func fetchesFindManagedPropertiesByNameAndKeyPath(store kind: StoreKind) throws {
        let context = try ManagedPropertyTests.context(kind)
        try context.performAndWait {
            let shelf = Bookcase(context: context)
            shelf.label = "Austen"
            for (title, pages) in [("Sense", Int32(2)), ("Emma", 1), ("Lady Susan", 0)] {
                let novel = Novel(context: context)
                novel.title = title
                novel.pages = pages
                if pages > 0 { novel.bookcase = shelf }
            }
            try context.save()
            let request = FetchRequest<Novel>(predicate: Predicate<Novel>(format: "pages > %d", 0), sortBy: [SortDescriptor(key: "title")])
            #expect(try context.fetch(request).map(\.title) == ["Emma", "Sense"])

            // Key paths, in a predicate, through a to-one relationship, in
            // a sort, in a count and in a windowed fetch.
            let typed = FetchRequest<Novel>(predicate: #Predicate { $0.pages > 0 }, sortBy: [SortDescriptor(\.pages, order: .reverse)])
            #expect(try context.fetch(typed).map(\.title) == ["Sense", "Emma"])
            #expect(try context.count(for: typed) == 2)
            typed.fetchLimit = 1
            #expect(try context.fetch(typed).map(\.title) == ["Sense"])
            let shelved = FetchRequest<Novel>(predicate: #Predicate { $0.bookcase?.label == "Austen" }, sortBy: [SortDescriptor(\.title)])
            #expect(try context.fetch(shelved).map(\.title) == ["Emma", "Sense"])

            // An unsaved change is seen, as with any fetch.
            shelf.label = "Shelved"
            #expect(try context.fetch(shelved).isEmpty)
        }
    }
}
