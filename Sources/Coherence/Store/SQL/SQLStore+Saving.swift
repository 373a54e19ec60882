import Foundation

/// A store that can hand a save's conflicts to the saving context inside
/// the transaction that found them, with the conflicting rows locked, so
/// that the resolved save cannot conflict again (the PostgreSQL store, whose
/// writers run beside each other). The context's merge policy then always
/// completes, however many writers contend.
package protocol ConflictResolvingStore: PersistentStore {
    /// Saves `request`; a conflict is passed to `resolve`, inside the
    /// transaction, which returns the request to write instead (or throws,
    /// and nothing is written).
    func save(_ request: StoreSaveRequest, resolvingConflicts resolve: (StoreConflictError) throws -> StoreSaveRequest) throws -> StoreSaveResult
}

// Saving: one transaction, tried again when another writer got in the way.
extension SQLStore {
    /// How many times a save is tried again after a deadlock, a
    /// serialization failure or a uniqueness race, before the error is
    /// thrown. Each of them means another writer committed or stepped
    /// aside; this many in a row means something else is wrong.
    static let transientRetries = 100

    package func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try save(request, resolvingConflicts: nil)
    }

    /// Saves `request` in one write transaction.
    ///
    /// **Conflicts.** The first attempt is optimistic: rows are written only
    /// if still at the version the save read. If one is not, and `resolve`
    /// is given, the save is tried again in a new transaction that first
    /// locks every row it updates or deletes (`SELECT … FOR UPDATE`, by table
    /// and key), hands the rows that changed to `resolve` (the context's
    /// merge policy), and writes the request it returns (locking the rows
    /// that adds): rows locked at the version the resolution saw cannot
    /// conflict again, so the save completes. Without `resolve`, a conflict
    /// throws ``StoreConflictError``.
    ///
    /// **Transient failures** (PostgreSQL): a deadlock (SQLSTATE 40P01), a
    /// serialization failure (40001), or a row that broke a uniqueness
    /// constraint's index (23505, another writer inserted the same values
    /// after this save checked them) roll the transaction back, and the save
    /// is tried again (up to ``transientRetries`` times); a uniqueness race
    /// is then seen by the check, as a ``StoreConstraintError``.
    package func save(_ request: StoreSaveRequest,
                      resolvingConflicts resolve: ((StoreConflictError) throws -> StoreSaveRequest)?) throws -> StoreSaveResult {
        var request = request
        var locking = false
        var retries = 0
        while true {
            do {
                return try write { db in
                    // Each resolved request is kept at once: a retry after a
                    // deadlock goes on from the latest resolution.
                    if locking, let resolve { try lockRows(of: &request, resolving: resolve, in: db) }
                    return try writeSave(request, in: db)
                }
            } catch is StoreConflictError where resolve != nil && !locking {
                locking = true
            } catch let error as StoreError where retries < Self.transientRetries && Self.isTransient(error, saving: request) {
                retries += 1
            }
        }
    }

    /// Runs `body` (one transaction) again after a deadlock or a
    /// serialization failure, up to ``transientRetries`` times: opening a
    /// store and recomputing derived values run beside other processes'
    /// saves on PostgreSQL.
    static func retryingDeadlocks<T>(_ body: () throws -> T) throws -> T {
        var retries = 0
        while true {
            do {
                return try body()
            } catch let error as StoreError where retries < transientRetries && isTransient(error, saving: StoreSaveRequest()) {
                retries += 1
            }
        }
    }

    /// Whether `error` is a failure that trying the save again resolves.
    static func isTransient(_ error: StoreError, saving request: StoreSaveRequest) -> Bool {
        guard case .postgres(let code, _, _) = error else { return false }
        switch code {
        case "40001", "40P01": return true
        case "23505":
            // Only a uniqueness constraint's index (`ZUNIQUE …`, named in
            // the message): any other duplicate (a primary key) would come
            // back every time.
            guard case .postgres(_, let message, _) = error, message.contains("ZUNIQUE ") else { return false }
            return request.inserted.contains { !$0.entity.uniquenessConstraints.isEmpty }
                || request.updated.contains { !$0.entity.uniquenessConstraints.isEmpty }
        default: return false
        }
    }

    /// Locks the rows `request` updates and deletes and, while some are not
    /// at the version the save read, hands those conflicts to `resolve` and
    /// goes on with the request it returns (stored in `request` at once).
    /// Ends with a request whose updated and deleted rows are locked at the
    /// versions it expects.
    ///
    /// A resolution that leaves the very same conflicts throws them, rather
    /// than asking again forever.
    /// **Complexity:** one `SELECT … FOR UPDATE` per entity and 500 rows, per round.
    private func lockRows(of request: inout StoreSaveRequest, resolving resolve: (StoreConflictError) throws -> StoreSaveRequest,
                          in db: any SQLDatabase) throws {
        var previous: [ManagedObjectID: Int64]?
        while true {
            let conflicts = try lockedConflicts(of: request, in: db)
            if conflicts.isEmpty { return }
            let found = Dictionary(conflicts.map { ($0.objectID, $0.current?.version ?? 0) }, uniquingKeysWith: { first, _ in first })
            if found == previous { throw StoreConflictError(conflicts: conflicts) }
            previous = found
            request = try resolve(StoreConflictError(conflicts: conflicts))
        }
    }

    /// Locks the rows `request` updates and deletes (by table, then key) and
    /// returns those not at the version it expects: an updated row gone or
    /// changed, a deleted row changed (one gone is no conflict).
    private func lockedConflicts(of request: StoreSaveRequest, in db: any SQLDatabase) throws -> [StoreConflictError.Conflict] {
        typealias Row = (id: ManagedObjectID, entity: EntityDescription, version: Int64, deleting: Bool)
        let rows: [Row] = (request.updated.map { ($0.objectID, $0.entity, $0.baseVersion, false) }
            + request.deleted.filter { $0.objectID.storeNumber == storeNumber }.map { ($0.objectID, $0.entity, $0.baseVersion, true) })
            .sorted { Self.lockOrder($0.id, $0.entity, $1.id, $1.entity) }
        var conflicts: [StoreConflictError.Conflict] = []
        var start = 0
        while start < rows.count {
            // A run of one entity, at most 500 rows: one statement.
            var end = start + 1
            while end < rows.count, end - start < 500, rows[end].entity === rows[start].entity { end += 1 }
            let run = rows[start..<end]
            let entity = run[run.startIndex].entity
            let key = SQLSchema.quote(SQLSchema.primaryKey)
            let lock = db.dialect == .postgres ? " FOR UPDATE" : ""
            let sql = "SELECT \(SQLSchema.selectList(entity, alias: "t0")) FROM \(SQLSchema.table(entity)) AS t0 WHERE t0.\(key) IN (\(placeholders(run.count))) ORDER BY t0.\(key)\(lock)"
            let current = Dictionary(try snapshots(db, sql, run.map { .integer($0.id.key) }, entity: entity).map { ($0.objectID.key, $0) },
                                     uniquingKeysWith: { first, _ in first })
            for row in run {
                let now = current[row.id.key]
                if row.deleting ? now.map({ $0.version != row.version }) ?? false : now?.version != row.version {
                    conflicts.append(.init(objectID: row.id, expectedVersion: row.version, current: try now.map { try withMembers($0, in: db) }))
                }
            }
            start = end
        }
        return conflicts
    }

    /// `snapshot` with its to-many relationships read in `db`'s transaction,
    /// so that the resolution reads nothing more from the store.
    private func withMembers(_ snapshot: Snapshot, in db: any SQLDatabase) throws -> Snapshot {
        let entity = try entity(of: snapshot.objectID)
        var values = Array(snapshot.values)
        var changed = false
        for relationship in entity.relationships where relationship.isToMany && values[relationship.index] == .toManyFault {
            let ids = try relatedObjectIDs(of: snapshot.objectID, entity: entity, relationship: relationship, in: db)
            values[relationship.index] = relationship.isOrdered ? .orderedObjectIDs(ids) : .objectIDs(Set(ids))
            changed = true
        }
        return changed ? Snapshot(objectID: snapshot.objectID, values: values, version: snapshot.version) : snapshot
    }
}
