import Foundation
internal import GRDB
internal import GRDBSQLite

// Saving: reserving primary keys and writing a save's rows in one transaction.
extension SQLiteStore {
    // MARK: Writing

    public func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        try write { db in
            let temporary = zip(objectIDs, entities).filter { $0.0.isTemporaryID }
            let mapping = try reserveKeys(for: temporary, in: db)
            return objectIDs.map { mapping[$0] ?? $0 }
        }
    }

    /// Takes `count` consecutive primary keys of `entity` from
    /// `Z_PRIMARYKEY` in one statement.
    func reserveKeys(_ count: Int, for entity: EntityDescription, in db: Database) throws -> [ManagedObjectID] {
        guard count > 0 else { return [] }
        let last = try Int64.fetchOne(db.cachedStatement(
            sql: "UPDATE \(SQLiteSchema.primaryKeyTable) SET max = max + ? WHERE entity = ? RETURNING max"),
            arguments: [count, entity.rootEntity.name])
        guard let last else { throw StoreError.unknownEntity(entity.name) }
        return (last - Int64(count) + 1 ... last).map {
            makeObjectID(entity.managedObjectClass, key: $0)
        }
    }

    /// Permanent IDs for temporary ones: one key range per entity.
    func reserveKeys(for temporary: [(ManagedObjectID, EntityDescription)], in db: Database) throws -> [ManagedObjectID: ManagedObjectID] {
        var byEntity: [ObjectIdentifier: (entity: EntityDescription, ids: [ManagedObjectID])] = [:]
        for (id, entity) in temporary {
            byEntity[ObjectIdentifier(entity), default: (entity, [])].ids.append(id)
        }
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        mapping.reserveCapacity(temporary.count)
        for (entity, ids) in byEntity.values {
            for (temporaryID, permanentID) in zip(ids, try reserveKeys(ids.count, for: entity, in: db)) {
                mapping[temporaryID] = permanentID
            }
        }
        return mapping
    }

    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try write { db in
            // In the write transaction: no other writer can insert between
            // the check and the writes (the unique indexes back it up).
            let constraintConflicts = try UniquenessCheck.conflicts(in: request) { entity, indexes, values in
                var condition = indexes.map { "t0.\(SQLiteSchema.quote(entity.attributes[$0].name)) = ?" }.joined(separator: " AND ")
                if let restriction = SQLiteSchema.entityRestriction(entity, subentities: true) { condition += " AND \(restriction)" }
                let sql = "SELECT \(SQLiteSchema.selectList(entity, alias: "t0")) FROM \(SQLiteSchema.table(entity)) AS t0 WHERE \(condition) LIMIT 8"
                return try snapshots(db.cachedStatement(sql: sql), arguments: StatementArguments(values.map(\.databaseValue)), entity: entity)
            }
            if !constraintConflicts.isEmpty { throw StoreConstraintError(conflicts: constraintConflicts) }
            var result = StoreSaveResult()
            result.permanentIDs = try reserveKeys(
                for: request.inserted.filter(\.objectID.isTemporaryID).map { ($0.objectID, $0.entity) }, in: db)
            let mapping = result.permanentIDs
            result.snapshots.reserveCapacity(request.inserted.count + request.updated.count)
            var conflicts: [StoreConflictError.Conflict] = []
            for delete in request.deleted where delete.objectID.storeNumber == storeNumber {
                if let current = try currentSnapshot(delete.objectID, entity: delete.entity, in: db), current.version != delete.baseVersion {
                    conflicts.append(.init(objectID: delete.objectID, expectedVersion: delete.baseVersion, current: current))
                    continue
                }
                try deleteRow(id: delete.objectID, entity: delete.entity, in: db)
            }
            // Rows this save deletes or rewrites give up their constrained
            // values first, so that the unique indexes accept values moved
            // between rows (a deleted row's email on a new one, two swapped
            // handles): the check above already saw the final state.
            // Only rows still at the version the save read are cleared; any
            // other is a conflict, reported with its values untouched, and
            // nothing more is written.
            for update in request.updated where !update.entity.uniquenessConstraints.isEmpty {
                let columns = update.entity.uniquenessConstraints.joined().map { "\(SQLiteSchema.quote($0)) = NULL" }
                try db.cachedStatement(sql: "UPDATE \(SQLiteSchema.table(update.entity)) SET \(Set(columns).sorted().joined(separator: ", ")) WHERE \(SQLiteSchema.quote(SQLiteSchema.primaryKey)) = ? AND \(SQLiteSchema.quote(SQLiteSchema.version)) = ?")
                    .execute(arguments: [update.objectID.key, update.baseVersion])
                if db.changesCount == 0 {
                    conflicts.append(.init(objectID: update.objectID, expectedVersion: update.baseVersion,
                                           current: try currentSnapshot(update.objectID, entity: update.entity, in: db)))
                }
            }
            if !conflicts.isEmpty { throw StoreConflictError(conflicts: conflicts) }
            for update in request.updated {
                guard update.objectID.storeNumber == storeNumber else { throw StoreError.objectNotFound(update.objectID) }
                let values = try remappedForSave(update.values, entity: update.entity, mapping)
                guard let version = try updateRow(id: update.objectID, entity: update.entity, values: values,
                                                  expectedVersion: update.baseVersion, in: db) else {
                    conflicts.append(.init(objectID: update.objectID, expectedVersion: update.baseVersion,
                                           current: try currentSnapshot(update.objectID, entity: update.entity, in: db)))
                    continue
                }
                try writeJoinRows(id: update.objectID, entity: update.entity, values: values, replacing: true, in: db)
                result.snapshots[update.objectID] = Snapshot(objectID: update.objectID, values: snapshotValues(values, entity: update.entity),
                                                             version: version)
            }
            // A conflict undoes everything; thrown before inserting, whose
            // values a row that was not deleted may still hold.
            if !conflicts.isEmpty { throw StoreConflictError(conflicts: conflicts) }
            var insertStatements: [ObjectIdentifier: Statement] = [:]
            var last: (entity: EntityDescription, statement: Statement)?
            for insert in request.inserted {
                let id = mapping[insert.objectID] ?? insert.objectID
                guard id.storeNumber == storeNumber else { throw StoreError.objectNotFound(insert.objectID) }
                let values = try remappedForSave(insert.values, entity: insert.entity, mapping)
                let statement: Statement
                if let last, last.entity === insert.entity {
                    statement = last.statement
                } else {
                    statement = try insertStatements[ObjectIdentifier(insert.entity)] ?? insertStatement(insert.entity, in: db)
                    insertStatements[ObjectIdentifier(insert.entity)] = statement
                    last = (insert.entity, statement)
                }
                try insertRow(id: id, values: values, entity: insert.entity, with: statement)
                try writeJoinRows(id: id, entity: insert.entity, values: values, replacing: false, in: db)
                result.snapshots[id] = Snapshot(objectID: id, values: snapshotValues(values, entity: insert.entity), version: 1)
            }
            return result
        }
    }

    /// `values` with the temporary IDs of objects inserted by the save
    /// replaced by their permanent ones; an entity without relationships
    /// has none to replace.
    private func remappedForSave(_ values: [StoreValue], entity: EntityDescription,
                                 _ mapping: [ManagedObjectID: ManagedObjectID]) throws -> [StoreValue] {
        guard !entity.relationships.isEmpty else { return values }
        return try values.map { try $0.remappedForSave(mapping) }
    }

    /// Snapshot values as a fetch would return them: to-many relationships
    /// the store derives from other rows are left as faults.
    private func snapshotValues(_ values: [StoreValue], entity: EntityDescription) -> [StoreValue] {
        guard entity.relationships.contains(where: \.isToMany) else { return values }
        var values = values
        for relationship in entity.relationships where relationship.isToMany {
            if case .objectIDs = values[relationship.index] { continue }
            values[relationship.index] = .toManyFault
        }
        return values
    }

    /// `before`, then the values of `entity`'s columns in the order of
    /// ``SQLiteSchema``, then `after`: one statement's bindings, in one array.
    private func columnValues(_ values: [StoreValue], entity: EntityDescription,
                              before: [StoreValue] = [], after: [StoreValue] = []) -> [StoreValue] {
        var columns: [StoreValue] = []
        columns.reserveCapacity(before.count + values.count + after.count)
        columns += before
        for attribute in entity.storedAttributes { columns.append(values[attribute.index]) }
        for relationship in entity.relationships where !relationship.isToMany { columns.append(values[relationship.index]) }
        columns += after
        return columns
    }

    /// The per-row SQL of `entity`.
    func sql(_ entity: EntityDescription) -> SQLiteStatements {
        statements[entity.name] ?? SQLiteStatements(entity)
    }

    /// The statement that inserts a row of `entity`; look it up once per
    /// save, not once per row.
    func insertStatement(_ entity: EntityDescription, in db: Database) throws -> Statement {
        try db.cachedStatement(sql: sql(entity).insert)
    }

    func insertRow(id: ManagedObjectID, values: [StoreValue], entity: EntityDescription, with statement: Statement) throws {
        try statement.withBindings(columnValues(values, entity: entity, before: [.integer(id.key), .integer(1)])) { try statement.execute() }
    }

    /// Writes a row's columns and bumps its version if the row is still at
    /// `expectedVersion`; returns the new version, or `nil` on a conflict.
    private func updateRow(id: ManagedObjectID, entity: EntityDescription, values: [StoreValue], expectedVersion: Int64,
                           in db: Database) throws -> Int64? {
        let statement = try db.cachedStatement(sql: sql(entity).update)
        return try statement.withBindings(columnValues(values, entity: entity, after: [.integer(id.key), .integer(expectedVersion)])) {
            try Int64.fetchOne(statement)
        }
    }

    /// The row as it is inside a write transaction.
    private func currentSnapshot(_ id: ManagedObjectID, entity: EntityDescription, in db: Database) throws -> Snapshot? {
        return try snapshots(db.cachedStatement(sql: sql(entity).selectByKey), arguments: [id.key], entity: entity).first
    }

    private func deleteRow(id: ManagedObjectID, entity: EntityDescription, in db: Database) throws {
        try db.cachedStatement(sql: sql(entity).delete)
            .execute(arguments: [id.key])
        for relationship in entity.relationships {
            guard let join = SQLiteSchema.joinTable(relationship, of: entity) else { continue }
            try db.cachedStatement(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?").execute(arguments: [id.key])
        }
    }

    /// Replaces the join rows of each loaded many-to-many relationship.
    private func writeJoinRows(id: ManagedObjectID, entity: EntityDescription, values: [StoreValue], replacing: Bool, in db: Database) throws {
        for relationship in entity.relationships {
            guard let join = SQLiteSchema.joinTable(relationship, of: entity),
                  case .objectIDs(let destinations) = values[relationship.index] else { continue }
            if replacing {
                try db.cachedStatement(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?").execute(arguments: [id.key])
            }
            let insert = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?)")
            for destination in destinations {
                try insert.withBindings([.integer(id.key), .integer(destination.key)]) { try insert.execute() }
            }
        }
    }
}
