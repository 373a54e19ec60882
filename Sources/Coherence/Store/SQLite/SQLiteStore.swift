import Foundation
internal import GRDB
internal import GRDBSQLite

/// The default store: one SQLite file in WAL mode, so reads run while a save
/// is writing. Saves are single transactions. Each entity is a table with its
/// primary key (`Z_PK`), a row version (`Z_OPT`), a column per attribute and
/// per to-one relationship, plus a join table per many-to-many relationship.
/// The PostgreSQL store (the `CoherencePostgres` library) keeps the same
/// tables and runs the same SQL: the two share one implementation.
///
/// Opening checks the file before writing anything: a file that is not an
/// SQLite database, an SQLite database that Coherence did not create, or a
/// store saved with a model that cannot be migrated throws a ``StoreError``
/// and leaves the file byte for byte as it was. A migratable model is
/// migrated in one transaction.
///
/// **Complexity:** reading one object is one indexed query; a save is one
/// transaction with one statement per changed object (plus join rows).
public final class SQLiteStore: PersistentStore, AggregatingStore, PersistentHistoryStore, OrderedSaveResults {
    /// The shared SQL store this one runs on.
    let store: SQLStore
    public var identifier: String { store.identifier }
    public var type: String { "SQLite" }
    /// The database file; `/dev/null` for a store in memory.
    public let url: URL
    /// The file's connection pool, or the in-memory database's queue.
    let database: any DatabaseWriter

    /// Opens (or creates) the store at `url` for `model`; with
    /// `persistentHistoryTracking`, saves and batch requests write persistent
    /// history (``PersistentStoreDescription/persistentHistoryTracking``).
    ///
    /// A `/dev/null` URL opens a new SQLite database in memory, as Core
    /// Data's SQLite store does: the same SQL, types and constraints as a
    /// file, nothing kept after the store closes, and no other writer to
    /// watch for remote changes.
    ///
    /// With `readOnly` (``PersistentStoreDescription/isReadOnly``), an
    /// existing store saved with `model` is opened without writing to it.
    /// - Throws: ``StoreError`` when the file cannot be used; it is then untouched.
    public init(url: URL, model: ManagedObjectModel, persistentHistoryTracking: Bool = false, readOnly: Bool = false) throws {
        self.url = url
        let inMemory = url.path == "/dev/null"
        if readOnly, !inMemory {
            guard try Self.inspect(url: url, model: nil, readOnly: true) != nil else {
                throw StoreError.readOnlyStore(path: url.path, reason: "there is no store there to open read-only")
            }
        } else if !inMemory {
            try Self.checkWritableFileSystem(url)
            _ = try Self.inspect(url: url, model: model)
        }
        let connections: any SQLConnections
        do {
            var configuration = Configuration()
            configuration.label = "Coherence.SQLiteStore"
            configuration.busyMode = .timeout(10)
            configuration.readonly = readOnly && !inMemory
            configuration.prepareDatabase { db in
                SQLiteFunctions.register(in: db)
                SQLiteCollations.register(in: db)
            }
            if inMemory {
                let queue = try DatabaseQueue(configuration: configuration)
                (database, connections) = (queue, SQLiteConnections(pool: queue))
            } else {
                if !readOnly { try Self.createDirectory(of: url) }
                let pool = try DatabasePool(path: readOnly ? try Self.readingPath(url) : url.path, configuration: configuration)
                (database, connections) = (pool, SQLiteConnections(pool: pool))
            }
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
        store = try SQLStore(connections: connections, dialect: .sqlite, model: model, location: url.path,
                             persistentHistoryTracking: persistentHistoryTracking, readOnly: readOnly)
    }

    /// Whether the database lives in memory (a `/dev/null` URL).
    var isInMemory: Bool { url.path == "/dev/null" }

    /// Reads an existing file without writing to it: its store identifier and
    /// the model it was saved with, or `nil` for a new (missing or empty) file.
    /// With a `model`, also checks that the file can be migrated to it.
    ///
    /// A database without tables is a new store: a store whose creation was
    /// interrupted (its schema is created in one transaction) leaves one. A
    /// hot rollback journal left by an interrupted write is rolled back, as
    /// SQLite does whenever it opens the file for writing, before the file
    /// is read.
    static func inspect(url: URL, model: ManagedObjectModel?, readOnly: Bool = false) throws -> (String, StoredModel)? {
        if !readOnly, hasRollbackJournal(url) {
            do {
                try rollBackHotJournal(url: url)
            } catch let error as DatabaseError {
                throw StoreError(error)
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError.invalidStoreURL(url.path, reason: "it names a directory, not a store file")
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = attributes[.size] as? Int, size > 0 else { return nil }
        // The file is read through SQLite only, which says SQLITE_NOTADB of
        // a file that is not a database: opening and closing it any other
        // way would release every POSIX lock this process holds on it (a
        // close releases the process's locks on the file, whichever
        // descriptor took them), and a connection of another process could
        // then checkpoint and delete the WAL under this one's readers
        // (https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_).
        do {
            return try readStoreRecords(url: url, model: model)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw StoreError.notASQLiteDatabase(path: url.path)
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// The store's identifier and model, read without writing; `nil` for a
    /// database without tables.
    private static func readStoreRecords(url: URL, model: ManagedObjectModel?) throws -> (String, StoredModel)? {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10) // another connection may be checkpointing
        configuration.prepareDatabase { db in SQLiteCollations.register(in: db) } // fetch indexes use them
        let queue = try DatabaseQueue(path: try readingPath(url), configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists(SQLSchema.metadataTableName) else {
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
                if tables == 0 { return nil }
                throw StoreError.notACoherenceStore(path: url.path)
            }
            let (identifier, old) = try SQLStore.storeRecords(in: SQLiteDatabase(db: db), location: url.path)
            if let model { _ = try SQLMigration(from: old, to: model) } // throws if it cannot be done
            return (identifier, old)
        }
    }

    /// Creates the store file's directory if missing.
    /// - Throws: ``StoreError/invalidStoreURL(_:reason:)`` saying why it cannot.
    private static func createDirectory(of url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw StoreError.invalidStoreURL(url.path, reason: "its directory \(url.deletingLastPathComponent().path) cannot be created: \(error.localizedDescription)")
        }
    }

    /// Whether an SQLite rollback journal (its header's magic number) lies
    /// beside the file: an interrupted write's, unless a writer holds it.
    private static func hasRollbackJournal(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path + "-journal") else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 8)) == Data([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])
    }

    /// Opens the file for writing once, so that SQLite rolls back the hot
    /// journal an interrupted write left (SQLite leaves a journal that a
    /// live writer holds alone), restoring the file's last committed state.
    /// A read-only connection cannot (SQLITE_READONLY_ROLLBACK).
    private static func rollBackHotJournal(url: URL) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
    }

    /// The hash of the model the store was last opened with.
    public func modelHash() throws -> String? {
        try store.modelHash()
    }

    /// How many read transactions the store ran: a way to spot N+1 access
    /// patterns (compare with `relationshipKeyPathsForPrefetching`).
    public var queryCount: Int { store.queryCount }

    /// How many rows the store's reads turned into snapshots: with
    /// ``queryCount``, a way to check that a fetch with a `fetchLimit` reads
    /// its window and not every row of the entity.
    public var rowsRead: Int { store.rowsRead }

    public func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        try store.snapshot(for: objectID)
    }

    public func snapshots(of entity: EntityDescription) throws -> [Snapshot] {
        try store.snapshots(of: entity)
    }

    public func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try store.relatedObjectIDs(of: objectID, relationship: relationship)
    }

    public func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        try store.permanentIDs(for: objectIDs, entities: entities)
    }

    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try store.save(request)
    }

    public func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? {
        try store.fetch(request)
    }

    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? {
        try store.fetchObjectIDs(request)
    }

    public func count(_ request: StoreFetchRequest) throws -> Int? {
        try store.count(request)
    }

    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        try store.snapshots(for: objectIDs)
    }

    public func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]] {
        try store.relatedSnapshots(of: objectIDs, relationship: relationship)
    }

    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult? {
        try store.execute(request)
    }

    package func execute(_ request: StoreBatchRequest, author: String?, contextName: String?) throws -> StoreBatchResult? {
        try store.execute(request, author: author, contextName: contextName)
    }

    /// Whether the store keeps persistent history.
    public var tracksPersistentHistory: Bool { store.tracksPersistentHistory }

    package func executeHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try store.executeHistory(request)
    }

    package func currentPersistentHistoryToken() throws -> PersistentHistoryToken {
        try store.currentPersistentHistoryToken()
    }

    package var locationURL: URL { url }

    package func startWatchingRemoteChanges(wantsTransactions: @escaping @Sendable () -> Bool,
                                            handler: @escaping @Sendable (RemoteChanges) -> Void) throws {
        // Nothing else can write to a database in memory, and it has no file to watch.
        guard !isInMemory else { return }
        try store.startWatchingRemoteChanges(signal: SQLiteChangeSignal(url: url), wantsTransactions: wantsTransactions, handler: handler)
    }

    package func stopWatchingRemoteChanges() {
        store.stopWatchingRemoteChanges()
    }

    package func aggregateRows(_ plan: AggregatePlan, predicate: (any StandardPredicateExpression<Bool>)?,
                               variable: PredicateExpressions.VariableID?) throws -> [[StoreValue]]? {
        try store.aggregateRows(plan, predicate: predicate, variable: variable)
    }
}

extension StoreError {
    /// A GRDB error, with its SQL.
    init(_ error: DatabaseError) {
        self = .sqlite(code: error.extendedResultCode.rawValue, message: error.message ?? "\(error)", sql: error.sql)
    }
}
