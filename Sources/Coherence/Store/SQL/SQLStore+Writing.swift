import Foundation

// Saving: reserving primary keys and writing a save's rows in one transaction.
extension SQLStore {
    // MARK: Writing

    package func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        try write { db in
            try reserveKeys(for: Array(zip(objectIDs, entities)), in: db)
        }
    }

    /// Takes `count` new primary keys of `entity` (see ``SQLKeys``).
    func reserveKeys(_ count: Int, for entity: EntityDescription, in db: any SQLDatabase) throws -> [ManagedObjectID] {
        guard count > 0 else { return [] }
        return try SQLKeys.take(count, for: entity, in: db).map { makeObjectID(entity.managedObjectClass, key: $0) }
    }

    /// The permanent ID of each of `objects`, in their order: a temporary ID
    /// gets a new one, from the keys taken for its entity (``SQLKeys``), in
    /// the objects' order; a permanent ID is kept.
    /// **Complexity:** O(objects × entities among them; a run of objects of
    /// one entity costs O(1) each), plus one statement per entity.
    func reserveKeys(for objects: some Collection<(ManagedObjectID, EntityDescription)>,
                     in db: any SQLDatabase) throws -> [ManagedObjectID] {
        // Per entity: how many keys it needs, then its keys and the next to give.
        var ranges: [(entity: EntityDescription, count: Int, keys: [Int64], next: Int)] = []
        var current = 0
        func range(of entity: EntityDescription) -> Int {
            if current < ranges.count, ranges[current].entity === entity { return current }
            if let found = ranges.firstIndex(where: { $0.entity === entity }) {
                current = found
            } else {
                ranges.append((entity, 0, [], 0))
                current = ranges.count - 1
            }
            return current
        }
        var total = 0
        for (id, entity) in objects where id.isTemporaryID {
            ranges[range(of: entity)].count += 1
            total += 1
        }
        guard total > 0 else { return objects.map(\.0) }
        for index in ranges.indices {
            ranges[index].keys = try SQLKeys.take(ranges[index].count, for: ranges[index].entity, in: db)
        }
        var permanent: [ManagedObjectID] = []
        permanent.reserveCapacity(objects.count)
        for (id, entity) in objects {
            guard id.isTemporaryID else {
                permanent.append(id)
                continue
            }
            let index = range(of: entity)
            permanent.append(makeObjectID(entity.managedObjectClass, key: ranges[index].keys[ranges[index].next]))
            ranges[index].next += 1
        }
        return permanent
    }

    /// Writes `request` in the caller's write transaction (see
    /// ``save(_:resolvingConflicts:)``, which runs it). Rows are updated
    /// and deleted in key order, each only if it is still at the version
    /// the save read: a row another writer saved since is a conflict.
    func writeSave(_ request: StoreSaveRequest, in db: any SQLDatabase) throws -> StoreSaveResult {
        // SQLite: no other writer can insert between the check and the
        // writes. PostgreSQL: one can; the unique indexes then refuse
        // this save's row (SQLSTATE 23505), and the save is tried again,
        // when this check sees the other row.
        let constraintConflicts = try UniquenessCheck.conflicts(in: request) { entity, indexes, values in
            var condition = indexes.map { "t0.\(SQLSchema.quote(entity.attributes[$0].name)) = ?" }.joined(separator: " AND ")
            if let restriction = SQLSchema.entityRestriction(entity, subentities: true) { condition += " AND \(restriction)" }
            let sql = "SELECT \(SQLSchema.selectList(entity, alias: "t0")) FROM \(SQLSchema.table(entity)) AS t0 WHERE \(condition) LIMIT 8"
            return try snapshots(db, sql, values, entity: entity)
        }
        if !constraintConflicts.isEmpty { throw StoreConstraintError(conflicts: constraintConflicts) }
        var result = StoreSaveResult()
        // By position, here and below: iterating the inserts would copy
        // each whole insert (its values too) to read a field or two.
        let inserts = request.inserted
        let insertedIDs = try reserveKeys(for: inserts.indices.lazy.map { (inserts[$0].objectID, inserts[$0].entity) }, in: db)
        result.permanentIDs.reserveCapacity(insertedIDs.count)
        for position in inserts.indices where inserts[position].objectID.isTemporaryID {
            result.permanentIDs[inserts[position].objectID] = insertedIDs[position]
        }
        let mapping = result.permanentIDs
        result.snapshots.reserveCapacity(request.inserted.count + request.updated.count)
        var conflicts: [StoreConflictError.Conflict] = []
        var history: [SQLHistoryChange] = []
        // Ordered relationships whose positions this save writes.
        var positioned: [(owner: ManagedObjectID, RelationshipDescription, StoreValue)] = []
        // Key order (per table), as every writer locks rows: two saves
        // that change the same rows wait for each other rather than deadlock.
        let updates = request.updated.sorted { Self.lockOrder($0.objectID, $0.entity, $1.objectID, $1.entity) }
        let deletes = request.deleted.filter { $0.objectID.storeNumber == storeNumber }
            .sorted { Self.lockOrder($0.objectID, $0.entity, $1.objectID, $1.entity) }
        for delete in deletes {
            // History keeps the row's values (read before: a row changed
            // since is then not deleted, below).
            let tombstone = tracksPersistentHistory ? try currentSnapshot(delete.objectID, entity: delete.entity, in: db) : nil
            guard try deleteRow(id: delete.objectID, entity: delete.entity, version: delete.baseVersion, in: db) else {
                // Not at the version read: a conflict; gone: nothing to do.
                if let current = try currentSnapshot(delete.objectID, entity: delete.entity, in: db) {
                    conflicts.append(.init(objectID: delete.objectID, expectedVersion: delete.baseVersion, current: current))
                }
                continue
            }
            if tracksPersistentHistory {
                history.append(SQLHistoryChange(objectID: delete.objectID, type: .delete,
                                                tombstone: tombstone.flatMap { self.tombstone(of: $0, entity: delete.entity) }))
            }
        }
        // Rows this save deletes or rewrites give up their constrained
        // values first, so that the unique indexes accept values moved
        // between rows (a deleted row's email on a new one, two swapped
        // handles): the check above already saw the final state.
        // Only rows still at the version the save read are cleared; any
        // other is a conflict, reported with its values untouched, and
        // nothing more is written.
        for update in updates where !update.entity.uniquenessConstraints.isEmpty {
            let columns = update.entity.uniquenessConstraints.joined().map { "\(SQLSchema.quote($0)) = NULL" }
            let cleared = try db.execute("UPDATE \(SQLSchema.table(update.entity)) SET \(Set(columns).sorted().joined(separator: ", ")) WHERE \(SQLSchema.quote(SQLSchema.primaryKey)) = ? AND \(SQLSchema.quote(SQLSchema.version)) = ?",
                                         [.integer(update.objectID.key), .integer(update.baseVersion)])
            if cleared == 0 {
                conflicts.append(.init(objectID: update.objectID, expectedVersion: update.baseVersion,
                                       current: try currentSnapshot(update.objectID, entity: update.entity, in: db)))
            }
        }
        if !conflicts.isEmpty { throw StoreConflictError(conflicts: conflicts) }
        for update in updates {
            guard update.objectID.storeNumber == storeNumber else { throw StoreError.objectNotFound(update.objectID) }
            let values = try remappedForSave(update.values, entity: update.entity, mapping)
            guard let version = try updateRow(id: update.objectID, entity: update.entity, values: values,
                                              expectedVersion: update.baseVersion, in: db) else {
                conflicts.append(.init(objectID: update.objectID, expectedVersion: update.baseVersion,
                                       current: try currentSnapshot(update.objectID, entity: update.entity, in: db)))
                continue
            }
            try writeJoinRows(id: update.objectID, entity: update.entity, values: values, replacing: true, in: db)
            for relationship in update.entity.relationships where relationship.isOrdered && update.updatedProperties.contains(relationship.name) {
                positioned.append((update.objectID, relationship, values[relationship.index]))
            }
            result.snapshots[update.objectID] = Snapshot(objectID: update.objectID, values: snapshotValues(values, entity: update.entity),
                                                         version: version)
        }
        // A conflict undoes everything; thrown before inserting, whose
        // values a row that was not deleted may still hold.
        if !conflicts.isEmpty { throw StoreConflictError(conflicts: conflicts) }
        // The rows of each entity go in one batch (see `SQLDatabase.executeMany`),
        // the batches in the order their entities first appear.
        var batches: [(entity: EntityDescription, rows: [(id: ManagedObjectID, values: [StoreValue])])] = []
        var batchOfEntity: [ObjectIdentifier: Int] = [:]
        var lastEntity: ObjectIdentifier?, lastBatch = 0
        var joined: [(ManagedObjectID, EntityDescription, [StoreValue])] = []
        result.insertedSnapshots = []
        result.insertedSnapshots?.reserveCapacity(inserts.count)
        for position in inserts.indices {
            let id = insertedIDs[position], entity = inserts[position].entity
            guard id.storeNumber == storeNumber else { throw StoreError.objectNotFound(inserts[position].objectID) }
            let values = try remappedForSave(inserts[position].values, entity: entity, mapping)
            // A run of objects of one entity looks its batch up once.
            let key = ObjectIdentifier(entity)
            if key != lastEntity {
                if let batch = batchOfEntity[key] {
                    lastBatch = batch
                } else {
                    batches.append((entity, []))
                    lastBatch = batches.count - 1
                    batchOfEntity[key] = lastBatch
                }
                lastEntity = key
            }
            batches[lastBatch].rows.append((id, values))
            if entity.hasManyToManyRelationships { joined.append((id, entity, values)) }
            if entity.hasOrderedRelationships {
                for relationship in entity.relationships where relationship.isOrdered { positioned.append((id, relationship, values[relationship.index])) }
            }
            let snapshot = Snapshot(objectID: id, values: snapshotValues(values, entity: entity), version: 1)
            result.snapshots[id] = snapshot
            result.insertedSnapshots?.append(snapshot)
        }
        for position in batches.indices {
            let (entity, entityRows) = batches[position]
            batches[position].rows = []
            // Each row's arguments are made as it is written.
            try db.executeMany(sql(entity).insert, count: entityRows.count) { index, arguments in
                appendInsertValues(id: entityRows[index].id, values: entityRows[index].values, entity: entity, to: &arguments)
            }
        }
        for (id, entity, values) in joined {
            try writeJoinRows(id: id, entity: entity, values: values, replacing: false, in: db)
        }
        for (owner, relationship, value) in positioned {
            try writePositions(of: relationship, owner: owner, value, in: db)
        }
        if tracksPersistentHistory {
            history += insertedIDs.map { SQLHistoryChange(objectID: $0, type: .insert) }
            history += request.updated.map { SQLHistoryChange(objectID: $0.objectID, type: .update, updated: $0.updatedProperties) }
            result.historyToken = try writeHistory(history, author: request.author, contextName: request.contextName, in: db)
        }
        return result
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
            if values[relationship.index].toManyMembers != nil { continue }
            values[relationship.index] = .toManyFault
        }
        return values
    }

    /// Appends the values of `entity`'s columns, in the order of ``SQLSchema``.
    private func appendColumnValues(_ values: [StoreValue], entity: EntityDescription, to columns: inout [StoreValue]) {
        for index in entity.columnPropertyIndexes { columns.append(values[index]) }
    }

    /// Appends the arguments of ``SQLStatements/insert`` for a new row (version 1).
    func appendInsertValues(id: ManagedObjectID, values: [StoreValue], entity: EntityDescription, to arguments: inout [StoreValue]) {
        arguments.append(.integer(id.key))
        arguments.append(.integer(1))
        appendColumnValues(values, entity: entity, to: &arguments)
    }

    /// Writes a row's columns and bumps its version if the row is still at
    /// `expectedVersion`; returns the new version, or `nil` on a conflict.
    private func updateRow(id: ManagedObjectID, entity: EntityDescription, values: [StoreValue], expectedVersion: Int64,
                           in db: any SQLDatabase) throws -> Int64? {
        var arguments: [StoreValue] = []
        arguments.reserveCapacity(values.count + 2)
        appendColumnValues(values, entity: entity, to: &arguments)
        arguments.append(.integer(id.key))
        arguments.append(.integer(expectedVersion))
        return try db.int64(sql(entity).update, arguments)
    }

    /// The row as it is inside a write transaction.
    private func currentSnapshot(_ id: ManagedObjectID, entity: EntityDescription, in db: any SQLDatabase) throws -> Snapshot? {
        try snapshots(db, sql(entity).selectByKey, [.integer(id.key)], entity: entity).first
    }

    /// Deletes the row and its join rows if the row is at `version`;
    /// returns whether it was.
    private func deleteRow(id: ManagedObjectID, entity: EntityDescription, version: Int64, in db: any SQLDatabase) throws -> Bool {
        guard try db.execute(sql(entity).delete, [.integer(id.key), .integer(version)]) > 0 else { return false }
        for relationship in entity.relationships {
            guard let join = SQLSchema.joinTable(relationship, of: entity) else { continue }
            try db.execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(id.key)])
        }
        return true
    }

    /// The order in which a save locks rows: by table, then key.
    static func lockOrder(_ a: ManagedObjectID, _ aEntity: EntityDescription, _ b: ManagedObjectID, _ bEntity: EntityDescription) -> Bool {
        let (aTable, bTable) = (aEntity.rootEntity.name, bEntity.rootEntity.name)
        return aTable != bTable ? aTable < bTable : a.key < b.key
    }

    /// Writes the position of each destination of `owner`'s loaded ordered
    /// relationship (into the destination's ``SQLSchema/orderColumn(_:)``),
    /// after the rows are written, for the destinations whose saved
    /// position differs. **Complexity:** one query for the saved positions,
    /// then one statement per destination that moved (appending to a long
    /// list writes one).
    private func writePositions(of relationship: RelationshipDescription, owner: ManagedObjectID, _ value: StoreValue,
                                in db: any SQLDatabase) throws {
        guard case .orderedObjectIDs(let destinations) = value, !destinations.isEmpty,
              let column = SQLSchema.orderColumn(relationship).map(SQLSchema.quote) else { return }
        let key = SQLSchema.quote(SQLSchema.primaryKey)
        let table = SQLSchema.table(named: relationship.destinationRootEntityName)
        let inverse = SQLSchema.quote(relationship.inverseName)
        // The owner's rows as saved, with their positions (`nil`: none). A
        // destination not among them belongs to another owner now (this
        // list is older than that move): its position is not this list's.
        var saved: [Int64: Int64?] = [:]
        try db.forEachRow("SELECT \(key), \(column) FROM \(table) WHERE \(inverse) = ?", [.integer(owner.key)]) { row in
            saved[row.int64(0)] = row.integer(1)
        }
        let moved = destinations.enumerated().filter { item in
            guard let position = saved[item.element.key] else { return false }
            return position != Int64(item.offset)
        }
        guard !moved.isEmpty else { return }
        try db.executeMany("UPDATE \(table) SET \(column) = ? WHERE \(key) = ?", moved.map { [.integer(Int64($0.offset)), .integer($0.element.key)] })
    }

    /// Replaces the join rows of each loaded many-to-many relationship.
    private func writeJoinRows(id: ManagedObjectID, entity: EntityDescription, values: [StoreValue], replacing: Bool, in db: any SQLDatabase) throws {
        for relationship in entity.relationships {
            guard let join = SQLSchema.joinTable(relationship, of: entity),
                  case .objectIDs(let destinations) = values[relationship.index] else { continue }
            if replacing {
                try db.execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(id.key)])
            }
            try db.executeMany("INSERT INTO \(join.name) (\(join.sourceColumn), \(join.destinationColumn)) VALUES (?, ?) ON CONFLICT DO NOTHING",
                               destinations.map { [.integer(id.key), .integer($0.key)] })
        }
    }
}
