import Foundation
internal import GRDB
internal import GRDBSQLite

/// The default store: one SQLite file in WAL mode, so reads run while a save
/// is writing. Saves are single transactions. Each entity is a table with its
/// primary key (`Z_PK`), a row version (`Z_OPT`), a column per attribute and
/// per to-one relationship, plus a join table per many-to-many relationship.
///
/// Opening checks the file before writing anything: a file that is not an
/// SQLite database, an SQLite database that Coherence did not create, or a
/// store saved with a model that cannot be migrated throws a ``StoreError``
/// and leaves the file byte for byte as it was. A migratable model is
/// migrated in one transaction.
///
/// **Complexity:** reading one object is one indexed query; a save is one
/// transaction with one statement per changed object (plus join rows).
public final class SQLiteStore: PersistentStore {
    public let identifier: String
    /// `identifier`'s number, which this store's object IDs carry.
    let storeNumber: UInt32
    public var type: String { "SQLite" }
    /// The database file.
    public let url: URL
    let model: ManagedObjectModel
    let pool: DatabasePool
    /// Each entity's per-row SQL, by entity name.
    let statements: [String: SQLiteStatements]

    /// Opens (or creates) the store at `url` for `model`.
    /// - Throws: ``StoreError`` when the file cannot be used; it is then untouched.
    public init(url: URL, model: ManagedObjectModel) throws {
        self.url = url
        self.model = model
        statements = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, SQLiteStatements($0)) })
        let stored = try Self.inspect(url: url, model: model)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.label = "Coherence.SQLiteStore"
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in
                SQLiteFunctions.register(in: db)
                SQLiteCollations.register(in: db)
            }
            pool = try DatabasePool(path: url.path, configuration: configuration)
            var migrated = false
            identifier = try pool.write { db in
                if let (identifier, old) = stored {
                    let migration = try SQLiteMigration(from: old, to: model)
                    try SQLiteSchema.dropFetchIndexes(notDeclaredIn: model, in: db)
                    try migration.apply(in: db)
                    try SQLiteSchema.createFetchIndexes(model, in: db)
                    try Self.writeModel(model, in: db)
                    migrated = !migration.isEmpty || old != StoredModel(model)
                    return identifier
                }
                // Another process may have created the store since `inspect`.
                if try db.tableExists(SQLiteSchema.metadataTable),
                   let identifier = try String.fetchOne(db, sql: "SELECT value FROM \(SQLiteSchema.metadataTable) WHERE key = 'storeUUID'") {
                    return identifier
                }
                let identifier = UUID().uuidString
                try SQLiteSchema.create(model, in: db)
                try SQLiteSchema.createFetchIndexes(model, in: db)
                try db.execute(sql: "INSERT INTO \(SQLiteSchema.metadataTable) (key, value) VALUES ('storeUUID', ?)", arguments: [identifier])
                try Self.writeModel(model, in: db)
                return identifier
            }
            storeNumber = StoreNumbers.number(for: identifier)
            // Derived columns added or changed by the migration start right.
            if migrated { try pool.write { db in try recomputeAllDerived(in: db) } }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// Reads an existing file without writing to it: its store identifier and
    /// the model it was saved with, or `nil` for a new (missing or empty) file.
    /// With a `model`, also checks that the file can be migrated to it.
    static func inspect(url: URL, model: ManagedObjectModel?) throws -> (String, StoredModel)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = attributes[.size] as? Int, size > 0 else { return nil }
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw StoreError.notASQLiteDatabase(path: url.path) }
        let header = handle.readData(ofLength: 16)
        try? handle.close()
        guard header == Data("SQLite format 3\0".utf8) else { throw StoreError.notASQLiteDatabase(path: url.path) }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.prepareDatabase { db in SQLiteCollations.register(in: db) } // fetch indexes use them
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                guard try db.tableExists(SQLiteSchema.metadataTable),
                      let identifier = try String.fetchOne(db, sql: "SELECT value FROM \(SQLiteSchema.metadataTable) WHERE key = 'storeUUID'"),
                      let data = try Data.fetchOne(db, sql: "SELECT value FROM \(SQLiteSchema.metadataTable) WHERE key = 'model'"),
                      let old = try? JSONDecoder().decode(StoredModel.self, from: data) else {
                    throw StoreError.notACoherenceStore(path: url.path)
                }
                if let model { _ = try SQLiteMigration(from: old, to: model) } // throws if it cannot be done
                return (identifier, old)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw StoreError.notASQLiteDatabase(path: url.path)
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    private static func writeModel(_ model: ManagedObjectModel, in db: Database) throws {
        let stored = StoredModel(model)
        try db.execute(sql: "INSERT OR REPLACE INTO \(SQLiteSchema.metadataTable) (key, value) VALUES ('model', ?), ('modelHash', ?)",
                       arguments: [try stored.encoded(), stored.hash])
    }

    /// The hash of the model the store was last opened with.
    public func modelHash() throws -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM \(SQLiteSchema.metadataTable) WHERE key = 'modelHash'") }
    }

    // MARK: Reading

    /// How many read transactions the store ran: a way to spot N+1 access
    /// patterns (compare with `relationshipKeyPathsForPrefetching`).
    public var queryCount: Int { queries.withLock { $0 } }
    private let queries = Locked(0)

    /// How many rows the store's reads turned into snapshots: with
    /// ``queryCount``, a way to check that a fetch with a `fetchLimit` reads
    /// its window and not every row of the entity.
    public var rowsRead: Int { rows.withLock { $0 } }
    private let rows = Locked(0)

    /// Counts `count` rows read (see ``rowsRead``).
    private func noteRowsRead(_ count: Int) {
        rows.withLock { $0 += count }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        queries.withLock { $0 += 1 }
        do {
            return try pool.read(body)
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.write(body)
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// The entity of a class in the store's model.
    func entity(of objectID: ManagedObjectID) throws -> EntityDescription {
        guard let entity = model.entity(for: objectID.objectClass) else { throw StoreError.unknownEntity(objectID.entityName) }
        return entity
    }

    /// Runs `statement` with `arguments` and calls `body` with SQLite's
    /// statement on each row, so that rows are read column by column without
    /// building a GRDB `Row`.
    func forEachRow(_ statement: Statement, arguments: StatementArguments = StatementArguments(),
                    _ body: (SQLiteStatement) throws -> Void) throws {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while try rows.next() != nil {
            try body(statement.sqliteStatement)
        }
    }

    /// A snapshot from the row `statement` stands on, selected with
    /// ``SQLiteSchema/selectList(_:alias:)`` starting at column `offset`.
    func snapshot(from statement: SQLiteStatement, entity: EntityDescription, offset: Int = 0) throws -> Snapshot {
        if entity.isInHierarchy || entity.referencesHierarchy { return try hierarchySnapshot(from: statement, entity: entity, offset: offset) }
        let first = CInt(offset)
        let key = sqlite3_column_int64(statement, first)
        let version = sqlite3_column_int64(statement, first + 1)
        var values: [StoreValue] = []
        values.reserveCapacity(entity.propertyCount)
        var column = first + 2
        for (index, slot) in entity.attributeSlots.enumerated() {
            if slot.isTransient {
                // No column: a loaded object has the declared initial value.
                values.append(entity.attributes[index].defaultValue ?? .null)
                continue
            }
            do {
                let value = try StoreValue(sqliteStatement: statement, index: column, type: slot.attributeType)
                if case .null = value, slot.readsNullAsNaN {
                    values.append(.double(.nan))
                } else {
                    values.append(value)
                }
            } catch {
                throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name, reason: "\(error)")
            }
            column += 1
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                values.append(.toManyFault)
            } else {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_NULL:
                    values.append(.null)
                case SQLITE_INTEGER:
                    let destination = sqlite3_column_int64(statement, column)
                    values.append(.objectID(makeObjectID(relationship.destinationType, key: destination)))
                default:
                    throw StoreError.invalidStoredValue(entity: entity.name, property: relationship.name,
                                                        reason: "a to-one relationship's column holds a row key, found something else")
                }
                column += 1
            }
        }
        return Snapshot(objectID: makeObjectID(entity.managedObjectClass, key: key),
                        values: values, version: version)
    }

    /// The snapshots of the rows `statement` selects with `arguments`.
    func snapshots(_ statement: Statement, arguments: StatementArguments = StatementArguments(),
                   entity: EntityDescription) throws -> [Snapshot] {
        var snapshots: [Snapshot] = []
        try forEachRow(statement, arguments: arguments) { snapshots.append(try snapshot(from: $0, entity: entity)) }
        return snapshots
    }

    /// The ID of row `key` of an entity of this store.
    func makeObjectID(_ objectClass: ManagedObject.Type, key: Int64) -> ManagedObjectID {
        ManagedObjectID(objectClass: objectClass, storeNumber: storeNumber, key: key)
    }

    public func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        guard objectID.storeNumber == storeNumber else { return nil }
        let entity = try entity(of: objectID)
        return try read { db in
            // In a hierarchy, the row must be of the ID's entity (an ID naming
            // a parent for a sub-entity's row names no object).
            guard let snapshot = try snapshots(db.cachedStatement(sql: sql(entity).selectByKey), arguments: [objectID.key], entity: entity).first,
                  !entity.isInHierarchy || snapshot.objectID == objectID
            else { return nil }
            noteRowsRead(1)
            return snapshot
        }
    }

    public func snapshots(of entity: EntityDescription) throws -> [Snapshot] {
        try read { db in
            let restriction = SQLiteSchema.entityRestriction(entity, subentities: false, alias: entity.rootEntity.name).map { " WHERE \($0)" } ?? ""
            let sql = "SELECT \(SQLiteSchema.selectList(entity)) FROM \(SQLiteSchema.table(entity))\(restriction) ORDER BY \(SQLiteSchema.quote(SQLiteSchema.primaryKey))"
            let snapshots = try snapshots(db.cachedStatement(sql: sql), entity: entity)
            noteRowsRead(snapshots.count)
            return snapshots
        }
    }

    public func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> Set<ManagedObjectID> {
        let entity = try entity(of: objectID)
        return try read { db in
            if relationship.destinationHasSubentities {
                return try hierarchyRelatedObjectIDs(of: objectID, entity: entity, relationship: relationship, in: db)
            }
            let keys: [Int64]
            if let join = SQLiteSchema.joinTable(relationship, of: entity) {
                keys = try Int64.fetchAll(db.cachedStatement(
                    sql: "SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) = ?"), arguments: [objectID.key])
            } else {
                let destination = SQLiteSchema.table(named: relationship.destinationRootEntityName)
                keys = try Int64.fetchAll(db.cachedStatement(
                    sql: "SELECT \(SQLiteSchema.quote(SQLiteSchema.primaryKey)) FROM \(destination) WHERE \(SQLiteSchema.quote(relationship.inverseName)) = ?"),
                    arguments: [objectID.key])
            }
            return Set(keys.map { makeObjectID(relationship.destinationType, key: $0) })
        }
    }

    // MARK: Fetching

    /// `FROM … WHERE … ORDER BY … LIMIT …` for a request, with its arguments.
    func query(for request: StoreFetchRequest) throws -> (sql: String, arguments: StatementArguments) {
        let entity = request.entity
        var sql = "FROM \(SQLiteSchema.table(entity)) AS t0"
        var arguments: [DatabaseValue] = []
        var conditions: [String] = []
        if let restriction = SQLiteSchema.entityRestriction(entity, subentities: request.includesSubentities) {
            conditions.append(restriction)
        }
        if let predicate = request.predicate, let variable = request.variable {
            var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, entity: entity)
            conditions.append(try compiler.condition(for: predicate, variable: variable))
            arguments = compiler.arguments
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.map { conditions.count > 1 ? "(\($0))" : $0 }.joined(separator: " AND ") }
        let order = request.sortDescriptors.map { descriptor in
            let column = SQLiteSchema.orderedColumn(entity.attributes[descriptor.propertyIndex], strings: descriptor.strings, alias: "t0")
            return "\(column) \(descriptor.ascending ? "ASC" : "DESC")"
        } + ["t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey))"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [(request.fetchLimit > 0 ? request.fetchLimit : -1).databaseValue, request.fetchOffset.databaseValue]
        }
        return (sql, StatementArguments(values: arguments))
    }

    public func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? {
        let (query, arguments) = try query(for: request)
        let entity = request.entity
        return try read { db in
            let snapshots = try snapshots(db.makeStatement(sql: "SELECT \(SQLiteSchema.selectList(entity, alias: "t0")) \(query)"),
                                          arguments: arguments, entity: entity)
            noteRowsRead(snapshots.count)
            return snapshots
        }
    }

    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? {
        let (query, arguments) = try query(for: request)
        let entity = request.entity
        return try read { db in
            if entity.isInHierarchy { return try hierarchyObjectIDs(query, arguments: arguments, in: db) }
            let keys = try Int64.fetchAll(db, sql: "SELECT t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey)) \(query)", arguments: arguments)
            return keys.map { makeObjectID(entity.managedObjectClass, key: $0) }
        }
    }

    public func count(_ request: StoreFetchRequest) throws -> Int? {
        let (query, arguments) = try query(for: request)
        return try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 \(query))", arguments: arguments) ?? 0
        }
    }

    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        var byEntity: [ObjectIdentifier: (EntityDescription, [Int64])] = [:]
        for id in objectIDs where id.storeNumber == storeNumber {
            let entity = try entity(of: id)
            byEntity[ObjectIdentifier(entity), default: (entity, [])].1.append(id.key)
        }
        guard !byEntity.isEmpty else { return [] }
        let wanted = byEntity.values.contains { $0.0.isInHierarchy } ? Set(objectIDs) : []
        return try read { db in
            var snapshots: [Snapshot] = []
            for (entity, keys) in byEntity.values {
                for chunk in stride(from: 0, to: keys.count, by: 500).map({ Array(keys[$0..<min($0 + 500, keys.count)]) }) {
                    let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                    let sql = "SELECT \(SQLiteSchema.selectList(entity, alias: "t0")) FROM \(SQLiteSchema.table(entity)) AS t0 WHERE t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey)) IN (\(placeholders))"
                    let read = try self.snapshots(db.makeStatement(sql: sql), arguments: StatementArguments(keys: chunk), entity: entity)
                    snapshots += entity.isInHierarchy ? read.filter { wanted.contains($0.objectID) } : read
                }
            }
            noteRowsRead(snapshots.count)
            return snapshots
        }
    }

    public func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]] {
        let owners = objectIDs.filter { $0.storeNumber == storeNumber }
        guard let first = owners.first else { return [:] }
        let ownerEntity = try entity(of: first)
        guard let destination = model.entitiesByName[relationship.destinationEntityName] else {
            throw StoreError.unknownEntity(relationship.destinationEntityName)
        }
        let ownersByKey = Dictionary(owners.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return try read { db in
            var result: [ManagedObjectID: [Snapshot]] = Dictionary(uniqueKeysWithValues: owners.map { ($0, []) })
            let keys = Array(ownersByKey.keys)
            for chunk in stride(from: 0, to: keys.count, by: 500).map({ Array(keys[$0..<min($0 + 500, keys.count)]) }) {
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let sql: String
                if let join = SQLiteSchema.joinTable(relationship, of: ownerEntity) {
                    sql = "SELECT j.\(join.sourceColumn), \(SQLiteSchema.selectList(destination, alias: "t0")) FROM \(join.name) AS j JOIN \(SQLiteSchema.table(destination)) AS t0 ON t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey)) = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN (\(placeholders))"
                } else {
                    sql = "SELECT t0.\(SQLiteSchema.quote(relationship.inverseName)), \(SQLiteSchema.selectList(destination, alias: "t0")) FROM \(SQLiteSchema.table(destination)) AS t0 WHERE t0.\(SQLiteSchema.quote(relationship.inverseName)) IN (\(placeholders))"
                }
                try forEachRow(db.makeStatement(sql: sql), arguments: StatementArguments(keys: chunk)) { statement in
                    guard let owner = ownersByKey[sqlite3_column_int64(statement, 0)] else { return }
                    result[owner, default: []].append(try snapshot(from: statement, entity: destination, offset: 1))
                }
            }
            noteRowsRead(result.values.reduce(0) { $0 + $1.count })
            return result
        }
    }
}

extension StoreError {
    /// A GRDB error, with its SQL.
    init(_ error: DatabaseError) {
        self = .sqlite(code: error.extendedResultCode.rawValue, message: error.message ?? "\(error)", sql: error.sql)
    }
}
