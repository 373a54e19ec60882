@testable import Coherence
import Foundation
import GRDB
import Testing

@Suite("SQLite store")
struct SQLiteStoreTests {
    private func coordinator(at url: URL, entities: [ManagedObject.Type] = TestStack.entities) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: entities))
        try coordinator.addPersistentStore(.sqlite(url))
        return coordinator
    }

    private func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test func schemaFollowsTheModel() throws {
        let url = TestFiles.newURL("schema.sqlite")
        let coordinator = try coordinator(at: url)
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        try store.database.read { db in
            let serverColumns = try db.columns(in: "Server").map(\.name)
            #expect(serverColumns == ["Z_PK", "Z_OPT", "name", "unreadCount"])
            #expect(try db.columns(in: "FeedItem").map(\.name) == ["Z_PK", "Z_OPT", "title", "read", "server"])
            #expect(try db.indexes(on: "FeedItem").contains { $0.columns == ["server"] }, "to-one columns are indexed")
            #expect(try db.tableExists("Z_Article_tags"), "many-to-many gets a join table")
            #expect(try db.indexes(on: "Z_Article_tags").contains { $0.columns == ["destination"] })
            #expect(try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'storeUUID'") == store.identifier)
            #expect(try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'modelHash'") != nil)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
        }
    }

    @Test func dataSurvivesReopeningAndVersionsCount() throws {
        let url = TestFiles.newURL("reopen.sqlite")
        let (serverID, articleID): (ManagedObjectID, ManagedObjectID)
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator(at: url))
            (serverID, articleID) = try context.performAndWait {
                let server = Server(context: context)
                server.name = "kept"
                for title in ["one", "two"] {
                    let item = FeedItem(context: context)
                    item.title = title
                    item.server = server
                }
                let article = Article(context: context)
                let tags = ["swift", "linux"].map { label in
                    let tag = Tag(context: context)
                    tag.label = label
                    return tag
                }
                article.tags = Set(tags)
                try context.save()
                server.name = "kept and renamed"
                try context.save()
                return (server.objectID, article.objectID)
            }
        }
        let coordinator = try coordinator(at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let server = try #require(try context.existingObject(with: serverID) as? Server)
            #expect(server.name == "kept and renamed")
            #expect(Set(server.feedItems.map(\.title)) == ["one", "two"])
            let article = try #require(try context.existingObject(with: articleID) as? Article)
            #expect(Set(article.tags.map(\.label)) == ["swift", "linux"])
            #expect(article.tags.allSatisfy { $0.articles == [article] })
        }
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        let version = try store.database.read { db in
            try Int64.fetchOne(db, sql: "SELECT Z_OPT FROM Server WHERE Z_PK = ?", arguments: [serverID.primaryKey])
        }
        #expect(version == 2, "inserted at version 1, saved once more")
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUntouched() throws {
        let url = TestFiles.newURL("notes.sqlite")
        let original = Data("These are my notes, not a database.\n".utf8)
        try original.write(to: url)
        #expect(throws: StoreError.notASQLiteDatabase(path: url.path)) { try coordinator(at: url) }
        #expect(try bytes(url) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["notes.sqlite"],
                "no -wal or -shm file was created")
    }

    @Test func anSQLiteFileOfAnotherApplicationIsRefusedAndLeftUntouched() throws {
        let url = TestFiles.newURL("other.sqlite")
        do {
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)") }
            try queue.close()
        }
        let original = try bytes(url)
        #expect(throws: StoreError.notACoherenceStore(path: url.path)) { try coordinator(at: url) }
        #expect(try bytes(url) == original)
    }

    @Test func aModelThatCannotBeMigratedIsRefusedAndTheFileLeftUntouched() throws {
        let url = TestFiles.newURL("typed.sqlite")
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue,
                                               persistentStoreCoordinator: try coordinator(at: url, entities: [NoteV1.self]))
            try context.performAndWait {
                NoteV1(context: context).body = "hello"
                try context.save()
            }
        }
        let original = try bytes(url)
        #expect(throws: StoreError.incompatibleModel(reason: "Note.body changed type from string to integer64")) {
            try coordinator(at: url, entities: [NoteRetyped.self])
        }
        #expect(try bytes(url) == original)
    }

    @Test func lightweightMigrationAddsRemovesAndRenames() throws {
        let url = TestFiles.newURL("migrate.sqlite")
        do {
            let context = ManagedObjectContext(concurrencyType: .privateQueue,
                                               persistentStoreCoordinator: try coordinator(at: url, entities: [NoteV1.self, Scrap.self]))
            try context.performAndWait {
                let note = NoteV1(context: context)
                note.body = "migrate me"
                note.obsolete = 3
                _ = Scrap(context: context)
                try context.save()
            }
        }
        let coordinator = try coordinator(at: url, entities: [NoteV2.self, Folder.self])
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<NoteV2>())
            #expect(notes.count == 1)
            #expect(notes.first?.text == "migrate me", "body was renamed to text")
            #expect(notes.first?.pinned == true, "a new attribute takes its initial value")
            #expect(notes.first?.subtitle == nil, "a new optional attribute is nil")
            #expect(notes.first?.folder == nil)
            let folder = Folder(context: context)
            notes.first?.folder = folder
            try context.save()
            #expect(folder.notes == Set(notes))
        }
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        let (scrapExists, columns) = try store.database.read { db in
            (try db.tableExists("Scrap"), try db.columns(in: "Note").map(\.name))
        }
        #expect(!scrapExists, "the removed entity's table is gone")
        #expect(columns == ["Z_PK", "Z_OPT", "text", "pinned", "subtitle", "folder"])
    }

    @Test func aSaveThatFailsInTheMiddleLeavesFileAndContextAsTheyWere() throws {
        let url = TestFiles.newURL("atomic.sqlite")
        let coordinator = try coordinator(at: url)
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let server = try context.performAndWait {
            let server = Server(context: context)
            server.name = "committed"
            try context.save()
            return server
        }
        // A constraint the model does not know about fails the third insert.
        try store.database.write { db in
            try db.execute(sql: "CREATE TRIGGER poison BEFORE INSERT ON FeedItem WHEN NEW.title = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END")
        }
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            server.name = "renamed"
            for title in ["fine", "also fine", "poison", "never reached"] {
                let item = FeedItem(context: context)
                item.title = title
                item.server = server
            }
            context.processPendingChanges()
            log.clear()
            let error = try #require(throws: StoreError.self) { try context.save() }
            guard case .sqlite(_, let message, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(message.contains("poisoned row"))
            #expect(log.saves.isEmpty, "no didSave for a failed save")
            #expect(server.isUpdated && server.name == "renamed", "the context keeps its changes")
            #expect(context.insertedObjects.count == 4)
            #expect(context.insertedObjects.allSatisfy { $0.objectID.isTemporaryID })
        }
        let (items, name) = try store.database.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM FeedItem") ?? -1,
             try String.fetchOne(db, sql: "SELECT name FROM Server"))
        }
        #expect(items == 0 && name == "committed", "nothing of the failed save reached the store")
    }

    /// A column holding what its property cannot take (a file written by
    /// other software) is a typed error naming the entity and the property;
    /// `refresh` of an object it cannot read leaves the object as it is
    /// instead of taking the row for deleted.
    @Test func aValueOfTheWrongKindInTheFileIsATypedError() throws {
        let context = try TestStack.context(.sqlite)
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        let item = try context.performAndWait {
            let item = FeedItem(context: context)
            item.title = "kept"
            item.server = Server(context: context)
            try context.save()
            return item
        }
        try store.database.write { db in try db.execute(sql: "UPDATE FeedItem SET server = 'not a key'") }
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        other.performAndWait {
            #expect(throws: StoreError.invalidStoredValue(entity: "FeedItem", property: "server",
                                                          reason: "a to-one relationship's column holds a row key, found something else")) {
                try other.fetch(FetchRequest<FeedItem>())
            }
        }
        context.performAndWait {
            item.title = "unsaved"
            context.refresh(item, mergeChanges: true)
            #expect(item.managedObjectContext === context && !item.isFault && item.title == "unsaved",
                    "an unreadable row is not a deleted one")
        }
    }

    @Test func readersAreNotBlockedByAWritingSave() async throws {
        let url = TestFiles.newURL("wal.sqlite")
        let coordinator = try coordinator(at: url)
        let store = try #require(coordinator.persistentStores.first as? SQLiteStore)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try writer.performAndWait {
            Server(context: writer).name = "committed"
            try writer.save()
        }
        // Hold the write lock with an open transaction, then read through a context.
        let holding = AsyncSignal()
        let release = AsyncSignal()
        let blocker = Task.detached {
            try await store.database.write { db in
                try db.execute(sql: "UPDATE Server SET name = 'uncommitted'")
                holding.fire()
                release.waitBlocking()
            }
        }
        await holding.wait()
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let names = try await reader.perform { try reader.fetch(FetchRequest<Server>()).map(\.name) }
        #expect(names == ["committed"], "the read ran during the write and saw the committed state")
        release.fire()
        try await blocker.value
    }
}

/// A one-shot signal usable from synchronous and asynchronous code.
final class AsyncSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var fired = false

    func fire() {
        condition.lock()
        fired = true
        condition.broadcast()
        condition.unlock()
    }

    func waitBlocking() {
        condition.lock()
        while !fired { condition.wait() }
        condition.unlock()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.waitBlocking()
                continuation.resume()
            }
        }
    }
}

// Versions of one entity, for migration tests.

final class NoteV1: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var body = ""
    @Attribute var obsolete = 0
}

final class NoteRetyped: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var body = 0
    @Attribute var obsolete = 0
}

final class NoteV2: ManagedObject {
    override class var entityName: String { "Note" }
    override class var propertyRenamingIdentifiers: [String: String] { ["text": "body"] }
    @Attribute var text = ""
    @Attribute var pinned = true
    @Attribute var subtitle: String?
    @Relationship(inverse: \Folder.notes) var folder: Folder?
}

final class Folder: ManagedObject {
    @Relationship var notes: Set<NoteV2>
}

final class Scrap: ManagedObject {
    @Attribute var junk = ""
}
