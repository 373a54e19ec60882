import Foundation
internal import GRDB

// Batch requests as SQL, in one transaction each.
extension SQLiteStore {
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult? {
        switch request {
        case .insert(let entity, let rows):
            return try write { db in
                let ids = try reserveKeys(rows.count, for: entity, in: db)
                var destinations = Set<ManagedObjectID>()
                let statement = try insertStatement(entity, in: db)
                for (id, row) in zip(ids, rows) {
                    try insertRow(id: id, values: row, entity: entity, with: statement)
                    for relationship in SQLiteSchema.toOne(entity) {
                        guard case .objectID(let destination) = row[relationship.index] else { continue }
                        destinations.insert(destination)
                        if !relationship.inverseIsToMany {
                            try linkOneToOne(relationship, from: id, to: destination, entity: entity, in: db)
                        }
                    }
                }
                let keys = ids.map(\.key)
                let parents = try derivedParents(
                    of: entity, where: " WHERE t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey)) IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))",
                    arguments: StatementArguments(keys: keys), in: db)
                destinations.formUnion(try recomputeDerived(parents, in: db))
                return StoreBatchResult(affected: ids, changes: ObjectIDChanges(inserted: Set(ids), updated: destinations))
            }
        case .update(let entity, let predicate, let variable, let values, let includesSubentities):
            let (condition, arguments) = try whereClause(entity: entity, predicate: predicate, variable: variable,
                                                         subentities: includesSubentities)
            let version = SQLiteSchema.quote(SQLiteSchema.version)
            let bound = values.keys.sorted().map { (index: $0, argument: values[$0]!.sqlArgument) }
            let assignments = ["\(version) = \(version) + 1"] + bound.map {
                "\(SQLiteSchema.quote(entity.propertyName(at: $0.index))) = \($0.argument.placeholder)"
            }
            let returning = SQLiteSchema.quote(SQLiteSchema.primaryKey) + (entity.isInHierarchy ? ", \(SQLiteSchema.quote(SQLiteSchema.entityColumn))" : "")
            let sql = "UPDATE \(SQLiteSchema.table(entity)) AS t0 SET \(assignments.joined(separator: ", "))\(condition) RETURNING \(returning)"
            let allArguments = StatementArguments(values: bound.map(\.argument.value)) + arguments
            return try write { db in
                let parentsBefore = try derivedParents(of: entity, where: condition, arguments: arguments, in: db)
                let ids = try Row.fetchAll(db, sql: sql, arguments: allArguments).map { row in
                    let name: String? = entity.isInHierarchy ? row[1] : nil
                    return makeObjectID(name.flatMap { model.entitiesByName[$0]?.managedObjectClass } ?? entity.managedObjectClass, key: row[0])
                }
                let derived = try recomputeDerived(parentsBefore, in: db)
                return StoreBatchResult(affected: ids, changes: ObjectIDChanges(updated: Set(ids).union(derived)))
            }
        case .delete(let entity, let predicate, let variable, let includesSubentities):
            let (condition, arguments) = try whereClause(entity: entity, predicate: predicate, variable: variable,
                                                         subentities: includesSubentities)
            return try write { db in
                let keys = try Int64.fetchAll(db, sql: "SELECT t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey)) FROM \(SQLiteSchema.table(entity)) AS t0\(condition)",
                                              arguments: arguments)
                var changes = ObjectIDChanges()
                var parents: [Int: Set<Int64>] = [:]
                let affected = try objectIDs(keys, of: entity, in: db)
                try deleteRows(keys, of: entity, changes: &changes, parents: &parents, in: db)
                changes.updated.formUnion(try recomputeDerived(parents, in: db))
                changes.updated.subtract(changes.deleted)
                return StoreBatchResult(affected: affected, changes: changes)
            }
        }
    }

    /// Points a one-to-one destination back at a new row, detaching whatever
    /// row pointed at that destination before (as the context would).
    private func linkOneToOne(_ relationship: RelationshipDescription, from id: ManagedObjectID, to destination: ManagedObjectID,
                              entity: EntityDescription, in db: Database) throws {
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let version = SQLiteSchema.quote(SQLiteSchema.version)
        let column = SQLiteSchema.quote(relationship.name)
        try db.execute(sql: "UPDATE \(SQLiteSchema.table(entity)) SET \(column) = NULL, \(version) = \(version) + 1 WHERE \(column) = ? AND \(pk) != ?",
                       arguments: [destination.key, id.key])
        let inverse = SQLiteSchema.quote(relationship.inverseName)
        try db.execute(sql: "UPDATE \(SQLiteSchema.table(named: relationship.destinationRootEntityName)) SET \(inverse) = ?, \(version) = \(version) + 1 WHERE \(pk) = ?",
                       arguments: [id.key, destination.key])
    }

    /// ` WHERE …` for a predicate over alias `t0`, or nothing.
    private func whereClause(entity: EntityDescription, predicate: (any StandardPredicateExpression<Bool>)?,
                             variable: PredicateExpressions.VariableID?, subentities: Bool) throws -> (String, StatementArguments) {
        // A request of a parent entity covers its sub-entities unless told not to, as a fetch does.
        let restriction = SQLiteSchema.entityRestriction(entity, subentities: subentities)
        guard let predicate, let variable else { return (restriction.map { " WHERE \($0)" } ?? "", []) }
        var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, entity: entity)
        let condition = try compiler.condition(for: predicate, variable: variable)
        let combined = restriction.map { "(\(condition)) AND \($0)" } ?? condition
        return (" WHERE \(combined)", StatementArguments(values: compiler.arguments))
    }

    /// Deletes rows and applies their delete rules in SQL: cascade deletes
    /// destinations, nullify clears the inverse column or join rows, deny
    /// throws if a destination remains.
    private func deleteRows(_ keys: [Int64], of entity: EntityDescription, changes: inout ObjectIDChanges,
                            parents: inout [Int: Set<Int64>], in db: Database) throws {
        guard entity.isInHierarchy else {
            return try deleteConcreteRows(keys, of: entity, changes: &changes, parents: &parents, in: db)
        }
        // Each row with the relationships and delete rules of its own entity.
        var byEntity: [String: [Int64]] = [:]
        for id in try objectIDs(keys, of: entity, in: db) { byEntity[id.entityName, default: []].append(id.key) }
        for (name, keys) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let concrete = model.entitiesByName[name] else { continue }
            try deleteConcreteRows(keys, of: concrete, changes: &changes, parents: &parents, in: db)
        }
    }

    /// The IDs of rows `keys` of `entity`'s table, naming each row's concrete
    /// entity (rows that are gone are left out for an entity in a hierarchy).
    func objectIDs(_ keys: [Int64], of entity: EntityDescription, in db: Database) throws -> [ManagedObjectID] {
        guard entity.isInHierarchy else { return keys.map { makeObjectID(entity.managedObjectClass, key: $0) } }
        var ids: [ManagedObjectID] = []
        for chunk in stride(from: 0, to: keys.count, by: 500).map({ Array(keys[$0..<min($0 + 500, keys.count)]) }) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let query = "FROM \(SQLiteSchema.table(entity)) AS t0 WHERE t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey)) IN (\(placeholders))"
            ids += try hierarchyObjectIDs(query, arguments: StatementArguments(keys: chunk), in: db)
        }
        return ids
    }

    private func deleteConcreteRows(_ keys: [Int64], of entity: EntityDescription, changes: inout ObjectIDChanges,
                                    parents: inout [Int: Set<Int64>], in db: Database) throws {
        let fresh = keys.filter { !changes.deleted.contains(makeObjectID(entity.managedObjectClass, key: $0)) }
        guard !fresh.isEmpty else { return }
        for key in fresh { changes.deleted.insert(makeObjectID(entity.managedObjectClass, key: key)) }
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        for chunk in stride(from: 0, to: fresh.count, by: 500).map({ Array(fresh[$0..<min($0 + 500, fresh.count)]) }) {
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let arguments = StatementArguments(keys: chunk)
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
                    try deleteRows(destinationKeys, of: destination, changes: &changes, parents: &parents, in: db)
                case .nullify:
                    if !relationship.inverseIsToMany {
                        try db.execute(sql: "UPDATE \(SQLiteSchema.table(destination)) SET \(SQLiteSchema.quote(relationship.inverseName)) = NULL, \(SQLiteSchema.quote(SQLiteSchema.version)) = \(SQLiteSchema.quote(SQLiteSchema.version)) + 1 WHERE \(SQLiteSchema.quote(relationship.inverseName)) IN (\(placeholders))",
                                       arguments: arguments)
                    }
                    changes.updated.formUnion(destinationIDs)
                case .noAction:
                    break
                }
                if let join = SQLiteSchema.joinTable(relationship, of: entity) {
                    try db.execute(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN (\(placeholders))", arguments: arguments)
                }
            }
            try db.execute(sql: "DELETE FROM \(SQLiteSchema.table(entity)) WHERE \(pk) IN (\(placeholders))", arguments: arguments)
        }
    }

    /// The destination keys of a relationship for some owner rows.
    private func destinationKeys(of relationship: RelationshipDescription, owner: EntityDescription, ownerKeys placeholders: String,
                                 arguments: StatementArguments, in db: Database) throws -> [Int64] {
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        if let join = SQLiteSchema.joinTable(relationship, of: owner) {
            return try Int64.fetchAll(db, sql: "SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) IN (\(placeholders))", arguments: arguments)
        }
        if relationship.isToMany {
            return try Int64.fetchAll(db, sql: "SELECT \(pk) FROM \(SQLiteSchema.table(named: relationship.destinationRootEntityName)) WHERE \(SQLiteSchema.quote(relationship.inverseName)) IN (\(placeholders))",
                                      arguments: arguments)
        }
        return try Int64.fetchAll(db, sql: "SELECT \(SQLiteSchema.quote(relationship.name)) FROM \(SQLiteSchema.table(owner)) WHERE \(pk) IN (\(placeholders)) AND \(SQLiteSchema.quote(relationship.name)) IS NOT NULL",
                                  arguments: arguments)
    }
}
