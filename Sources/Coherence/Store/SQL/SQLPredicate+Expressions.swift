import Foundation

// The predicate expressions the SQLite store translates.

private typealias Compiled = SQLPredicateCompiler.Compiled

extension PredicateExpressions.Variable: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        try compiler.variable(key)
    }
}

extension PredicateExpressions.KeyPath: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let root = try compiler.compile(root)
        return try compiler.apply(keyPath, to: root)
    }
}

extension PredicateExpressions.Value: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        if let id = value as? ManagedObjectID { return .objectIDValue(id) }
        if let sequence = value as? any Collection, !(value is String), !(value is Data) {
            return .sequence(try sequence.map { try compiler.storeValue(of: $0) })
        }
        let stored = try compiler.storeValue(of: value)
        if stored == .null { return .null }
        return .value(compiler.bind(stored), nil)
    }
}

extension PredicateExpressions.NilLiteral: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled { .null }
}

extension PredicateExpressions.Equal: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let left = try compiler.compile(lhs), right = try compiler.compile(rhs)
        if let identity = try compiler.identityComparison(left, right, equal: true) { return .value(identity, .boolean) }
        return .value(compiler.dialect.isSame(try compiler.scalar(of: left), try compiler.scalar(of: right)), .boolean)
    }
}

extension PredicateExpressions.NotEqual: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let left = try compiler.compile(lhs), right = try compiler.compile(rhs)
        if let identity = try compiler.identityComparison(left, right, equal: false) { return .value(identity, .boolean) }
        return .value(compiler.dialect.isNotSame(try compiler.scalar(of: left), try compiler.scalar(of: right)), .boolean)
    }
}

extension PredicateExpressions.Comparison: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let left = try compiler.compile(lhs)
        let right = try compiler.compile(rhs)
        for side in [left, right] {
            switch SQLPredicateCompiler.attributeType(of: side) {
            case .decimal?, .codable?, .uuid?, .binaryData?, .uri?:
                throw compiler.unsupported("ordering comparison of a \(SQLPredicateCompiler.attributeType(of: side)!) attribute")
            default: break
            }
        }
        let symbol = switch op {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        }
        return .value("(\(try compiler.scalar(of: left)) \(symbol) \(try compiler.scalar(of: right)))", .boolean)
    }
}

extension PredicateExpressions.Conjunction: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        .value("(\(try compiler.scalar(lhs)) AND \(try compiler.scalar(rhs)))", .boolean)
    }
}

extension PredicateExpressions.Disjunction: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        .value("(\(try compiler.scalar(lhs)) OR \(try compiler.scalar(rhs)))", .boolean)
    }
}

extension PredicateExpressions.Negation: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        .value("(NOT \(try compiler.scalar(wrapped)))", .boolean)
    }
}

extension PredicateExpressions.NilCoalesce: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let left = try compiler.compile(lhs)
        return .value("COALESCE(\(try compiler.scalar(of: left)), \(try compiler.scalar(rhs)))", SQLPredicateCompiler.attributeType(of: left))
    }
}

extension PredicateExpressions.Arithmetic: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let symbol = switch op {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        }
        return .value("(\(try compiler.scalar(lhs)) \(symbol) \(try compiler.scalar(rhs)))", nil)
    }
}

extension PredicateExpressions.UnaryMinus: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        .value("(- \(try compiler.scalar(wrapped)))", nil)
    }
}

extension PredicateExpressions.OptionalFlatMap: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let wrapped = try compiler.compile(wrapped)
        switch wrapped {
        case .object, .value: break // SQL NULL flows through the transform as nil does
        default: throw compiler.unsupported("optional chaining on something other than a to-one relationship or an attribute")
        }
        compiler.bindVariable(variable.key, to: wrapped)
        return try compiler.compile(transform)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        .value("(\(compiler.dialect.position(of: try compiler.scalar(other), in: try compiler.scalar(base))) > 0)", .boolean)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        // The first occurrence is at 1 exactly when the text starts with the prefix.
        .value("(\(compiler.dialect.position(of: try compiler.scalar(prefix), in: try compiler.scalar(base))) = 1)", .boolean)
    }
}

extension PredicateExpressions.SequenceContains: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        guard case .sequence(let values) = try compiler.compile(sequence) else {
            throw compiler.unsupported("contains(_:) on something other than a literal collection")
        }
        let element = try compiler.scalar(element)
        // An empty list holds nothing; the element stays in the text, since
        // its arguments are bound already (the typed-predicate campaign
        // found `[].contains($0.n ?? 1)` failing with a bind error).
        guard !values.isEmpty else { return .value("(\(element) IS NULL AND FALSE)", .boolean) }
        let placeholders = values.map { compiler.bind($0) }.joined(separator: ", ")
        return .value("(\(element) IN (\(placeholders)))", .boolean)
    }
}

extension PredicateExpressions.SequenceContainsWhere: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        guard case .toMany(let owner, let key, let relationship, let filter) = try compiler.compile(sequence) else {
            throw compiler.unsupported("contains(where:) on something other than a to-many relationship")
        }
        let alias = filter?.alias ?? compiler.newAlias()
        let destination = try compiler.destination(of: relationship)
        compiler.bindVariable(variable.key, to: .object(destination, key: "\(alias).\(SQLSchema.quote(SQLSchema.primaryKey))", alias: alias))
        let test = try compiler.scalar(test)
        let rows = try compiler.destinationRows(owner: owner, key: key, relationship: relationship, filter: filter, alias: alias)
        return .value("(EXISTS (SELECT 1 \(rows) AND (\(test))))", .boolean)
    }
}

extension PredicateExpressions.Filter: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        guard case .toMany(let owner, let key, let relationship, nil) = try compiler.compile(sequence) else {
            throw compiler.unsupported("filter on something other than a to-many relationship")
        }
        let alias = compiler.newAlias()
        let destination = try compiler.destination(of: relationship)
        compiler.bindVariable(variable.key, to: .object(destination, key: "\(alias).\(SQLSchema.quote(SQLSchema.primaryKey))", alias: alias))
        let condition = try compiler.scalar(filter)
        return .toMany(owner: owner, key: key, relationship: relationship, filter: .init(alias: alias, condition: condition))
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        .value("(\(try compiler.swiftFunction(SQLiteFunctions.localizedStandardContains.name, "localizedStandardContains(_:)"))(\(try compiler.scalar(root)), \(try compiler.scalar(other))) != 0)", .boolean)
    }
}
