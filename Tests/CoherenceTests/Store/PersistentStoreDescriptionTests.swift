import Coherence
import Foundation
import Testing

/// `PersistentStoreDescription` reads as Core Data's `NSPersistentStoreDescription`:
/// https://developer.apple.com/documentation/coredata/nspersistentstoredescription
@Suite("Persistent store descriptions")
struct PersistentStoreDescriptionTests {
    // init(url:) describes an SQLite store; `type` and `url` are settable:
    // https://developer.apple.com/documentation/coredata/nspersistentstoredescription/init(url:)-ko0l
    // https://developer.apple.com/documentation/coredata/nspersistentstoredescription/type
    @Test func urlTypeAndTheirDefaults() throws {
        let url = TestFiles.newURL("Described.sqlite")
        let description = PersistentStoreDescription(url: url)
        #expect(description.type == SQLiteStoreType)
        #expect(description.url == url)
        #expect(description == .sqlite(url))

        description.type = InMemoryStoreType
        description.url = nil
        #expect(description.type == "InMemory")
        #expect(description == .inMemory)
        #expect(PersistentStoreDescription().type == SQLiteStoreType)
    }

    // setOption(_:forKey:) replaces a previous value; options reads them back:
    // https://developer.apple.com/documentation/coredata/nspersistentstoredescription/setoption(_:forkey:)
    // https://developer.apple.com/documentation/coredata/nspersistentstoredescription/options
    @Test func optionsAreSetReplacedAndRemoved() {
        let description = PersistentStoreDescription(url: TestFiles.newURL("Options.sqlite"))
        #expect(description.options.isEmpty)
        description.setOption(NSNumber(value: true), forKey: "NSPersistentHistoryTrackingKey")
        description.setOption(NSString(string: "first"), forKey: "Name")
        description.setOption(NSString(string: "second"), forKey: "Name")
        #expect(description.options == [
            "NSPersistentHistoryTrackingKey": NSNumber(value: true),
            "Name": NSString(string: "second"),
        ])
        description.setOption(nil, forKey: "Name")
        #expect(Array(description.options.keys) == ["NSPersistentHistoryTrackingKey"])
    }

    @Test func aDescriptionIsSharedLikeCoreDatasClass() throws {
        let container = PersistentContainer(name: "Shared", managedObjectModel: try TestStack.model())
        let url = TestFiles.newURL("Shared.sqlite")
        container.persistentStoreDescriptions.first?.url = url
        #expect(container.persistentStoreDescriptions.first?.url == url, "the container's own description changed")
        try container.loadPersistentStores()
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        #expect(store.url == url)
    }

    @Test func anInMemoryTypeLoadsAnInMemoryStore() throws {
        let container = PersistentContainer(name: "Memory", managedObjectModel: try TestStack.model())
        let description = PersistentStoreDescription()
        description.type = InMemoryStoreType
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == ["InMemory"])
    }

    /// Core Data users point an SQLite description at /dev/null for a store
    /// that lives in memory, in tests; Core Data opens an SQLite database in
    /// memory there (its type stays SQLite), one per store, nothing kept.
    @Test func devNullLoadsAnSQLiteStoreInMemory() throws {
        func container() throws -> PersistentContainer {
            let container = PersistentContainer(name: "Scratch", managedObjectModel: try TestStack.model())
            container.persistentStoreDescriptions.first?.url = URL(filePath: "/dev/null")
            try container.loadPersistentStores()
            return container
        }
        let first = try container()
        #expect(first.persistentStoreCoordinator.persistentStores.map(\.type) == [SQLiteStoreType])
        let context = first.newBackgroundContext()
        let count = try context.performAndWait {
            _ = Server(context: context)
            try context.save()
            return try context.count(for: FetchRequest<Server>())
        }
        #expect(count == 1)

        let second = try container().newBackgroundContext()
        #expect(try second.performAndWait { try second.count(for: FetchRequest<Server>()) } == 0, "each store is a database of its own")
        #expect(FileManager.default.fileExists(atPath: "/dev/null"), "nothing was written to or removed at /dev/null")
    }

    @Test func anUnsupportedTypeOrAMissingURLIsRefused() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        let binary = PersistentStoreDescription(url: TestFiles.newURL("Store.binary"))
        binary.type = "Binary"
        #expect(throws: StoreError.unsupportedStoreType("Binary")) { try coordinator.addPersistentStore(binary) }
        #expect(throws: StoreError.missingStoreURL) { try coordinator.addPersistentStore(PersistentStoreDescription()) }
        #expect(coordinator.persistentStores.isEmpty)
    }
}
