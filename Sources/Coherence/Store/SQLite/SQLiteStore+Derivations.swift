import Foundation
internal import GRDB

// Derived values in SQL, for writes that bypass contexts: batch requests and
// migrations recompute the derived columns of the rows they affect.
extension SQLiteStore {
    /// The SQL expression computing `derivation` for the parent row `parent`
    /// (an alias), with its arguments.
    private func derivedExpression(_ derivation: DerivationDescription, parent: String) throws -> (String, [DatabaseValue]) {
        guard let child = model.entitiesByName[derivation.childEntityName],
              let parentEntity = model.entitiesByName[derivation.parentEntityName] else {
            throw StoreError.unknownEntity(derivation.childEntityName)
        }
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let childColumn = derivation.childAttributeIndex.map { "t0.\(SQLiteSchema.quote(child.propertyName(at: $0)))" } ?? "1"
        if derivation.kind == .copy {
            let relationship = parentEntity.propertyName(at: derivation.relationshipIndex)
            return ("(SELECT \(childColumn) FROM \(SQLiteSchema.table(child)) AS t0 WHERE t0.\(pk) = \(parent).\(SQLiteSchema.quote(relationship)))", [])
        }
        var condition = "t0.\(SQLiteSchema.quote(child.propertyName(at: derivation.inverseIndex))) = \(parent).\(pk)"
        // A child entity's rows (sub-entities' included) among its hierarchy's.
        if let restriction = SQLiteSchema.entityRestriction(child, subentities: true) { condition += " AND \(restriction)" }
        var arguments: [DatabaseValue] = []
        if let expression = derivation.declaration.expression, let variable = derivation.declaration.variable {
            var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, entity: child)
            condition += " AND (\(try compiler.condition(for: expression, variable: variable)))"
            arguments = compiler.arguments
        }
        let isDouble = parentEntity.attributes[derivation.propertyIndex].attributeType == .double
            || parentEntity.attributes[derivation.propertyIndex].attributeType == .float
        let aggregate = switch derivation.kind {
        case .count: "COUNT(*)"
        case .sum: "COALESCE(SUM(\(childColumn)), \(isDouble ? "0.0" : "0"))"
        case .min: "MIN(\(childColumn))"
        case .max: "MAX(\(childColumn))"
        case .average: "AVG(\(childColumn))"
        case .copy: ""
        }
        return ("(SELECT \(aggregate) FROM \(SQLiteSchema.table(child)) AS t0 WHERE \(condition))", arguments)
    }

    /// Recomputes `derivation` for the parent rows `keys` (all rows when
    /// `nil`); returns the IDs of the rows whose value changed.
    @discardableResult
    func recomputeDerived(_ derivation: DerivationDescription, keys: Set<Int64>?, in db: Database) throws -> Set<ManagedObjectID> {
        guard let parentEntity = model.entitiesByName[derivation.parentEntityName], keys?.isEmpty != true else { return [] }
        let (expression, arguments) = try derivedExpression(derivation, parent: "p")
        let column = SQLiteSchema.quote(derivation.propertyName)
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let version = SQLiteSchema.quote(SQLiteSchema.version)
        var changed = Set<ManagedObjectID>()
        let chunks: [[Int64]?] = keys.map { keys in
            let sorted = keys.sorted()
            return stride(from: 0, to: sorted.count, by: 500).map { Array(sorted[$0..<min($0 + 500, sorted.count)]) }
        } ?? [nil]
        for chunk in chunks {
            var sql = "UPDATE \(SQLiteSchema.table(parentEntity)) AS p SET \(column) = \(expression), \(version) = \(version) + 1 WHERE \(column) IS NOT \(expression)"
            var allArguments = arguments + arguments
            if let restriction = SQLiteSchema.entityRestriction(parentEntity, subentities: true, alias: "p") { sql += " AND \(restriction)" }
            if let chunk {
                sql += " AND p.\(pk) IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))"
                allArguments += chunk.map(\.databaseValue)
            }
            if parentEntity.isInHierarchy {
                sql += " RETURNING \(pk), \(SQLiteSchema.quote(SQLiteSchema.entityColumn))"
                for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values: allArguments)) {
                    let name: String = row[1]
                    changed.insert(makeObjectID(model.entitiesByName[name]?.managedObjectClass ?? parentEntity.managedObjectClass, key: row[0]))
                }
                continue
            }
            sql += " RETURNING \(pk)"
            for key in try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(values: allArguments)) {
                changed.insert(makeObjectID(parentEntity.managedObjectClass, key: key))
            }
        }
        return changed
    }

    /// The parent keys that rows of `entity` (given by `condition` over alias
    /// `t0`) feed, by derivation: aggregate parents, and the rows that copy
    /// from them.
    func derivedParents(of entity: EntityDescription, where condition: String, arguments: StatementArguments,
                        in db: Database) throws -> [Int: Set<Int64>] {
        var result: [Int: Set<Int64>] = [:]
        for derivation in entity.dependentDerivations {
            guard let parentEntity = model.entitiesByName[derivation.parentEntityName] else { continue }
            let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
            let sql: String
            if derivation.kind == .copy {
                let relationship = SQLiteSchema.quote(parentEntity.propertyName(at: derivation.relationshipIndex))
                sql = "SELECT p.\(pk) FROM \(SQLiteSchema.table(parentEntity)) AS p WHERE p.\(relationship) IN (SELECT t0.\(pk) FROM \(SQLiteSchema.table(entity)) AS t0\(condition))"
            } else {
                // `entity` may be a sub-entity of the derivation's child entity.
                guard let inverseRelationship = derivation.inverse(in: entity) else { continue }
                let inverse = SQLiteSchema.quote(inverseRelationship.name)
                sql = "SELECT DISTINCT t0.\(inverse) FROM \(SQLiteSchema.table(entity)) AS t0\(condition)"
            }
            let keys = try Int64?.fetchAll(db, sql: sql, arguments: arguments).compactMap { $0 }
            result[derivation.id, default: []].formUnion(keys)
        }
        return result
    }

    /// Recomputes the derived values of the collected parents.
    func recomputeDerived(_ parents: [Int: Set<Int64>], in db: Database) throws -> Set<ManagedObjectID> {
        var changed = Set<ManagedObjectID>()
        for (id, keys) in parents {
            changed.formUnion(try recomputeDerived(model.derivations[id], keys: keys, in: db))
        }
        return changed
    }

    /// After a migration: every derived column of every row.
    func recomputeAllDerived(in db: Database) throws {
        for derivation in model.derivations {
            try recomputeDerived(derivation, keys: nil, in: db)
        }
    }
}
