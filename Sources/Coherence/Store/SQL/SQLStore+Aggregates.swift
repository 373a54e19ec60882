import Foundation

// Dictionary fetches with grouping, aggregates, HAVING and DISTINCT, as one
// SQL query. Names come from the model; every value is bound.

extension SQLStore: AggregatingStore {
    package func aggregateRows(_ plan: AggregatePlan, predicate: (any StandardPredicateExpression<Bool>)?,
                               variable: PredicateExpressions.VariableID?) throws -> [[StoreValue]]? {
        do {
            return try aggregateRowsInSQL(plan, predicate: predicate, variable: variable)
        } catch is SQLDialectCannotEvaluate {
            return nil
        }
    }

    private func aggregateRowsInSQL(_ plan: AggregatePlan, predicate: (any StandardPredicateExpression<Bool>)?,
                                    variable: PredicateExpressions.VariableID?) throws -> [[StoreValue]] {
        let entity = plan.entity
        var arguments: [StoreValue] = []
        let expressions = plan.columns.map { column -> String in
            switch column.kind {
            case .property(let index): return columnSQL(index, entity)
            case .aggregate(let function, let index):
                let column = columnSQL(index, entity)
                switch function {
                case .count: return "COUNT(\(column))"
                case .sum:
                    let type = entity.relationship(at: index) == nil ? entity.attributes[index].attributeType : .integer64
                    return dialect.sum(column, isDouble: type != .integer16 && type != .integer32 && type != .integer64 && type != .boolean)
                case .min: return "MIN(\(column))"
                case .max: return "MAX(\(column))"
                case .average: return "AVG(\(column))"
                }
            }
        }
        var sql = "SELECT \(plan.distinct ? "DISTINCT " : "")\(expressions.joined(separator: ", ")) FROM \(SQLSchema.table(entity)) AS t0"
        var conditions: [String] = []
        if let restriction = SQLSchema.entityRestriction(entity, subentities: plan.includesSubentities) { conditions.append(restriction) }
        if let predicate, let variable {
            var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, dialect: dialect, entity: entity)
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
        // PostgreSQL sorts DISTINCT rows only by what they select; the
        // context sorts those in memory (and any order it cannot reproduce).
        if plan.sort.contains(where: { !dialect.canOrder($0.strings) }) || (dialect == .postgres && plan.distinct && !plan.sort.isEmpty) {
            throw SQLDialectCannotEvaluate(construct: "a sort of distinct rows", entity: entity.name)
        }
        var order = plan.sort.map { descriptor in
            "\(SQLSchema.orderedColumn(entity.attributes[descriptor.propertyIndex], strings: descriptor.strings, alias: "t0", dialect: dialect)) \(dialect.direction(ascending: descriptor.ascending))"
        }
        if !plan.isGrouped, !plan.distinct { order.append("t0.\(SQLSchema.quote(SQLSchema.primaryKey))") }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if plan.fetchLimit > 0 || plan.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(plan.fetchLimit > 0 ? Int64(plan.fetchLimit) : dialect.noLimit), .integer(Int64(plan.fetchOffset))]
        }
        return try read { db in
            var rows: [[StoreValue]] = []
            try db.forEachRow(sql, arguments) { row in
                rows.append(try plan.columns.indices.map { try value(row, $0, of: plan.columns[$0], entity: entity) })
            }
            return try concreteDestinations(rows, plan: plan, in: db)
        }
    }

    /// `rows` with each to-one destination whose entity has sub-entities
    /// named by its row's concrete entity (the column holds only the key).
    private func concreteDestinations(_ rows: [[StoreValue]], plan: AggregatePlan, in db: any SQLDatabase) throws -> [[StoreValue]] {
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
            let table = SQLSchema.table(named: relationship.destinationRootEntityName)
            var classes: [Int64: ManagedObject.Type] = [:]
            for chunk in chunked(Array(keys)) {
                let sql = "SELECT \(SQLSchema.quote(SQLSchema.primaryKey)), \(SQLSchema.quote(SQLSchema.entityColumn)) FROM \(table) WHERE \(SQLSchema.quote(SQLSchema.primaryKey)) IN (\(placeholders(chunk.count)))"
                try db.forEachRow(sql, chunk.map { .integer($0) }) { row in
                    if row.columnType(1) == .text, let type = model.entitiesByName[row.string(1)]?.managedObjectClass { classes[row.int64(0)] = type }
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
        "t0.\(SQLSchema.quote(entity.propertyName(at: index)))"
    }

    private func havingSQL(_ condition: HavingPredicate, expressions: [String], plan: AggregatePlan,
                           arguments: inout [StoreValue]) -> String {
        switch condition {
        case .and(let parts):
            guard !parts.isEmpty else { return "TRUE" }
            return "(" + parts.map { havingSQL($0, expressions: expressions, plan: plan, arguments: &arguments) }.joined(separator: " AND ") + ")"
        case .or(let parts):
            guard !parts.isEmpty else { return "FALSE" }
            return "(" + parts.map { havingSQL($0, expressions: expressions, plan: plan, arguments: &arguments) }.joined(separator: " OR ") + ")"
        case .not(let part):
            return "(NOT \(havingSQL(part, expressions: expressions, plan: plan, arguments: &arguments)))"
        case .comparison(let name, let op, let value):
            // The plan checked the name; a NULL value compares as unknown.
            let expression = plan.column(named: name).map { expressions[$0] } ?? "NULL"
            arguments.append(value)
            return "(\(expression) \(op.rawValue) ?)"
        }
    }

    /// A column's value in store form, as ``AggregatePlan/rows(of:)`` gives it.
    private func value(_ row: any SQLRow, _ column: Int, of plan: AggregatePlan.Column, entity: EntityDescription) throws -> StoreValue {
        let type = row.columnType(column)
        if type == .null { return .null }
        switch plan.kind {
        case .property(let index), .aggregate(.min, let index), .aggregate(.max, let index):
            if let relationship = entity.relationship(at: index) {
                guard type == .integer, let destination = model.entitiesByName[relationship.destinationEntityName] else {
                    return .null
                }
                return .objectID(makeObjectID(destination.managedObjectClass, key: row.int64(column)))
            }
            return try StoreValue(row: row, index: column, type: entity.attributes[index].attributeType)
        case .aggregate(.count, _):
            return .integer(row.int64(column))
        case .aggregate(.sum, _), .aggregate(.average, _):
            switch type {
            case .integer: return .integer(row.int64(column))
            case .real: return .double(row.double(column))
            default: return .null
            }
        }
    }
}
