@testable import Coherence
import Foundation
import GRDB
import Testing

/// Files an interrupted creation leaves, and stores whose own records are
/// damaged: the reliability campaign (issue 28) found a kill while a new
/// store was being created leaving a file Coherence refused forever, and
/// damaged metadata reported as another application's tables or crashing.
/// An interrupted creation is a new store (the schema is created in one
/// transaction, so a file without tables is one); a hot rollback journal
/// is rolled back, as SQLite does on any open for writing
/// (https://www.sqlite.org/atomiccommit.html, "Hot Rollback Journals");
/// damaged records are a typed error naming what is wrong.
@Suite("Interrupted and damaged stores")
struct InterruptedAndDamagedStoreTests {
    private func coordinator(at url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(.sqlite(url))
        return coordinator
    }

    /// The store opens, saves and reopens with its object.
    private func expectUsableStore(at url: URL) throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator(at: url))
        try context.performAndWait {
            Server(context: context).name = "saved"
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator(at: url))
        let names = try reader.performAndWait { try reader.fetch(FetchRequest<Server>()).map(\.name) }
        #expect(names == ["saved"])
    }

    @Test func anEmptyWALDatabaseIsANewStore() throws {
        let url = TestFiles.newURL("interrupted.sqlite")
        do {
            let pool = try DatabasePool(path: url.path)
            try pool.write { db in try db.execute(sql: "CREATE TABLE scratch (x); DROP TABLE scratch") }
            try pool.close()
        }
        #expect(try Data(contentsOf: url).count > 0, "the file has pages but no table")
        try expectUsableStore(at: url)
    }

    @Test func aHotJournalIsRolledBackAndTheStoreOpens() throws {
        let source = TestFiles.newURL("writing.sqlite")
        let copy = TestFiles.newURL("killed.sqlite")
        let queue = try DatabaseQueue(path: source.path)
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 2")
            try db.execute(sql: "BEGIN IMMEDIATE; CREATE TABLE half (payload BLOB)")
            for _ in 0..<200 { try db.execute(sql: "INSERT INTO half VALUES (randomblob(4000))") }
            // A copy taken now is the file a kill leaves: pages written,
            // the journal holding the originals, no lock.
            try FileManager.default.copyItem(atPath: source.path, toPath: copy.path)
            try FileManager.default.copyItem(atPath: source.path + "-journal", toPath: copy.path + "-journal")
            try db.execute(sql: "ROLLBACK")
        }
        try queue.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy.path + "-journal")).count > 0, "a hot journal")
        try expectUsableStore(at: copy)
        let tables = try DatabaseQueue(path: copy.path).read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(!tables.contains("half"), "the interrupted transaction was rolled back")
    }

    /// Damaged records of a Coherence store, each refused with what is
    /// wrong, leaving the database as it was.
    @Test(arguments: StoreKind.databases) func damagedMetadataIsATypedError(store kind: StoreKind) throws {
        let cases: [(damage: String, reason: String)] = [
            ("DELETE FROM \"Z_METADATA\" WHERE key = 'storeUUID'", "its metadata table Z_METADATA has no store identifier"),
            ("DELETE FROM \"Z_METADATA\" WHERE key = 'model'", "its metadata table Z_METADATA has no model description"),
            ("UPDATE \"Z_METADATA\" SET value = 'garbage' WHERE key = 'model'", "its model description cannot be read"),
            ("DROP TABLE \"Server\"", "the table of its entity Server is missing"),
            // Found by the corrupt-file campaign: a column or join table
            // dropped by another program failed at the first relationship
            // fault that read it, stopping the program.
            ("ALTER TABLE \"Server\" DROP COLUMN \"name\"", "the table of its entity Server has no column name"),
            ("DROP TABLE \"Z_Article_tags\"", "the join table Z_Article_tags of Article.tags is missing"),
        ]
        for (damage, reason) in cases {
            let database = try TestDatabase.new(kind)
            _ = try database.coordinator()
            try database.execute(damage)
            let tables = try database.tableNames()
            #expect(performing: { try database.coordinator() }, throws: { error in
                guard case .damagedStore(database.location, let found)? = error as? StoreError else { return false }
                return found.hasPrefix(reason)
            })
            #expect(try database.tableNames() == tables, "\(damage): nothing changed")
        }
    }

    /// A model description naming an entity or a property twice (a file
    /// edited by hand) used to crash the open.
    @Test(arguments: StoreKind.databases) func aModelDescriptionWithDuplicatesIsATypedError(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [NoteV1.self]))
        try coordinator.addPersistentStore(database.description)
        var stored = StoredModel(try ManagedObjectModel(entities: [NoteV1.self]))
        stored.entities.append(stored.entities[0])
        let json = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
        try database.execute("UPDATE \"Z_METADATA\" SET value = '\(json)' WHERE key = 'model'")
        #expect(throws: StoreError.damagedStore(path: database.location, reason: "its model description names the entity Note twice")) {
            try database.coordinator([NoteV1.self])
        }
        stored.entities.removeLast()
        stored.entities[0].attributes.append(stored.entities[0].attributes[0])
        let twice = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        try database.execute("UPDATE \"Z_METADATA\" SET value = '\(twice)' WHERE key = 'model'")
        #expect(throws: StoreError.damagedStore(path: database.location, reason: "its model description names the property Note.body twice")) {
            try database.coordinator([NoteV1.self])
        }
    }

    /// A Codable value another program damaged is the fetch's typed error
    /// naming entity and property (the corrupt-file campaign found it
    /// trapping when the object was filled).
    @Test(arguments: StoreKind.databases) func aDamagedCodableValueIsATypedError(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let writer = try database.context()
        try writer.performAndWait {
            Sample(context: writer).code = "damaged"
            try writer.save()
        }
        try database.execute("UPDATE \"Sample\" SET \"address\" = \(kind == .postgres ? "'garbage'::bytea" : "'garbage'")")
        let reader = try database.context()
        #expect(performing: { try reader.performAndWait { try reader.fetch(FetchRequest<Sample>()) } }, throws: { error in
            guard case .invalidStoredValue("Sample", "address", _)? = error as? StoreError else { return false }
            return true
        })
        // An enumeration's integer raw value no case has (`Level` has 1 and 2).
        let other = try TestDatabase.new(kind)
        let saver = try other.context()
        try saver.performAndWait {
            Sample(context: saver).code = "damaged"
            try saver.save()
        }
        try other.execute("UPDATE \"Sample\" SET \"level\" = 5")
        let otherReader = try other.context()
        #expect(performing: { try otherReader.performAndWait { try otherReader.fetch(FetchRequest<Sample>()) } }, throws: { error in
            guard case .invalidStoredValue("Sample", "level", _)? = error as? StoreError else { return false }
            return true
        })
    }

    /// SQLite's result codes a user can act on are said in words.
    @Test func sqliteErrorsSayWhatIsWrong() {
        #expect(StoreError.sqlite(code: 13, message: "database or disk is full", sql: nil).description
                == "SQLite error 13 (the disk is full): database or disk is full")
        #expect(StoreError.sqlite(code: 776, message: "attempt to write a readonly database", sql: nil).description.contains("the store is read-only"))
        #expect(StoreError.sqlite(code: 1, message: "no such table: x", sql: nil).description == "SQLite error 1: no such table: x")
    }
}

/// The primary-key counter of an entity at its end (a file another program
/// edited, or 2^63 inserts): the next insert is refused with a typed error
/// naming the entity, and nothing is written (issue 28 found a trap).
@Suite("Primary keys at their end")
struct PrimaryKeyExhaustionTests {
    @Test(arguments: StoreKind.databases) func anExhaustedCounterIsATypedError(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        _ = try database.coordinator()
        // SQLite's key counter, PostgreSQL's key sequence (see SQLKeys).
        let counter = kind == .sqlite ? "Z_PRIMARYKEY.max" : "Server_Z_PK_seq"
        if kind == .sqlite {
            try database.execute("UPDATE \"Z_PRIMARYKEY\" SET max = 9223372036854775806 WHERE entity = 'Server'")
        } else {
            try database.execute("SELECT setval('\"Server_Z_PK_seq\"', 9223372036854775806)")
        }
        let context = try database.context()
        try context.performAndWait {
            Server(context: context).name = "last"
            try context.save()
            #expect(try context.fetch(FetchRequest<Server>()).first?.objectID.primaryKey == Int64.max)
            Server(context: context).name = "one too many"
            #expect(performing: { try context.save() }, throws: { error in
                guard case .invalidStoredValue("Server", counter, let reason)? = error as? StoreError else { return false }
                return reason.contains("9223372036854775807")
            })
            #expect(context.hasChanges, "the context keeps its changes")
        }
        let reader = try database.context()
        #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Server>()) } == 1)
    }
}
