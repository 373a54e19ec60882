import Foundation
internal import GRDB

// Dictionary fetches with grouping, aggregates, HAVING and DISTINCT, as one
// SQL query. Names come from the model; every value is bound.

extension SQLiteStore: AggregatingStore {
    func aggregateRows(_ plan: AggregatePlan, predicate: (any StandardPredicateExpression<Bool>)?,
                       variable: PredicateExpressions.VariableID?) throws -> [[StoreValue]] {
        let entity = plan.entity
        var arguments: [DatabaseValue] = []
        let expressions = plan.columns.map { column -> String in
            switch column.kind {
            case .property(let index): return columnSQL(index, entity)
            case .aggregate(let function, let index):
                let name = switch function {
                case .count: "COUNT"
                case .sum: "SUM"
                case .min: "MIN"
                case .max: "MAX"
                case .average: "AVG"
                }
                return "\(name)(\(columnSQL(index, entity)))"
            }
        }
        var sql = "SELECT \(plan.distinct ? "DISTINCT " : "")\(expressions.joined(separator: ", ")) FROM \(SQLiteSchema.table(entity)) AS t0"
        var conditions: [String] = []
        if let restriction = SQLiteSchema.entityRestriction(entity, subentities: plan.includesSubentities) { conditions.append(restriction) }
        if let predicate, let variable {
            var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, entity: entity)
            conditions.append("(\(try compiler.condition(for: predicate, variable: variable)))")
            arguments = compiler.arguments
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !plan.groupBy.isEmpty {
            sql += " GROUP BY " + plan.groupBy.map { columnSQL($0, entity) }.joined(separator: ", ")
        }
        if let having = plan.having {
            sql += " HAVING " + havingSQL(having, expressions: expressions, plan: plan, arguments: &arguments)
        }
        var order = plan.sort.map { descriptor in
            "\(SQLiteSchema.orderedColumn(entity.attributes[descriptor.propertyIndex], strings: descriptor.strings, alias: "t0")) \(descriptor.ascending ? "ASC" : "DESC")"
        }
        if !plan.isGrouped, !plan.distinct { order.append("t0.\(SQLiteSchema.quote(SQLiteSchema.primaryKey))") }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if plan.fetchLimit > 0 || plan.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [(plan.fetchLimit > 0 ? plan.fetchLimit : -1).databaseValue, plan.fetchOffset.databaseValue]
        }
        return try read { db in
            let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values: arguments)).map { row in
                try plan.columns.indices.map { try value(row[$0] as DatabaseValue, of: plan.columns[$0], entity: entity) }
            }
            return try concreteDestinations(rows, plan: plan, in: db)
        }
    }

    /// `rows` with each to-one destination whose entity has sub-entities
    /// named by its row's concrete entity (the column holds only the key).
    private func concreteDestinations(_ rows: [[StoreValue]], plan: AggregatePlan, in db: Database) throws -> [[StoreValue]] {
        var rows = rows
        for (position, column) in plan.columns.enumerated() {
            let index: Int
            switch column.kind {
            case .property(let at), .aggregate(.min, let at), .aggregate(.max, let at): index = at
            default: continue
            }
            guard let relationship = plan.entity.relationship(at: index), relationship.destinationHasSubentities else { continue }
            let keys = Set(rows.compactMap { row -> Int64? in
                if case .objectID(let id) = row[position] { return id.key } else { return nil }
            })
            guard !keys.isEmpty else { continue }
            let table = SQLiteSchema.table(named: relationship.destinationRootEntityName)
            var classes: [Int64: ManagedObject.Type] = [:]
            for chunk in stride(from: 0, to: keys.count, by: 500).map({ Array(Array(keys)[$0..<min($0 + 500, keys.count)]) }) {
                let sql = "SELECT \(SQLiteSchema.quote(SQLiteSchema.primaryKey)), \(SQLiteSchema.quote(SQLiteSchema.entityColumn)) FROM \(table) WHERE \(SQLiteSchema.quote(SQLiteSchema.primaryKey)) IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))"
                for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk)) {
                    let name: String? = row[1]
                    if let type = name.flatMap({ model.entitiesByName[$0]?.managedObjectClass }) { classes[row[0]] = type }
                }
            }
            for row in rows.indices {
                if case .objectID(let id) = rows[row][position], let type = classes[id.key] {
                    rows[row][position] = .objectID(makeObjectID(type, key: id.key))
                }
            }
        }
        return rows
    }

    private func columnSQL(_ index: Int, _ entity: EntityDescription) -> String {
        "t0.\(SQLiteSchema.quote(entity.propertyName(at: index)))"
    }

    private func havingSQL(_ condition: HavingPredicate, expressions: [String], plan: AggregatePlan,
                           arguments: inout [DatabaseValue]) -> String {
        switch condition {
        case .and(let parts):
            guard !parts.isEmpty else { return "1" }
            return "(" + parts.map { havingSQL($0, expressions: expressions, plan: plan, arguments: &arguments) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            guard !parts.isEmpty else { return "0" }
            return "(" + parts.map { havingSQL($0, expressions: expressions, plan: plan, arguments: &arguments) }.joined(separator: " OR ") + ")"
        case .not(let part):
            return "(NOT \(havingSQL(part, expressions: expressions, plan: plan, arguments: &arguments)))"
        case .comparison(let name, let op, let value):
            // The plan checked the name; a NULL value compares as unknown.
            let expression = plan.column(named: name).map { expressions[$0] } ?? "NULL"
            let argument = value.sqlArgument
            arguments.append(argument.value)
            return "(\(expression) \(op.rawValue) \(argument.placeholder))"
        }
    }

    /// A column's value in store form, as ``AggregatePlan/rows(of:)`` gives it.
    private func value(_ value: DatabaseValue, of column: AggregatePlan.Column, entity: EntityDescription) throws -> StoreValue {
        if value.isNull { return .null }
        switch column.kind {
        case .property(let index), .aggregate(.min, let index), .aggregate(.max, let index):
            if let relationship = entity.relationship(at: index) {
                guard case .int64(let key) = value.storage, let destination = model.entitiesByName[relationship.destinationEntityName] else {
                    return .null
                }
                return .objectID(makeObjectID(destination.managedObjectClass, key: key))
            }
            return try StoreValue(value, type: entity.attributes[index].attributeType)
        case .aggregate(.count, _):
            return .integer(Int64.fromDatabaseValue(value) ?? 0)
        case .aggregate(.sum, _), .aggregate(.average, _):
            switch value.storage {
            case .int64(let int): return .integer(int)
            case .double(let double): return .double(double)
            default: return .null
            }
        }
    }
}
