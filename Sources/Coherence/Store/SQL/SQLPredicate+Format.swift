import Foundation

// Format predicates (`Predicate(format:)`) in SQL. The translation follows
// `FormatEvaluator` step by step, so that the store and the in-memory
// evaluation agree: every test gives 0 or 1 (never NULL, so NOT and ALL
// behave as in memory), `==`/`!=` are SQL's IS / IS NOT, an ordering with
// NULL is false, values of different storage classes are compared without
// column affinity (the unary `+`), and string operators call
// `coherence_format_match`, which runs `FormatSemantics.matches`. Only
// table and column names from the model appear in the SQL text; every
// value, pattern and operator code is a bound parameter.

extension FormatPredicateExpression: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        guard case .object(let entity, let key, let alias) = try compiler.variable(variable.key) else {
            throw compiler.unsupported("a format predicate on something other than an object")
        }
        return .value(try compiler.formatCondition(node, row: FormatRow(entity: entity, key: key, alias: alias)), .boolean)
    }
}

/// A row that key paths start from: `key` is an SQL expression giving its
/// primary key; `alias` is set when the row is a table alias.
struct FormatRow {
    let entity: EntityDescription
    let key: String
    let alias: String?
}

extension SQLPredicateCompiler {
    /// What a key path or constant compiles to (as ``FormatEvaluator/Reached``).
    enum FormatReached {
        /// A scalar and its storage class rank (``FormatValue/classRank``).
        case single(String, rank: Int)
        /// A scalar over the destination rows `rows` (`FROM … WHERE …`) of a to-many relationship.
        case many(rows: String, value: String, rank: Int)
        /// A to-one relationship's foreign key, and its destination entity.
        case object(String, EntityDescription)
        /// An object constant (`%@` with a managed object or its ID).
        case objectID(ManagedObjectID)
        /// A to-many relationship itself: the destination rows `rows`
        /// (`FROM … WHERE …`), the primary key `key` of each, their entity.
        case objects(rows: String, key: String, EntityDescription)

        /// The storage class rank of a value; `nil` for a relationship.
        var rank: Int? {
            switch self {
            case .single(_, let rank), .many(_, _, let rank): rank
            case .object, .objectID, .objects: nil
            }
        }

        var isRelationship: Bool {
            switch self {
            case .object, .objects: true
            case .single, .many, .objectID: false
            }
        }
    }

    mutating func formatCondition(_ node: FormatNode, row: FormatRow) throws -> String {
        switch node {
        case .constant(let value):
            return value ? "TRUE" : "FALSE"
        case .not(let wrapped):
            return "(NOT \(try formatCondition(wrapped, row: row)))"
        case .and(let lhs, let rhs):
            return "(\(try formatCondition(lhs, row: row)) AND \(try formatCondition(rhs, row: row)))"
        case .or(let lhs, let rhs):
            return "(\(try formatCondition(lhs, row: row)) OR \(try formatCondition(rhs, row: row)))"
        case .comparison(let quantifier, let lhs, let op, let rhs):
            let left = try formatReach(lhs, row: row), right = try formatReach(rhs, row: row)
            if case .object(let key, let destination) = left { return try relationshipTest(key, destination, op, right, lhs, row) }
            if case .object(let key, let destination) = right { return try relationshipTest(key, destination, op, left, rhs, row) }
            if case .objects(let rows, let key, let destination) = left {
                let test = try relationshipTest(key, destination, op, right, lhs, row)
                return quantify(quantifier, .many(rows: rows, value: "", rank: 0)) { _, _ in test }
            }
            if case .objects = right {
                throw PredicateFormatError.unsupportedKeyPath(
                    entity: row.entity.name, key: (rhs.keyPath ?? []).joined(separator: "."),
                    reason: "crosses a to-many relationship, which is supported on the left side of a comparison only")
            }
            if case .objectID = left { throw objectComparedWithValue(lhs, row) }
            if case .objectID = right { throw objectComparedWithValue(lhs, row) }
            guard case .single(let value, let rank) = right else {
                throw PredicateFormatError.unsupportedKeyPath(
                    entity: row.entity.name, key: (rhs.keyPath ?? []).joined(separator: "."),
                    reason: "crosses a to-many relationship, which is supported on the left side of a comparison only")
            }
            if dialect != .sqlite, let lhsRank = left.rank, lhsRank != 0, rank != 0, lhsRank != rank { throw mixedClasses(lhs, row) }
            try requireExactNumbers([numericKind(lhs, row: row), numericKind(rhs, row: row)], lhs, row)
            return quantify(quantifier, left) { lhs, lhsRank in comparison(lhs, lhsRank, op, value, rank) }
        case .string(let quantifier, let lhs, let op, let options, let pattern):
            let left = try formatReach(lhs, row: row)
            if left.isRelationship { throw relationshipAsValue(lhs, row) }
            if case .objectID = left { throw objectComparedWithValue(lhs, row) }
            let function = try swiftFunction(SQLiteFunctions.formatMatch.name, "the format operator \(op)")
            let code = bind(.integer(Int64(op.rawValue * 4 + options.rawValue)))
            let pattern = bind(.string(pattern))
            return quantify(quantifier, left) { value, _ in
                "(\(function)(\(code), \(value), \(pattern)) IS TRUE)"
            }
        case .among(let quantifier, let lhs, let values):
            let left = try formatReach(lhs, row: row)
            if case .object(let key, let destination) = left {
                guard values.allSatisfy({ $0 == .null || $0.classRank == 4 }) else { throw relationshipAsValue(lhs, row) }
                let tests = try values.map { try relationshipTest(key, destination, .equal, $0 == .null ? .single("NULL", rank: 0) : .objectID(id($0)), lhs, row) }
                return tests.isEmpty ? "FALSE" : "(" + tests.joined(separator: " OR ") + ")"
            }
            if case .objects(let rows, let key, let destination) = left {
                guard values.allSatisfy({ $0 == .null || $0.classRank == 4 }) else { throw relationshipAsValue(lhs, row) }
                let tests = try values.filter { $0 != .null }.map { try relationshipTest(key, destination, .equal, .objectID(id($0)), lhs, row) }
                let test = tests.isEmpty ? "FALSE" : "(" + tests.joined(separator: " OR ") + ")"
                return quantify(quantifier, .many(rows: rows, value: "", rank: 0)) { _, _ in test }
            }
            if case .objectID = left { throw objectComparedWithValue(lhs, row) }
            if values.contains(where: { $0.classRank == 4 }) { throw objectComparedWithValue(lhs, row) }
            // A value of another storage class than the key's never equals
            // it (as in memory): only NULL and values of the key's class count.
            guard let rank = left.rank else { throw relationshipAsValue(lhs, row) }
            try requireExactNumbers([numericKind(lhs, row: row)] + values.map(\.numericKind), lhs, row)
            let matchesNull = values.contains(.null)
            let placeholders = values.filter { $0 != .null && $0.classRank == rank }.map { bind($0.storeValue) }
            return quantify(quantifier, left) { value, _ in
                var tests: [String] = []
                if matchesNull { tests.append("(\(value) IS NULL)") }
                if !placeholders.isEmpty { tests.append("((\(value) IN (\(placeholders.joined(separator: ", ")))) IS TRUE)") }
                return tests.isEmpty ? "FALSE" : "(" + tests.joined(separator: " OR ") + ")"
            }
        case .between(let quantifier, let lhs, let low, let high):
            let left = try formatReach(lhs, row: row)
            if left.isRelationship { throw relationshipAsValue(lhs, row) }
            if case .objectID = left { throw objectComparedWithValue(lhs, row) }
            if low.classRank == 4 || high.classRank == 4 { throw objectComparedWithValue(lhs, row) }
            if dialect != .sqlite, let rank = left.rank, rank != 0,
               [low.classRank, high.classRank].contains(where: { $0 != 0 && $0 != rank }) { throw mixedClasses(lhs, row) }
            try requireExactNumbers([numericKind(lhs, row: row), low.numericKind, high.numericKind], lhs, row)
            let lowSQL = low == .null ? "NULL" : bind(low.storeValue), highSQL = high == .null ? "NULL" : bind(high.storeValue)
            return quantify(quantifier, left) { value, rank in
                "(\(comparison(value, rank, .greaterOrEqual, lowSQL, low.classRank)) AND \(comparison(value, rank, .lessOrEqual, highSQL, high.classRank)))"
            }
        }
    }

    /// The test on a single value, or over the destination rows as the quantifier says.
    private func quantify(_ quantifier: FormatQuantifier, _ reached: FormatReached, _ test: (String, Int) -> String) -> String {
        switch (reached, quantifier) {
        case (.single(let value, let rank), .none): "(NOT \(test(value, rank)))"
        case (.single(let value, let rank), _): test(value, rank)
        case (.many(let rows, let value, let rank), .any): "(EXISTS (SELECT 1 \(rows) AND \(test(value, rank))))"
        case (.many(let rows, let value, let rank), .all): "(NOT EXISTS (SELECT 1 \(rows) AND NOT \(test(value, rank))))"
        case (.many(let rows, let value, let rank), .none): "(NOT EXISTS (SELECT 1 \(rows) AND \(test(value, rank))))"
        case (.object, _), (.objectID, _), (.objects, _): "FALSE"
        }
    }

    /// `lhs op rhs`, true or false (never NULL). Values of different
    /// storage classes are compared without affinity (unary `+`), so SQLite
    /// orders them by class as ``FormatSemantics/order(_:_:)`` does instead
    /// of converting them (other dialects refuse such comparisons).
    private func comparison(_ lhs: String, _ lhsRank: Int, _ op: FormatComparison, _ rhs: String, _ rhsRank: Int) -> String {
        let plain = lhsRank == 0 || rhsRank == 0 || lhsRank == rhsRank
        let l = plain ? lhs : "(+\(lhs))", r = plain ? rhs : "(+\(rhs))"
        return switch op {
        case .equal: dialect.isSame(l, r)
        case .notEqual: dialect.isNotSame(l, r)
        case .less: "((\(l) < \(r)) IS TRUE)"
        case .lessOrEqual: "((\(l) <= \(r)) IS TRUE)"
        case .greater: "((\(l) > \(r)) IS TRUE)"
        case .greaterOrEqual: "((\(l) >= \(r)) IS TRUE)"
        }
    }

    /// Throws, for dialects other than SQLite, when integers and
    /// floating-point numbers meet: PostgreSQL converts the integer to a
    /// double, which rounds beyond 2^53, where SQLite and the in-memory
    /// evaluation compare exactly. The context then evaluates the predicate.
    private func requireExactNumbers(_ kinds: [FormatNumericKind?], _ operand: FormatOperand, _ row: FormatRow) throws {
        guard dialect != .sqlite else { return }
        let present = Set(kinds.compactMap { $0 })
        if present.count > 1 {
            throw SQLDialectCannotEvaluate(construct: "\((operand.keyPath ?? []).joined(separator: ".")) compared across integers and floating-point numbers",
                                           entity: row.entity.name)
        }
    }

    /// Whether an operand holds integers or floating-point numbers (`nil`
    /// for anything else).
    private func numericKind(_ operand: FormatOperand, row: FormatRow) -> FormatNumericKind? {
        switch operand {
        case .value(let value): return value.numericKind
        case .count, .subqueryCount: return .integer
        case .key(let path):
            var entity = row.entity
            for (position, name) in path.enumerated() {
                guard let index = entity.indexByName[name] else { return nil }
                guard let relationship = entity.relationship(at: index) else {
                    return position == path.count - 1 ? FormatNumericKind(entity.attributes[index].attributeType) : nil
                }
                guard let destination = model.entitiesByName[relationship.destinationEntityName] else { return nil }
                entity = destination
            }
            return nil
        }
    }

    private func mixedClasses(_ operand: FormatOperand, _ row: FormatRow) -> SQLDialectCannotEvaluate {
        SQLDialectCannotEvaluate(construct: "\((operand.keyPath ?? []).joined(separator: ".")) compared with a value of another type", entity: row.entity.name)
    }

    /// `relationship == nil` or `== object` (and `!=`): an object matches
    /// a row only by a permanent ID of this store and the destination entity
    /// (an unsaved object is the destination of no saved row).
    private mutating func relationshipTest(_ key: String, _ destination: EntityDescription, _ op: FormatComparison, _ other: FormatReached,
                                           _ operand: FormatOperand, _ row: FormatRow) throws -> String {
        guard op == .equal || op == .notEqual else { throw relationshipAsValue(operand, row) }
        switch other {
        case .single("NULL", 0):
            return op == .equal ? "(\(key) IS NULL)" : "(\(key) IS NOT NULL)"
        case .objectID(let id):
            guard !id.isTemporaryID, id.storeNumber == storeNumber, model.entity(for: id.objectClass)?.isKind(of: destination) == true else {
                return op == .equal ? "FALSE" : "TRUE"
            }
            let other = bind(.integer(id.key))
            return op == .equal ? dialect.isSame(key, other) : dialect.isNotSame(key, other)
        default:
            throw relationshipAsValue(operand, row)
        }
    }

    private func id(_ value: FormatValue) -> ManagedObjectID {
        guard case .objectID(let id) = value else { fatalError("Coherence: not an object constant") }
        return id
    }

    private func objectComparedWithValue(_ operand: FormatOperand, _ row: FormatRow) -> PredicateFormatError {
        .unsupportedKeyPath(entity: row.entity.name, key: (operand.keyPath ?? []).joined(separator: "."),
                            reason: "is compared with an object; only to-one relationships can be")
    }

    private func relationshipAsValue(_ operand: FormatOperand, _ row: FormatRow) -> PredicateFormatError {
        .unsupportedKeyPath(entity: row.entity.name, key: (operand.keyPath ?? []).joined(separator: "."),
                            reason: "is a relationship, which can only be compared with nil or an object")
    }

    mutating func formatReach(_ operand: FormatOperand, row: FormatRow) throws -> FormatReached {
        switch operand {
        case .value(.objectID(let id)): return .objectID(id)
        case .value(let value): return .single(value == .null ? "NULL" : bind(value.storeValue), rank: value.classRank)
        case .key(let path) where path.isEmpty: return .object(row.key, row.entity) // SELF
        case .count(let path) where path.isEmpty:
            throw PredicateFormatError.unsupportedKeyPath(entity: row.entity.name, key: "SELF", reason: "uses @count on an object")
        case .key(let path): return try formatWalk(path[...], from: row, count: false, fullPath: path)
        case .count(let path): return try formatWalk(path[...], from: row, count: true, fullPath: path)
        case .subqueryCount(let path, let predicate): return try formatSubquery(path[...], predicate, from: row, fullPath: path)
        }
    }

    /// `SUBQUERY(path, $x, predicate).@count`, as ``FormatEvaluator`` counts
    /// it: the destination rows of the to-many relationship at the end of
    /// `path` that match `predicate`.
    private mutating func formatSubquery(_ path: ArraySlice<String>, _ predicate: FormatNode, from row: FormatRow,
                                         fullPath: [String]) throws -> FormatReached {
        let entity = row.entity
        guard let name = path.first, let index = entity.indexByName[name] else {
            throw PredicateFormatError.unknownKey(entity: entity.name, key: path.first ?? "")
        }
        guard let relationship = entity.relationship(at: index), relationship.isToMany || path.count > 1 else {
            throw PredicateFormatError.unsupportedKeyPath(entity: entity.name, key: fullPath.joined(separator: "."),
                                                          reason: "is not a to-many relationship, which SUBQUERY's collection must be")
        }
        let destination = try destination(of: relationship)
        guard relationship.isToMany else {
            let foreignKey = formatColumn(relationship.name, of: row)
            return try formatSubquery(path.dropFirst(), predicate, from: FormatRow(entity: destination, key: foreignKey, alias: nil), fullPath: fullPath)
        }
        guard path.count == 1 else {
            throw PredicateFormatError.unsupportedKeyPath(entity: entity.name, key: fullPath.joined(separator: "."),
                                                          reason: "continues after a to-many relationship in SUBQUERY's collection")
        }
        let alias = newAlias()
        let rows = try destinationRows(owner: entity, key: row.key, relationship: relationship, filter: nil, alias: alias)
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let condition = try formatCondition(predicate, row: FormatRow(entity: destination, key: "\(alias).\(pk)", alias: alias))
        return .single("(SELECT COUNT(*) \(rows) AND \(condition))", rank: 1)
    }

    /// Follows `path` from `row` by name, as ``FormatEvaluator`` does.
    private mutating func formatWalk(_ path: ArraySlice<String>, from row: FormatRow, count: Bool, fullPath: [String]) throws -> FormatReached {
        let entity = row.entity
        guard let name = path.first, let index = entity.indexByName[name] else {
            throw PredicateFormatError.unknownKey(entity: entity.name, key: path.first ?? "")
        }
        let rest = path.dropFirst()
        let key = fullPath.joined(separator: ".")
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        if let relationship = entity.relationship(at: index) {
            let destination = try destination(of: relationship)
            if relationship.isToMany {
                if rest.isEmpty {
                    guard count else {
                        let alias = newAlias()
                        let rows = try destinationRows(owner: entity, key: row.key, relationship: relationship, filter: nil, alias: alias)
                        return .objects(rows: rows, key: "\(alias).\(pk)", destination)
                    }
                    let rows = try destinationRows(owner: entity, key: row.key, relationship: relationship, filter: nil)
                    return .single("(SELECT COUNT(*) \(rows))", rank: 1)
                }
                let alias = newAlias()
                let rows = try destinationRows(owner: entity, key: row.key, relationship: relationship, filter: nil, alias: alias)
                let next = FormatRow(entity: destination, key: "\(alias).\(pk)", alias: alias)
                guard case .single(let value, let rank) = try formatWalk(rest, from: next, count: count, fullPath: fullPath) else {
                    throw PredicateFormatError.unsupportedKeyPath(entity: entity.name, key: key, reason: "crosses more than one relationship after a to-many one")
                }
                return .many(rows: rows, value: value, rank: rank)
            }
            let foreignKey = formatColumn(relationship.name, of: row)
            if rest.isEmpty {
                if count { throw PredicateFormatError.unsupportedKeyPath(entity: entity.name, key: key, reason: "uses @count on a to-one relationship") }
                return .object(foreignKey, destination)
            }
            return try formatWalk(rest, from: FormatRow(entity: destination, key: foreignKey, alias: nil), count: count, fullPath: fullPath)
        }
        guard rest.isEmpty, !count else {
            throw PredicateFormatError.unsupportedKeyPath(entity: entity.name, key: key,
                                                          reason: count ? "uses @count on an attribute" : "continues after the attribute \(name)")
        }
        let attribute = entity.attributes[index]
        guard !attribute.isTransient else {
            throw unsupported("the transient attribute \(attribute.name), which no store keeps")
        }
        let column = formatColumn(attribute.name, of: row)
        // Format predicates write booleans as numbers (`done == YES` is
        // `done == 1`), which PostgreSQL does not compare with `boolean`.
        if attribute.attributeType == .boolean, dialect == .postgres {
            return .single("CAST(\(column) AS INTEGER)", rank: attribute.attributeType.formatClassRank)
        }
        return .single(column, rank: attribute.attributeType.formatClassRank)
    }

    /// A column of a row: direct on an alias, otherwise a scalar subquery by primary key.
    private func formatColumn(_ name: String, of row: FormatRow) -> String {
        if let alias = row.alias { return "\(alias).\(SQLSchema.quote(name))" }
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        return "(SELECT \(SQLSchema.quote(name)) FROM \(SQLSchema.table(row.entity)) WHERE \(pk) = \(row.key))"
    }
}
