import Foundation
public import Coherence

/// A store in a PostgreSQL database, for servers that outgrow one SQLite
/// file: several processes on several machines share one object graph. It
/// keeps the same tables as `SQLiteStore` (in the configuration's schema)
/// and runs the same SQL, written once for both; what PostgreSQL spells
/// differently is kept in one place in Coherence's SQL layer.
///
/// ```swift
/// container.persistentStoreDescriptions = [.postgres(url: "postgres://app@db.internal:5432/zeader")]
/// ```
///
/// **Several processes.** Saves of several processes and machines run side
/// by side, each one `READ COMMITTED` transaction, with no schema-wide lock:
/// - primary keys come from a sequence per entity (`"<Entity>_Z_PK_seq"`,
///   see `SQLKeys`), which never waits for another transaction;
/// - rows are updated and deleted by table and key, each only if still at
///   the version this context read (`… AND "Z_OPT" = ?`): a row another
///   process saved since is a conflict; a save waits without a time limit
///   for another that holds the same rows;
/// - a conflict is resolved inside the transaction: the save is tried again
///   with its rows locked (`SELECT … FOR UPDATE`), the context's merge policy
///   resolves against them, and the result is written, so a merge policy
///   that resolves conflicting changes completes however many writers
///   contend (`.error` throws, and store trump and rollback refuse the
///   deletion of an object changed elsewhere, as on SQLite); the resolution
///   runs inside the save, so a merge policy or a validation method must not
///   save or run a batch request on the same coordinator;
/// - a uniqueness race (SQLSTATE 23505), a deadlock (40P01) or a
///   serialization failure (40001) rolls back and is tried again;
/// - persistent history takes its transaction number last, holding the
///   counter's row until commit, so numbers follow commit order with no gap.
///
/// Opening and migrating take `pg_advisory_xact_lock` on the schema, so
/// two processes never migrate one schema at once; an open that changes
/// nothing locks no table, while a migration's `ALTER TABLE`s, new indexes
/// and recount of derived attributes make other processes' saves wait. Reads run at `REPEATABLE
/// READ`, one committed state per request, and never wait for a save (only
/// for a migration's `ALTER TABLE`).
///
/// **Blocking calls.** Core Data's calls (`save()`, `fetch(_:)`, faults) are
/// synchronous; postgres-nio's are asynchronous. The store waits for
/// postgres-nio's futures on the calling thread (a context's queue, the main
/// thread, a task's thread), while postgres-nio's I/O runs on its own
/// event-loop threads, so a wait never blocks the loop it waits for. A call
/// made on one of those event-loop threads traps with a message instead of
/// deadlocking; call Coherence from a context's queue.
///
/// **Faults.** A connection the server closed is replaced by the next call;
/// a save whose connection fails throws and commits nothing (the context
/// keeps its changes, and the same save can be retried).
///
/// **Complexity:** as `SQLiteStore`, plus a round trip per statement: a
/// save of n new objects of one entity sends its rows as multi-row inserts
/// of up to 65,535 parameters each.
public final class PostgresStore: PersistentStore, AggregatingStore, PersistentHistoryStore, OrderedSaveResults, ConflictResolvingStore {
    /// The shared SQL store this one runs on.
    let store: SQLStore
    let connections: PostgresConnections
    /// Where the store is: server, database and schema.
    public let configuration: PostgresConfiguration
    public var identifier: String { store.identifier }
    public var type: String { PersistentStoreType.postgres.rawValue }

    /// Opens the store in `configuration`'s schema for `model`: creates its
    /// tables in an empty schema, opens an existing Coherence store, and
    /// migrates it lightweight as the SQLite store does, in one transaction.
    /// - Throws: `StoreError/serverUnreachable(host:port:reason:)` when no
    ///   connection can be made within the configuration's connect timeout;
    ///   `StoreError/notACoherenceStore(path:)` for a schema that holds
    ///   other tables; `StoreError/incompatibleModel(reason:)` for a model
    ///   that cannot be migrated (the database is then unchanged).
    ///
    /// With `persistentHistoryTracking`, saves and batch requests write
    /// persistent history (`PersistentStoreDescription.persistentHistoryTracking`).
    public init(configuration: PostgresConfiguration, model: ManagedObjectModel, persistentHistoryTracking: Bool = false) throws {
        self.configuration = configuration
        connections = try PostgresConnections(configuration: configuration)
        // A schema named in the URL is created as an SQLite file is (only
        // when missing: creating needs a privilege an application's role
        // may not have).
        try connections.writeExclusively { db in
            if try db.int64("SELECT COUNT(*) FROM pg_namespace WHERE nspname = ?", [.string(configuration.schema)]) == 0 {
                try db.execute("CREATE SCHEMA \(PostgresConnections.quoted(configuration.schema))", [])
            }
        }
        store = try SQLStore(connections: connections, dialect: .postgres, model: model, location: configuration.displayName,
                             persistentHistoryTracking: persistentHistoryTracking)
    }

    /// The hash of the model the store was last opened with.
    public func modelHash() throws -> String? {
        try store.modelHash()
    }

    /// How many read transactions the store ran (see `SQLiteStore/queryCount`).
    public var queryCount: Int { store.queryCount }

    /// How many rows the store's reads turned into snapshots.
    public var rowsRead: Int { store.rowsRead }

    /// How many round trips to the server the store's connections made:
    /// statements, and the transactions' `BEGIN` and `COMMIT`.
    public var roundTrips: Int { connections.roundTrips }

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

    package func save(_ request: StoreSaveRequest,
                      resolvingConflicts resolve: (StoreConflictError) throws -> StoreSaveRequest) throws -> StoreSaveResult {
        try withoutActuallyEscaping(resolve) { try store.save(request, resolvingConflicts: $0) }
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

    /// The server, database and schema, without the password.
    package var locationURL: URL { configuration.urlWithoutPassword }

    /// The listener of the store's remote changes, once started (for tests).
    package var changeSignal: PostgresChangeSignal? { signal.withLock { $0 } }
    private let signal = Locked<PostgresChangeSignal?>(nil)

    package func startWatchingRemoteChanges(wantsTransactions: @escaping @Sendable () -> Bool,
                                            handler: @escaping @Sendable (RemoteChanges) -> Void) throws {
        let listener = PostgresChangeSignal(connections: connections, channel: SQLHistorySchema.channel(storeIdentifier: identifier))
        if try store.startWatchingRemoteChanges(signal: listener, wantsTransactions: wantsTransactions, handler: handler) {
            signal.withLock { $0 = listener }
        }
    }

    package func stopWatchingRemoteChanges() {
        store.stopWatchingRemoteChanges()
    }

    package func aggregateRows(_ plan: AggregatePlan, predicate: (any StandardPredicateExpression<Bool>)?,
                               variable: PredicateExpressions.VariableID?) throws -> [[StoreValue]]? {
        try store.aggregateRows(plan, predicate: predicate, variable: variable)
    }
}

extension PostgresConfiguration {
    /// Where the store is, for messages: the URL without its password, and
    /// the schema.
    var displayName: String {
        "postgres://\(user)@\(host):\(port)/\(database) (schema \(schema))"
    }
}
