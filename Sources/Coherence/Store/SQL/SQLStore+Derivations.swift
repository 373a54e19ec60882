import Foundation

// Derived values in SQL, for writes that bypass contexts: batch requests and
// migrations recompute the derived columns of the rows they affect.
extension SQLStore {
    /// The SQL expression computing `derivation` for the parent row `parent`
    /// (an alias), with its arguments.
    private func derivedExpression(_ derivation: DerivationDescription, parent: String) throws -> (String, [StoreValue]) {
        guard let child = model.entitiesByName[derivation.childEntityName],
              let parentEntity = model.entitiesByName[derivation.parentEntityName] else {
            throw StoreError.unknownEntity(derivation.childEntityName)
        }
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let childColumn = derivation.childAttributeIndex.map { "t0.\(SQLSchema.quote(child.propertyName(at: $0)))" } ?? "1"
        if derivation.kind == .copy {
            let relationship = parentEntity.propertyName(at: derivation.relationshipIndex)
            return ("(SELECT \(childColumn) FROM \(SQLSchema.table(child)) AS t0 WHERE t0.\(pk) = \(parent).\(SQLSchema.quote(relationship)))", [])
        }
        var condition = "t0.\(SQLSchema.quote(child.propertyName(at: derivation.inverseIndex))) = \(parent).\(pk)"
        // A child entity's rows (sub-entities' included) among its hierarchy's.
        if let restriction = SQLSchema.entityRestriction(child, subentities: true) { condition += " AND \(restriction)" }
        var arguments: [StoreValue] = []
        if let expression = derivation.declaration.expression, let variable = derivation.declaration.variable {
            var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, dialect: dialect, entity: child)
            condition += " AND (\(try compiler.condition(for: expression, variable: variable)))"
            arguments = compiler.arguments
        }
        let isDouble = parentEntity.attributes[derivation.propertyIndex].attributeType == .double
            || parentEntity.attributes[derivation.propertyIndex].attributeType == .float
        let aggregate = switch derivation.kind {
        case .count: "COUNT(*)"
        case .sum: "COALESCE(\(dialect.sum(childColumn, isDouble: isDouble)), \(isDouble ? "0.0" : "0"))"
        case .min: "MIN(\(childColumn))"
        case .max: "MAX(\(childColumn))"
        case .average: "AVG(\(childColumn))"
        case .copy: ""
        }
        return ("(SELECT \(aggregate) FROM \(SQLSchema.table(child)) AS t0 WHERE \(condition))", arguments)
    }

    /// Recomputes `derivation` for the parent rows `keys` (all rows when
    /// `nil`); returns the IDs of the rows whose value changed.
    @discardableResult
    func recomputeDerived(_ derivation: DerivationDescription, keys: Set<Int64>?, in db: any SQLDatabase) throws -> Set<ManagedObjectID> {
        guard let parentEntity = model.entitiesByName[derivation.parentEntityName], keys?.isEmpty != true else { return [] }
        let (expression, arguments) = try derivedExpression(derivation, parent: "p")
        let column = SQLSchema.quote(derivation.propertyName)
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let version = SQLSchema.quote(SQLSchema.version)
        var changed = Set<ManagedObjectID>()
        let chunks: [ArraySlice<Int64>?] = keys.map { chunked($0.sorted()) } ?? [nil]
        for chunk in chunks {
            var sql = "UPDATE \(SQLSchema.table(parentEntity)) AS p SET \(column) = \(expression), \(version) = \(version) + 1 WHERE \(dialect.isNotSame("p.\(column)", expression))"
            var allArguments = arguments + arguments
            if let restriction = SQLSchema.entityRestriction(parentEntity, subentities: true, alias: "p") { sql += " AND \(restriction)" }
            if let chunk {
                sql += " AND p.\(pk) IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))"
                allArguments += chunk.map { .integer($0) }
                if dialect == .postgres {
                    // Saves of other processes change these rows too: lock
                    // them first (in key order), so that the UPDATE, whose
                    // subquery reads the children as of its own start, counts
                    // every save that committed before it.
                    try db.execute("SELECT 1 FROM \(SQLSchema.table(parentEntity)) AS p WHERE p.\(pk) IN (\(placeholders(chunk.count))) ORDER BY p.\(pk) FOR UPDATE",
                                   chunk.map { .integer($0) })
                }
            }
            if parentEntity.isInHierarchy {
                sql += " RETURNING \(pk), \(SQLSchema.quote(SQLSchema.entityColumn))"
                try db.forEachRow(sql, allArguments) { row in
                    let name = row.string(1)
                    changed.insert(makeObjectID(model.entitiesByName[name]?.managedObjectClass ?? parentEntity.managedObjectClass, key: row.int64(0)))
                }
                continue
            }
            sql += " RETURNING \(pk)"
            for key in try db.int64s(sql, allArguments) {
                changed.insert(makeObjectID(parentEntity.managedObjectClass, key: key))
            }
        }
        return changed
    }

    /// The parent keys that rows of `entity` (given by `condition` over alias
    /// `t0`) feed, by derivation: aggregate parents, and the rows that copy
    /// from them.
    func derivedParents(of entity: EntityDescription, where condition: String, arguments: [StoreValue],
                        in db: any SQLDatabase) throws -> [Int: Set<Int64>] {
        var result: [Int: Set<Int64>] = [:]
        for derivation in entity.dependentDerivations {
            guard let parentEntity = model.entitiesByName[derivation.parentEntityName] else { continue }
            let pk = SQLSchema.quote(SQLSchema.primaryKey)
            let sql: String
            if derivation.kind == .copy {
                let relationship = SQLSchema.quote(parentEntity.propertyName(at: derivation.relationshipIndex))
                sql = "SELECT p.\(pk) FROM \(SQLSchema.table(parentEntity)) AS p WHERE p.\(relationship) IN (SELECT t0.\(pk) FROM \(SQLSchema.table(entity)) AS t0\(condition))"
            } else {
                // `entity` may be a sub-entity of the derivation's child entity.
                guard let inverseRelationship = derivation.inverse(in: entity) else { continue }
                let inverse = SQLSchema.quote(inverseRelationship.name)
                sql = "SELECT DISTINCT t0.\(inverse) FROM \(SQLSchema.table(entity)) AS t0\(condition)"
            }
            var keys: [Int64] = []
            try db.forEachRow(sql, arguments) { row in
                if row.columnType(0) != .null { keys.append(row.int64(0)) }
            }
            result[derivation.id, default: []].formUnion(keys)
        }
        return result
    }

    /// Recomputes the derived values of the collected parents.
    func recomputeDerived(_ parents: [Int: Set<Int64>], in db: any SQLDatabase) throws -> Set<ManagedObjectID> {
        var changed = Set<ManagedObjectID>()
        for (id, keys) in parents {
            changed.formUnion(try recomputeDerived(model.derivations[id], keys: keys, in: db))
        }
        return changed
    }

    /// After a migration: every derived column of every row.
    func recomputeAllDerived(in db: any SQLDatabase) throws {
        if dialect == .postgres {
            // Every row: no save of another process may change these tables
            // until this transaction ends (reads go on), so that each UPDATE
            // counts every committed child. All at once, in name order.
            let tables = Set(model.derivations.compactMap { model.entitiesByName[$0.parentEntityName]?.rootEntity.name }).sorted()
            if !tables.isEmpty {
                try db.execute("LOCK TABLE \(tables.map(SQLSchema.table(named:)).joined(separator: ", ")) IN EXCLUSIVE MODE", [])
            }
        }
        for derivation in model.derivations {
            try recomputeDerived(derivation, keys: nil, in: db)
        }
    }
}
