@testable import Coherence
import Foundation
import Testing

/// Opening a database store again, refusing a database that is not a store
/// or a model that cannot be migrated (leaving it unchanged), and
/// lightweight migration: the same for an SQLite file and a PostgreSQL schema.
///
/// Core Data refuses a store whose model is incompatible when loading it
/// (`NSPersistentStoreIncompatibleVersionHashError`) and migrates
/// lightweight when asked to (on by default for `NSPersistentContainer`):
/// https://developer.apple.com/documentation/coredata/using-lightweight-migration
@Suite("Opening database stores")
struct StoreOpeningTests {
    @Test(arguments: StoreKind.databases)
    func reopeningGivesTheSameStoreAndItsObjects(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let first = try database.coordinator()
        let identifier = try #require(first.persistentStores.first?.identifier)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: first)
        let serverID = try context.performAndWait {
            let server = Server(context: context)
            server.name = "kept"
            server.unreadCount = 3
            for title in ["one", "two"] {
                let item = FeedItem(context: context)
                item.title = title
                item.server = server
            }
            try context.save()
            return server.objectID
        }
        let tables = try database.tableNames()
        #expect(tables.contains("Z_METADATA") && tables.contains("Z_PRIMARYKEY") && tables.contains("Server"))

        let container = PersistentContainer(name: "Reopened", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [database.description]
        try container.loadPersistentStores()
        #expect(container.persistentStoreCoordinator.persistentStores.first?.identifier == identifier)
        #expect(try database.tableNames() == tables, "opening an up-to-date store changes no table")
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let server = try #require(try reader.existingObject(with: serverID) as? Server)
            #expect(server.name == "kept" && server.unreadCount == 3)
            #expect(Set(server.feedItems.map(\.title)) == ["one", "two"])
            #expect(try reader.count(for: FetchRequest<FeedItem>()) == 2)
        }
    }

    @Test(arguments: StoreKind.databases)
    func aDatabaseOfAnotherApplicationIsRefusedAndLeftUnchanged(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        try database.execute("CREATE TABLE users (id INTEGER)")
        try database.execute("INSERT INTO users (id) VALUES (7)")
        #expect(throws: StoreError.notACoherenceStore(path: database.location)) { try database.coordinator() }
        #expect(try database.tableNames() == ["users"], "no Coherence table was created")
        #expect(try database.int64s("SELECT id FROM users") == [7])
    }

    @Test(arguments: StoreKind.databases)
    func aModelThatCannotBeMigratedIsRefusedAndTheDatabaseLeftUnchanged(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = try database.context([NoteV1.self])
        try context.performAndWait {
            NoteV1(context: context).body = "hello"
            try context.save()
        }
        let tables = try database.tableNames()
        let columns = try database.columnNames("Note")
        #expect(throws: StoreError.incompatibleModel(reason: "Note.body changed type from string to integer64")) {
            try database.coordinator([NoteRetyped.self])
        }
        #expect(try database.tableNames() == tables)
        #expect(try database.columnNames("Note") == columns)
        let reader = try database.context([NoteV1.self])
        let bodies = try reader.performAndWait { try reader.fetch(FetchRequest<NoteV1>()).map(\.body) }
        #expect(bodies == ["hello"], "the old model still reads the old rows")
    }

    @Test(arguments: StoreKind.databases)
    func lightweightMigrationAddsRemovesAndRenamesKeepingTheRows(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let old = try database.context([NoteV1.self, Scrap.self])
        let identifier = try old.performAndWait {
            let note = NoteV1(context: old)
            note.body = "migrate me"
            note.obsolete = 3
            _ = Scrap(context: old)
            try old.save()
            return try #require(old.persistentStoreCoordinator?.persistentStores.first?.identifier)
        }
        let coordinator = try database.coordinator([NoteV2.self, Folder.self])
        #expect(coordinator.persistentStores.first?.identifier == identifier, "a migrated store keeps its identifier")
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<NoteV2>())
            #expect(notes.count == 1)
            #expect(notes.first?.text == "migrate me", "body was renamed to text")
            #expect(notes.first?.pinned == true, "a new attribute takes its initial value")
            #expect(notes.first?.subtitle == nil, "a new optional attribute is nil")
            notes.first?.subtitle = "added later"
            let folder = Folder(context: context)
            notes.first?.folder = folder
            try context.save()
        }
        #expect(!(try database.tableNames().contains("Scrap")), "the removed entity's table is gone")
        #expect(try database.columnNames("Note") == ["Z_PK", "Z_OPT", "text", "pinned", "subtitle", "folder"])
        let reader = try database.context([NoteV2.self, Folder.self])
        try reader.performAndWait {
            let note = try #require(try reader.fetch(FetchRequest<NoteV2>()).first)
            #expect(note.text == "migrate me" && note.subtitle == "added later")
            #expect(note.folder?.notes == [note])
        }
    }
}
