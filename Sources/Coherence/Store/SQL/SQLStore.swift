import Foundation

/// What the SQL stores share: the whole of a store's work (schema, reads,
/// fetches, saves, batch requests, derived values, migrations) written once
/// in SQL over ``SQLConnections``, with what differs between SQLite and
/// PostgreSQL asked of ``SQLDialect``. ``SQLiteStore`` and the PostgreSQL
/// store are its public faces: they open their connections and hand every
/// request to it.
///
/// Tables: one per root entity with its primary key (`Z_PK`), its version
/// (`Z_OPT`, incremented by every save of the row, for optimistic locking),
/// a column per attribute and per to-one relationship, a join table per
/// many-to-many relationship, the key counters (`Z_PRIMARYKEY`, or
/// sequences on PostgreSQL: ``SQLKeys``) and the metadata (`Z_METADATA`);
/// see ``SQLSchema``.
///
/// **Complexity:** reading one object is one indexed query; a fetch is one
/// query; a save is one transaction with one statement per changed object
/// (inserts of one entity go together, see ``SQLDatabase/executeMany(_:count:row:)``).
package final class SQLStore: Sendable {
    /// The store's UUID, kept in its metadata.
    package let identifier: String
    /// `identifier`'s number, which this store's object IDs carry.
    let storeNumber: UInt32
    let model: ManagedObjectModel
    let connections: any SQLConnections
    let dialect: SQLDialect
    /// Each entity's per-row SQL, by entity name.
    let statements: [String: SQLStatements]
    /// Whether saves and batch requests write persistent history (see
    /// `SQLStore+History.swift`).
    package let tracksPersistentHistory: Bool
    /// Held by every write of this store, so that the remote-change watcher
    /// learns which history transactions are the store's own before it can
    /// classify them (see ``SQLRemoteChangeWatcher``).
    let writeGate = NSLock()
    /// The watcher of other writers' transactions, once started.
    let remoteChangeWatcher = Locked<SQLRemoteChangeWatcher?>(nil)

    /// Opens the store in `connections` for `model`: creates the schema when
    /// there is none, opens an existing store, migrating it lightweight in
    /// the same transaction. `location` names the store in errors.
    /// - Throws: ``StoreError/notACoherenceStore(path:)`` when the database
    ///   holds tables but no Coherence store, ``StoreError/incompatibleModel(reason:)``
    ///   for a model that cannot be migrated (nothing is changed then), or
    ///   the database's error.
    /// With `persistentHistoryTracking`, the history tables are created if
    /// missing (in the same transaction). A store whose history tables exist
    /// keeps history whatever the option says.
    package init(connections: any SQLConnections, dialect: SQLDialect, model: ManagedObjectModel, location: String,
                 persistentHistoryTracking: Bool = false, readOnly: Bool = false) throws {
        self.connections = readOnly ? ReadOnlyConnections(base: connections, location: location) : connections
        self.dialect = dialect
        self.model = model
        statements = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, SQLStatements($0)) })
        if readOnly {
            // An existing store with this very model: nothing may be written.
            (identifier, tracksPersistentHistory) = try connections.read { db in
                guard try db.tableExists(SQLSchema.metadataTableName) else {
                    throw StoreError.readOnlyStore(path: location, reason: "there is no store there to open read-only")
                }
                let (identifier, stored) = try Self.storeRecords(in: db, location: location)
                guard stored == StoredModel(model) else {
                    throw StoreError.incompatibleModel(reason: "the store at \(location) was saved with another model, and a store opened read-only cannot be migrated")
                }
                try SQLSchema.checkTables(of: model, in: db, location: location)
                guard try !Self.derivedArePending(in: db) else {
                    throw StoreError.readOnlyStore(path: location, reason: "an open that migrated it stopped before recomputing its derived attributes, and a read-only open cannot; open it once for writing")
                }
                return (identifier, try db.tableExists(SQLHistorySchema.transactionCounter))
            }
            storeNumber = StoreNumbers.number(for: identifier)
            return
        }
        var migrated = false
        var tracks = persistentHistoryTracking
        // Exclusive: two processes opening one PostgreSQL schema never
        // create or migrate it at once. Other processes' saves run beside
        // it: a deadlock with one is tried again.
        identifier = try Self.retryingDeadlocks { try connections.writeExclusively { db in
            if try db.tableExists(SQLSchema.metadataTableName) {
                let (identifier, old) = try Self.storeRecords(in: db, location: location)
                let migration = try SQLMigration(from: old, to: model)
                migrated = !migration.isEmpty || old != StoredModel(model)
                if migrated { try Self.checkDerivationsCanBeRecomputed(model, dialect: dialect) }
                // See SQLStore+PendingDerivations.swift.
                if migrated { try Self.markDerivedPending(in: db) } else { migrated = try Self.derivedArePending(in: db) }
                try SQLSchema.dropFetchIndexes(notDeclaredIn: model, in: db)
                try migration.apply(in: db)
                try SQLSchema.addOrderColumns(model, in: db)
                try SQLSchema.createFetchIndexes(model, in: db)
                try SQLSchema.checkTables(of: model, in: db, location: location)
                try SQLKeys.createSequences(model, in: db)
                try Self.writeModel(model, in: db)
                // A store that keeps history keeps it for every writer, so
                // that no other process misses a change without knowing.
                if try db.tableExists(SQLHistorySchema.transactionCounter) { tracks = true }
                if tracks { try SQLHistorySchema.create(in: db) }
                return identifier
            }
            guard try db.tableNames().isEmpty else { throw StoreError.notACoherenceStore(path: location) }
            let identifier = UUID().uuidString
            try SQLSchema.create(model, in: db)
            try SQLSchema.createFetchIndexes(model, in: db)
            try SQLKeys.createSequences(model, in: db)
            try db.execute("INSERT INTO \(SQLSchema.metadataTable) (key, value) VALUES ('storeUUID', ?)", [.string(identifier)])
            try Self.writeModel(model, in: db)
            if persistentHistoryTracking { try SQLHistorySchema.create(in: db) }
            return identifier
        } }
        tracksPersistentHistory = tracks
        storeNumber = StoreNumbers.number(for: identifier)
        // Derived columns added or changed by the migration start right.
        if migrated { try finishPendingDerivations() }
    }

    deinit {
        remoteChangeWatcher.withLock { $0 }?.stop()
    }

    /// Throws, before a migration changes anything, when the dialect cannot
    /// recompute a derived attribute after it (its filter needs Swift's string
    /// functions, which PostgreSQL cannot run).
    private static func checkDerivationsCanBeRecomputed(_ model: ManagedObjectModel, dialect: SQLDialect) throws {
        for derivation in model.derivations {
            guard let expression = derivation.declaration.expression, let variable = derivation.declaration.variable,
                  let child = model.entitiesByName[derivation.childEntityName] else { continue }
            var compiler = SQLPredicateCompiler(model: model, storeNumber: 0, dialect: dialect, entity: child)
            do {
                _ = try compiler.condition(for: expression, variable: variable)
            } catch let error as SQLDialectCannotEvaluate {
                throw StoreError.incompatibleModel(reason: "the derived attribute \(derivation.parentEntityName).\(derivation.propertyName) filters with \(error.construct), which this database cannot evaluate, so the migration could not recompute it")
            }
        }
    }

    /// The model a store was saved with, from its metadata; `nil` when it
    /// has none.
    /// - Throws: ``StoreError/damagedStore(path:reason:)`` for a description
    ///   that cannot be read or names an entity or property twice.
    static func storedModel(in db: any SQLDatabase, location: String) throws -> StoredModel? {
        var json: Data?
        try db.forEachRow("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = 'model'", []) { row in
            switch row.columnType(0) {
            case .blob: json = row.data(0)
            case .text: json = Data(row.string(0).utf8)
            default: break
            }
        }
        return try json.map { try StoredModel.decoded(from: $0, location: location) }
    }

    /// A Coherence store's identifier and model, checked: both present and
    /// readable, and every entity's table there.
    /// - Throws: ``StoreError/damagedStore(path:reason:)`` naming what is wrong.
    static func storeRecords(in db: any SQLDatabase, location: String) throws -> (String, StoredModel) {
        guard let identifier = try db.string("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = 'storeUUID'") else {
            throw StoreError.damagedStore(path: location, reason: "its metadata table \(SQLSchema.metadataTableName) has no store identifier")
        }
        guard let model = try storedModel(in: db, location: location) else {
            throw StoreError.damagedStore(path: location, reason: "its metadata table \(SQLSchema.metadataTableName) has no model description")
        }
        for entity in model.entities where entity.superentity == nil {
            guard try db.tableExists(entity.name) else {
                throw StoreError.damagedStore(path: location, reason: "the table of its entity \(entity.name) is missing")
            }
        }
        return (identifier, model)
    }

    private static func writeModel(_ model: ManagedObjectModel, in db: any SQLDatabase) throws {
        let stored = StoredModel(model)
        let json = try stored.encoded()
        // SQLite has always kept the JSON as bytes; PostgreSQL keeps text.
        let value: StoreValue = db.dialect == .sqlite ? .data(json) : .string(String(decoding: json, as: UTF8.self))
        try db.execute("""
            INSERT INTO \(SQLSchema.metadataTable) (key, value) VALUES ('model', ?), ('modelHash', ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, [value, .string(stored.hash)])
    }

    /// The hash of the model the store was last opened with.
    package func modelHash() throws -> String? {
        try read { db in try db.string("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = 'modelHash'") }
    }

    // MARK: Reading

    /// How many read transactions the store ran.
    package var queryCount: Int { queries.withLock { $0 } }
    private let queries = Locked(0)

    /// How many rows the store's reads turned into snapshots.
    package var rowsRead: Int { rows.withLock { $0 } }
    private let rows = Locked(0)

    /// Counts `count` rows read (see ``rowsRead``).
    func noteRowsRead(_ count: Int) {
        rows.withLock { $0 += count }
    }

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        queries.withLock { $0 += 1 }
        return try connections.read(body)
    }

    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        // Only a store with history is watched.
        guard tracksPersistentHistory else { return try connections.write(body) }
        writeGate.lock()
        defer { writeGate.unlock() }
        guard let watcher = remoteChangeWatcher.withLock({ $0 }) else { return try connections.write(body) }
        do {
            let result = try connections.write(body)
            watcher.finishWrite(committed: true)
            return result
        } catch {
            watcher.finishWrite(committed: false)
            throw error
        }
    }

    /// The entity of a class in the store's model.
    func entity(of objectID: ManagedObjectID) throws -> EntityDescription {
        guard let entity = model.entity(for: objectID.objectClass) else { throw StoreError.unknownEntity(objectID.entityName) }
        return entity
    }

    /// A snapshot from a row selected with ``SQLSchema/selectList(_:alias:)``
    /// starting at column `offset`.
    func snapshot<Row: SQLRow>(from row: Row, entity: EntityDescription, layout: SnapshotLayout, offset: Int = 0) throws -> Snapshot {
        if entity.isInHierarchy || entity.referencesHierarchy { return try hierarchySnapshot(from: row, entity: entity, offset: offset) }
        let key = row.int64(offset)
        let version = row.int64(offset + 1)
        var column = offset + 2
        let attributeSlots = entity.attributeSlots
        require(layout.count == entity.propertyCount, "Coherence: the snapshot layout of \(entity.name) does not fit it")
        return try Snapshot(objectID: makeObjectID(entity.managedObjectClass, key: key), version: version, layout: layout) { values in
            for index in attributeSlots.indices {
                // The most common column, an integer attribute's holding an
                // integer, without a StoreValue (a transient attribute's
                // value is never kept in a word).
                if layout.slots[index].kind == .integer, let integer = row.integer(column) {
                    guard attributeSlots[index].holds(integer: integer) else {
                        throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name,
                                                            reason: "\(integer) is out of the range of \(attributeSlots[index].attributeType)")
                    }
                    if attributeSlots[index].kind.native == nil {
                        try checkDecodes(.integer(integer), entity: entity, index: index) // an enumeration's raw value
                    }
                    values.append(integer: integer)
                    column += 1
                    continue
                }
                let slot = attributeSlots[index]
                if slot.isTransient {
                    // No column: a loaded object has the declared initial value.
                    values.append(entity.attributes[index].defaultValue ?? .null)
                    continue
                }
                values.append(try attributeValue(row, column, slot: slot, entity: entity, index: index))
                column += 1
            }
            for relationship in entity.relationships {
                if relationship.isToMany {
                    values.append(.toManyFault)
                } else {
                    values.append(try toOneValue(row, column, relationship: relationship, destination: relationship.destinationType, entity: entity))
                    column += 1
                }
            }
        }
    }

    /// The value of attribute `index` in `column`.
    func attributeValue<Row: SQLRow>(_ row: Row, _ column: Int, slot: AttributeSlotEntry, entity: EntityDescription, index: Int) throws -> StoreValue {
        do {
            let value = try StoreValue(row: row, index: column, type: slot.attributeType)
            switch value {
            case .null where slot.readsNullAsNaN: return .double(.nan)
            case .null where slot.rejectsNull:
                throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name,
                                                    reason: "the attribute is required but its column holds NULL")
            case .integer(let integer) where !slot.holds(integer: integer):
                throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name,
                                                    reason: "\(integer) is out of the range of \(slot.attributeType)")
            case .null: return value
            default:
                if slot.kind.native == nil { try checkDecodes(value, entity: entity, index: index) }
                return value
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name, reason: "\(error)")
        }
    }

    /// Decodes a value of a type that is not native (a `Codable` value, an
    /// enumeration's raw value) once, so that one another program damaged
    /// is the fetch's typed error rather than a trap when the object is
    /// filled (the corrupt-file campaign found both).
    func checkDecodes(_ value: StoreValue, entity: EntityDescription, index: Int) throws {
        do {
            _ = try entity.attributes[index].access.swiftValue(value)
        } catch {
            throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name, reason: "\(error)")
        }
    }

    /// The value of a to-one relationship in `column`: the destination's key.
    func toOneValue<Row: SQLRow>(_ row: Row, _ column: Int, relationship: RelationshipDescription, destination: ManagedObject.Type,
                    entity: EntityDescription) throws -> StoreValue {
        switch row.columnType(column) {
        case .null: return .null
        case .integer: return .objectID(makeObjectID(destination, key: row.int64(column)))
        default:
            throw StoreError.invalidStoredValue(entity: entity.name, property: relationship.name,
                                                reason: "a to-one relationship's column holds a row key, found something else")
        }
    }

    /// The snapshots of the rows `sql` selects with `arguments`.
    func snapshots(_ db: any SQLDatabase, _ sql: String, _ arguments: [StoreValue] = [], entity: EntityDescription) throws -> [Snapshot] {
        var snapshots: [Snapshot] = []
        let layout = snapshotLayout(entity)
        // SQLite's rows by their type, so that the per-column code is
        // specialized for them (a fetch runs it for every column of every row).
        if let db = db as? SQLiteDatabase {
            try db.forEachSQLiteRow(sql, arguments) { snapshots.append(try snapshot(from: $0, entity: entity, layout: layout)) }
        } else {
            try db.forEachRow(sql, arguments) { snapshots.append(try snapshot(from: $0, entity: entity, layout: layout)) }
        }
        return snapshots
    }

    /// The snapshots of the rows `sql` selects with `arguments`, after a
    /// first column holding a key (the owner's, for prefetching).
    func keyedSnapshots(_ db: any SQLDatabase, _ sql: String, _ arguments: [StoreValue], entity: EntityDescription) throws -> [(Int64, Snapshot)] {
        var snapshots: [(Int64, Snapshot)] = []
        let layout = snapshotLayout(entity)
        if let db = db as? SQLiteDatabase {
            try db.forEachSQLiteRow(sql, arguments) { snapshots.append(($0.int64(0), try snapshot(from: $0, entity: entity, layout: layout, offset: 1))) }
        } else {
            try db.forEachRow(sql, arguments) { snapshots.append(($0.int64(0), try snapshot(from: $0, entity: entity, layout: layout, offset: 1))) }
        }
        return snapshots
    }

    /// The ID of row `key` of an entity of this store.
    func makeObjectID(_ objectClass: ManagedObject.Type, key: Int64) -> ManagedObjectID {
        ManagedObjectID(objectClass: objectClass, storeNumber: storeNumber, key: key)
    }

    /// How the snapshots of `entity` keep their values: the layout made with
    /// the store's statements, unless `entity` is not the description they
    /// were made from (another model's entity of the same name), which gets
    /// its own. Once per fetch, not per row.
    func snapshotLayout(_ entity: EntityDescription) -> SnapshotLayout {
        let layout = sql(entity).snapshotLayout
        return layout.fits(entity) ? layout : SnapshotLayout(entity)
    }

    /// The per-row SQL of `entity`.
    func sql(_ entity: EntityDescription) -> SQLStatements {
        statements[entity.name] ?? SQLStatements(entity)
    }

    package func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        guard objectID.storeNumber == storeNumber else { return nil }
        let entity = try entity(of: objectID)
        return try read { db in
            // In a hierarchy, the row must be of the ID's entity (an ID naming
            // a parent for a sub-entity's row names no object).
            guard let snapshot = try snapshots(db, sql(entity).selectByKey, [.integer(objectID.key)], entity: entity).first,
                  !entity.isInHierarchy || snapshot.objectID == objectID
            else { return nil }
            noteRowsRead(1)
            return snapshot
        }
    }

    package func snapshots(of entity: EntityDescription) throws -> [Snapshot] {
        try read { db in
            let restriction = SQLSchema.entityRestriction(entity, subentities: false, alias: entity.rootEntity.name).map { " WHERE \($0)" } ?? ""
            let sql = "SELECT \(SQLSchema.selectList(entity)) FROM \(SQLSchema.table(entity))\(restriction) ORDER BY \(SQLSchema.quote(SQLSchema.primaryKey))"
            let snapshots = try snapshots(db, sql, entity: entity)
            noteRowsRead(snapshots.count)
            return snapshots
        }
    }

    package func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        let entity = try entity(of: objectID)
        return try read { db in try relatedObjectIDs(of: objectID, entity: entity, relationship: relationship, in: db) }
    }

    /// The destinations of `objectID`'s to-many `relationship`, in order
    /// for an ordered one, read in `db`'s transaction.
    func relatedObjectIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationship: RelationshipDescription,
                          in db: any SQLDatabase) throws -> [ManagedObjectID] {
            if relationship.destinationHasSubentities {
                return try hierarchyRelatedObjectIDs(of: objectID, entity: entity, relationship: relationship, in: db)
            }
            let keys: [Int64]
            if let join = SQLSchema.joinTable(relationship, of: entity) {
                keys = try db.int64s("SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) = ?", [.integer(objectID.key)])
            } else {
                let destination = SQLSchema.table(named: relationship.destinationRootEntityName)
                keys = try db.int64s("SELECT d.\(SQLSchema.quote(SQLSchema.primaryKey)) FROM \(destination) AS d WHERE d.\(SQLSchema.quote(relationship.inverseName)) = ?"
                                        + SQLSchema.orderClause(relationship, alias: "d"),
                                     [.integer(objectID.key)])
            }
            return keys.map { makeObjectID(relationship.destinationType, key: $0) }
    }
}

/// Chunks of at most `size` elements, for `IN (…)` lists that must stay
/// under the databases' parameter limits.
func chunked<T>(_ elements: [T], by size: Int = 500) -> [ArraySlice<T>] {
    stride(from: 0, to: elements.count, by: size).map { elements[$0..<min($0 + size, elements.count)] }
}

/// `?, ?, …`: `count` parameters.
func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}
