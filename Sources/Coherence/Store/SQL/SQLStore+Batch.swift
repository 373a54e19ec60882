import Foundation

// Batch requests as SQL, in one transaction each.
extension SQLStore {
    /// Runs a batch request; with history tracking, records it as one
    /// transaction of `author` and `contextName`. A deadlock or a
    /// serialization failure (PostgreSQL, whose writers run side by side)
    /// rolls it back, and it runs again (see ``transientRetries``).
    package func execute(_ request: StoreBatchRequest, author: String? = nil, contextName: String? = nil) throws -> StoreBatchResult? {
        do {
            return try Self.retryingDeadlocks { try executeInSQL(request, author: author, contextName: contextName) }
        } catch is SQLDialectCannotEvaluate {
            return nil // the context runs it through a scratch context
        }
    }

    private func executeInSQL(_ request: StoreBatchRequest, author: String?, contextName: String?) throws -> StoreBatchResult {
        switch request {
        case .insert(let entity, var rows):
            // Of several new rows linked to one destination by a one-to-one
            // relationship, the last keeps it, as if inserted one by one.
            for relationship in SQLSchema.toOne(entity) where !relationship.inverseIsToMany {
                var last: [ManagedObjectID: Int] = [:]
                for (position, row) in rows.enumerated() {
                    if case .objectID(let destination) = row[relationship.index] { last[destination] = position }
                }
                for position in rows.indices {
                    if case .objectID(let destination) = rows[position][relationship.index], last[destination] != position {
                        rows[position][relationship.index] = .null
                    }
                }
            }
            return try write { db in
                let ids = try reserveKeys(rows.count, for: entity, in: db)
                var destinations = Set<ManagedObjectID>()
                try db.executeMany(sql(entity).insert, count: rows.count) { index, arguments in
                    appendInsertValues(id: ids[index], values: rows[index], entity: entity, to: &arguments)
                }
                for (id, row) in zip(ids, rows) {
                    for relationship in SQLSchema.toOne(entity) {
                        guard case .objectID(let destination) = row[relationship.index] else { continue }
                        destinations.insert(destination)
                        if !relationship.inverseIsToMany {
                            try linkOneToOne(relationship, from: id, to: destination, entity: entity, in: db)
                        }
                    }
                }
                let keys = ids.map(\.key)
                var parents: [Int: Set<Int64>] = [:]
                for chunk in chunked(keys) {
                    let fed = try derivedParents(
                        of: entity, where: " WHERE t0.\(SQLSchema.quote(SQLSchema.primaryKey)) IN (\(placeholders(chunk.count)))",
                        arguments: chunk.map { .integer($0) }, in: db)
                    parents.merge(fed) { $0.union($1) }
                }
                destinations.formUnion(try recomputeDerived(parents, in: db))
                let changes = ObjectIDChanges(inserted: Set(ids), updated: destinations)
                try writeBatchHistory(changes, inserted: ids, author: author, contextName: contextName, in: db)
                return StoreBatchResult(affected: ids, changes: changes)
            }
        case .update(let entity, let predicate, let variable, let values, let includesSubentities):
            let (condition, arguments) = try whereClause(entity: entity, predicate: predicate, variable: variable,
                                                         subentities: includesSubentities)
            let version = SQLSchema.quote(SQLSchema.version)
            let bound = values.keys.sorted()
            let assignments = ["\(version) = \(version) + 1"] + bound.map { "\(SQLSchema.quote(entity.propertyName(at: $0))) = ?" }
            let returning = SQLSchema.quote(SQLSchema.primaryKey) + (entity.isInHierarchy ? ", \(SQLSchema.quote(SQLSchema.entityColumn))" : "")
            let sql = "UPDATE \(SQLSchema.table(entity)) AS t0 SET \(assignments.joined(separator: ", "))\(condition) RETURNING \(returning)"
            let allArguments = bound.map { values[$0]! } + arguments
            return try write { db in
                let parentsBefore = try derivedParents(of: entity, where: condition, arguments: arguments, in: db)
                var ids: [ManagedObjectID] = []
                try db.forEachRow(sql, allArguments) { row in
                    let name: String? = entity.isInHierarchy && row.columnType(1) == .text ? row.string(1) : nil
                    ids.append(makeObjectID(name.flatMap { model.entitiesByName[$0]?.managedObjectClass } ?? entity.managedObjectClass, key: row.int64(0)))
                }
                let derived = try recomputeDerived(parentsBefore, in: db)
                let changes = ObjectIDChanges(updated: Set(ids).union(derived))
                try writeBatchHistory(changes, updated: ids, properties: bound.map { entity.propertyName(at: $0) },
                                      author: author, contextName: contextName, in: db)
                return StoreBatchResult(affected: ids, changes: changes)
            }
        case .delete(let entity, let predicate, let variable, let includesSubentities):
            let (condition, arguments) = try whereClause(entity: entity, predicate: predicate, variable: variable,
                                                         subentities: includesSubentities)
            return try write { db in
                // PostgreSQL: the rows are locked first (saves of other
                // processes run beside this), so that the delete rules'
                // statements after this one see every save that touched them.
                let lock = db.dialect == .postgres ? " ORDER BY t0.\(SQLSchema.quote(SQLSchema.primaryKey)) FOR UPDATE OF t0" : ""
                let keys = try db.int64s("SELECT t0.\(SQLSchema.quote(SQLSchema.primaryKey)) FROM \(SQLSchema.table(entity)) AS t0\(condition)\(lock)", arguments)
                var changes = ObjectIDChanges()
                var parents: [Int: Set<Int64>] = [:]
                var tombstones: [SQLHistoryChange] = []
                let affected = try objectIDs(keys, of: entity, in: db)
                try deleteRows(keys, of: entity, changes: &changes, parents: &parents, tombstones: &tombstones, in: db)
                changes.updated.formUnion(try recomputeDerived(parents, in: db))
                changes.updated.subtract(changes.deleted)
                try writeBatchHistory(changes, tombstones: tombstones, author: author, contextName: contextName, in: db)
                return StoreBatchResult(affected: affected, changes: changes)
            }
        }
    }

    /// Points a one-to-one destination back at a new row, detaching whatever
    /// row pointed at that destination before (as the context would).
    private func linkOneToOne(_ relationship: RelationshipDescription, from id: ManagedObjectID, to destination: ManagedObjectID,
                              entity: EntityDescription, in db: any SQLDatabase) throws {
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let version = SQLSchema.quote(SQLSchema.version)
        let column = SQLSchema.quote(relationship.name)
        try db.execute("UPDATE \(SQLSchema.table(entity)) SET \(column) = NULL, \(version) = \(version) + 1 WHERE \(column) = ? AND \(pk) != ?",
                       [.integer(destination.key), .integer(id.key)])
        let inverse = SQLSchema.quote(relationship.inverseName)
        try db.execute("UPDATE \(SQLSchema.table(named: relationship.destinationRootEntityName)) SET \(inverse) = ?, \(version) = \(version) + 1 WHERE \(pk) = ?",
                       [.integer(id.key), .integer(destination.key)])
    }

    /// ` WHERE …` for a predicate over alias `t0`, or nothing.
    private func whereClause(entity: EntityDescription, predicate: (any StandardPredicateExpression<Bool>)?,
                             variable: PredicateExpressions.VariableID?, subentities: Bool) throws -> (String, [StoreValue]) {
        // A request of a parent entity covers its sub-entities unless told not to, as a fetch does.
        let restriction = SQLSchema.entityRestriction(entity, subentities: subentities)
        guard let predicate, let variable else { return (restriction.map { " WHERE \($0)" } ?? "", []) }
        var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, dialect: dialect, entity: entity)
        let condition = try compiler.condition(for: predicate, variable: variable)
        let combined = restriction.map { "(\(condition)) AND \($0)" } ?? condition
        return (" WHERE \(combined)", compiler.arguments)
    }

    /// Deletes rows and applies their delete rules in SQL: cascade deletes
    /// destinations, nullify clears the inverse column or join rows, deny
    /// throws if a destination remains.
    private func deleteRows(_ keys: [Int64], of entity: EntityDescription, changes: inout ObjectIDChanges,
                            parents: inout [Int: Set<Int64>], tombstones: inout [SQLHistoryChange], in db: any SQLDatabase) throws {
        guard entity.isInHierarchy else {
            return try deleteConcreteRows(keys, of: entity, changes: &changes, parents: &parents, tombstones: &tombstones, in: db)
        }
        // Each row with the relationships and delete rules of its own entity.
        var byEntity: [String: [Int64]] = [:]
        for id in try objectIDs(keys, of: entity, in: db) { byEntity[id.entityName, default: []].append(id.key) }
        for (name, keys) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let concrete = model.entitiesByName[name] else { continue }
            try deleteConcreteRows(keys, of: concrete, changes: &changes, parents: &parents, tombstones: &tombstones, in: db)
        }
    }

    /// The IDs of rows `keys` of `entity`'s table, naming each row's concrete
    /// entity (rows that are gone are left out for an entity in a hierarchy).
    func objectIDs(_ keys: [Int64], of entity: EntityDescription, in db: any SQLDatabase) throws -> [ManagedObjectID] {
        guard entity.isInHierarchy else { return keys.map { makeObjectID(entity.managedObjectClass, key: $0) } }
        var ids: [ManagedObjectID] = []
        for chunk in chunked(keys) {
            let query = "FROM \(SQLSchema.table(entity)) AS t0 WHERE t0.\(SQLSchema.quote(SQLSchema.primaryKey)) IN (\(placeholders(chunk.count)))"
            ids += try hierarchyObjectIDs(query, arguments: chunk.map { .integer($0) }, in: db)
        }
        return ids
    }

    private func deleteConcreteRows(_ keys: [Int64], of entity: EntityDescription, changes: inout ObjectIDChanges,
                                    parents: inout [Int: Set<Int64>], tombstones: inout [SQLHistoryChange], in db: any SQLDatabase) throws {
        let fresh = keys.filter { !changes.deleted.contains(makeObjectID(entity.managedObjectClass, key: $0)) }
        guard !fresh.isEmpty else { return }
        for key in fresh { changes.deleted.insert(makeObjectID(entity.managedObjectClass, key: key)) }
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        for chunk in chunked(fresh) {
            let placeholders = placeholders(chunk.count)
            let arguments: [StoreValue] = chunk.map { .integer($0) }
            // Derived values these rows fed, to recompute once they are gone.
            for (id, keys) in try derivedParents(of: entity, where: " WHERE t0.\(pk) IN (\(placeholders))", arguments: arguments, in: db) {
                parents[id, default: []].formUnion(keys)
            }
            for relationship in entity.relationships {
                guard let destination = model.entitiesByName[relationship.destinationEntityName] else { continue }
                let destinationKeys = try destinationKeys(of: relationship, owner: entity, ownerKeys: placeholders, arguments: arguments, in: db)
                let destinationIDs = try objectIDs(destinationKeys, of: destination, in: db)
                switch relationship.deleteRule {
                case .deny:
                    if destinationIDs.contains(where: { !changes.deleted.contains($0) }) {
                        throw ValidationError.deleteDenied(entity: entity.name, property: relationship.name)
                    }
                case .cascade:
                    try deleteRows(destinationKeys, of: destination, changes: &changes, parents: &parents, tombstones: &tombstones, in: db)
                case .nullify:
                    if !relationship.inverseIsToMany {
                        try db.execute("UPDATE \(SQLSchema.table(destination)) SET \(SQLSchema.quote(relationship.inverseName)) = NULL, \(SQLSchema.quote(SQLSchema.version)) = \(SQLSchema.quote(SQLSchema.version)) + 1 WHERE \(SQLSchema.quote(relationship.inverseName)) IN (\(placeholders))",
                                       arguments)
                    }
                    changes.updated.formUnion(destinationIDs)
                case .noAction:
                    break
                }
                if let join = SQLSchema.joinTable(relationship, of: entity) {
                    try db.execute("DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN (\(placeholders))", arguments)
                }
            }
            tombstones += try self.tombstones(chunk, of: entity, in: db)
            try db.execute("DELETE FROM \(SQLSchema.table(entity)) WHERE \(pk) IN (\(placeholders))", arguments)
        }
    }

    /// The destination keys of a relationship for some owner rows.
    private func destinationKeys(of relationship: RelationshipDescription, owner: EntityDescription, ownerKeys placeholders: String,
                                 arguments: [StoreValue], in db: any SQLDatabase) throws -> [Int64] {
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        if let join = SQLSchema.joinTable(relationship, of: owner) {
            return try db.int64s("SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) IN (\(placeholders))", arguments)
        }
        if relationship.isToMany {
            return try db.int64s("SELECT \(pk) FROM \(SQLSchema.table(named: relationship.destinationRootEntityName)) WHERE \(SQLSchema.quote(relationship.inverseName)) IN (\(placeholders))",
                                 arguments)
        }
        return try db.int64s("SELECT \(SQLSchema.quote(relationship.name)) FROM \(SQLSchema.table(owner)) WHERE \(pk) IN (\(placeholders)) AND \(SQLSchema.quote(relationship.name)) IS NOT NULL",
                             arguments)
    }

    /// Records a batch request's changes as one history transaction:
    /// inserted rows, updated rows (with `properties` for the request's own
    /// `updated` rows), deleted rows (with their tombstones).
    private func writeBatchHistory(_ changes: ObjectIDChanges, inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [],
                                   properties: [String]? = nil, tombstones: [SQLHistoryChange] = [], author: String?, contextName: String?,
                                   in db: any SQLDatabase) throws {
        guard tracksPersistentHistory else { return }
        var history = inserted.map { SQLHistoryChange(objectID: $0, type: .insert) }
        history += updated.map { SQLHistoryChange(objectID: $0, type: .update, updated: properties) }
        let recorded = Set(inserted).union(updated)
        history += Self.inOrder(changes.updated.subtracting(recorded)).map { SQLHistoryChange(objectID: $0, type: .update) }
        let withTombstones = Dictionary(tombstones.map { ($0.objectID, $0) }) { first, _ in first }
        history += Self.inOrder(changes.deleted).map { withTombstones[$0] ?? SQLHistoryChange(objectID: $0, type: .delete) }
        try writeHistory(history, author: author, contextName: contextName, in: db)
    }

    /// `ids` by entity name, then key: each name is made once (an entity's
    /// name is built from its class), and runs of keys stay together.
    private static func inOrder(_ ids: Set<ManagedObjectID>) -> [ManagedObjectID] {
        ids.map { ($0.entityName, $0) }.sorted { ($0.0, $0.1.key) < ($1.0, $1.1.key) }.map(\.1)
    }
}
