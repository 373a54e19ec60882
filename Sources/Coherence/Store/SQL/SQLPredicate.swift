import Foundation

/// Translates a `#Predicate` into an SQL condition over the rows of one
/// entity. Every value is a bound parameter; nothing from the predicate is
/// spliced into the SQL text except table and column names from the model.
///
/// Supported: `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, comparisons
/// with `nil`, `??`, `+`, `-`, `*`, string `contains(_:)`, `starts(with:)` and
/// `localizedStandardContains(_:)` (case- and diacritic-insensitive), the
/// key paths `String.caseFolded` and `String.reversedText` (for
/// case-insensitive and suffix tests), a
/// literal collection's `contains(_:)` (SQL `IN`), to-one key paths
/// (`$0.server?.name`), `objectID`, and on to-many relationships
/// `contains(where:)`, `count`, `isEmpty` and `filter { … }.count`. Anything
/// else throws ``FetchError/unsupportedPredicate(entity:construct:)`` naming
/// the construct.
struct SQLPredicateCompiler {
    let model: ManagedObjectModel
    let storeNumber: UInt32
    /// The dialect of the SQL written.
    let dialect: SQLDialect
    /// The entity whose rows the condition filters, aliased `t0`.
    let entity: EntityDescription
    /// The values of the condition's `?` parameters, in order.
    private(set) var arguments: [StoreValue] = []
    private var variables: [PredicateExpressions.VariableID: Compiled] = [:]
    private var aliases = 0

    init(model: ManagedObjectModel, storeNumber: UInt32, dialect: SQLDialect, entity: EntityDescription) {
        self.model = model
        self.storeNumber = storeNumber
        self.dialect = dialect
        self.entity = entity
    }

    /// What an expression compiles to.
    enum Compiled {
        /// A scalar SQL expression, with the attribute type when it is a column.
        case value(String, AttributeType?)
        /// A row of `entity`: `key` is an SQL expression giving its `Z_PK`
        /// (NULL for none); `alias` is set when the row is a table alias.
        case object(EntityDescription, key: String, alias: String?)
        /// A to-many relationship of a row, optionally filtered by a condition
        /// on the destination alias.
        case toMany(owner: EntityDescription, key: String, relationship: RelationshipDescription, filter: Filter?)
        /// A literal sequence, for `IN`.
        case sequence([StoreValue])
        /// A captured object ID, compared with rows by entity, store and key.
        case objectIDValue(ManagedObjectID)
        case null
    }

    struct Filter {
        let alias: String
        let condition: String
    }

    /// The SQL condition for the whole predicate.
    mutating func condition(for expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID) throws -> String {
        variables[variable] = .object(entity, key: "t0.\(SQLSchema.quote(SQLSchema.primaryKey))", alias: "t0")
        return try scalar(expression)
    }

    // MARK: Building blocks for the expression conformances

    func unsupported(_ construct: String) -> FetchError {
        .unsupportedPredicate(entity: entity.name, construct: construct)
    }

    /// Compiles a sub-expression.
    mutating func compile(_ expression: Any) throws -> Compiled {
        guard let compilable = expression as? any SQLCompilable else {
            throw unsupported(Self.constructName(of: expression))
        }
        return try compilable.compile(&self)
    }

    /// Compiles a sub-expression that must be a scalar (a value, NULL, or a row key).
    mutating func scalar(_ expression: Any) throws -> String {
        try scalar(of: try compile(expression))
    }

    /// The SQL of an already compiled scalar.
    func scalar(of compiled: Compiled) throws -> String {
        switch compiled {
        case .value(let sql, _): return sql
        case .object(_, let key, _): return key
        case .null: return "NULL"
        case .objectIDValue(let id): return id.isTemporaryID || id.storeNumber != storeNumber ? "NULL" : "\(id.key)"
        case .toMany(_, _, let relationship, _): throw unsupported("the to-many relationship \(relationship.name) used as a value")
        case .sequence: throw unsupported("a collection used as a value")
        }
    }

    /// A parameter bound to `value`.
    mutating func bind(_ value: StoreValue) -> String {
        arguments.append(value)
        return "?"
    }

    /// A call of a function only SQLite has (it runs Swift code, registered
    /// on every connection by `SQLiteFunctions`); another dialect cannot
    /// evaluate `construct` exactly, so it is refused by name.
    func swiftFunction(_ name: String, _ construct: @autoclosure () -> String) throws -> String {
        guard dialect == .sqlite else { throw SQLDialectCannotEvaluate(construct: construct(), entity: entity.name) }
        return name
    }

    mutating func bindVariable(_ id: PredicateExpressions.VariableID, to compiled: Compiled) {
        variables[id] = compiled
    }

    func variable(_ id: PredicateExpressions.VariableID) throws -> Compiled {
        guard let compiled = variables[id] else { throw unsupported("an unbound variable") }
        return compiled
    }

    mutating func newAlias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// The attribute type of a compiled value, if known.
    static func attributeType(of compiled: Compiled) -> AttributeType? {
        if case .value(_, let type) = compiled { return type }
        return nil
    }

    /// A readable name for an expression type: `PredicateExpressions.ForcedUnwrap`.
    static func constructName(of expression: Any) -> String {
        let full = String(describing: type(of: expression))
        let base = full.prefix { $0 != "<" }
        return base.hasPrefix("PredicateExpressions.") ? String(base) : "PredicateExpressions.\(base)"
    }

    // MARK: Key paths

    /// `keyPath` applied to a compiled root.
    mutating func apply(_ keyPath: AnyKeyPath, to root: Compiled) throws -> Compiled {
        switch root {
        case .object(let entity, let key, let alias):
            if type(of: keyPath).valueType == ManagedObjectID.self,
               let root = type(of: keyPath).rootType as? AnyClass, isSameOrSubclass(entity.managedObjectClass, of: root) {
                return .object(entity, key: key, alias: alias)
            }
            guard let index = entity.propertyIndex(for: keyPath) else {
                // A model file's entity: most likely a @Managed property,
                // which Swift gives no way to name from its key path. The
                // context evaluates the predicate on objects.
                if entity.isFromModelFile { throw SQLDialectCannotEvaluate(construct: "the key path \(keyPath)", entity: entity.name) }
                throw unsupported("the key path \(keyPath), which is not a modeled property of \(entity.name)")
            }
            if let relationship = entity.relationship(at: index) {
                guard let destination = model.entitiesByName[relationship.destinationEntityName] else {
                    throw unsupported("the relationship \(relationship.name) to an entity outside the model")
                }
                if relationship.isToMany {
                    return .toMany(owner: entity, key: key, relationship: relationship, filter: nil)
                }
                return .object(destination, key: column(relationship.name, of: entity, key: key, alias: alias), alias: nil)
            }
            let attribute = entity.attributes[index]
            guard !attribute.isTransient else {
                throw unsupported("the transient attribute \(attribute.name), which no store keeps")
            }
            return .value(column(attribute.name, of: entity, key: key, alias: alias), attribute.attributeType)
        case .toMany(let owner, let key, let relationship, let filter):
            if relationship.valueType._countKeyPaths.contains(keyPath) {
                return .value("(SELECT COUNT(*) \(try destinationRows(owner: owner, key: key, relationship: relationship, filter: filter)))", .integer64)
            }
            if relationship.valueType._isEmptyKeyPaths.contains(keyPath) {
                return .value("(NOT EXISTS (SELECT 1 \(try destinationRows(owner: owner, key: key, relationship: relationship, filter: filter))))", .boolean)
            }
            throw unsupported("the key path \(keyPath) on the to-many relationship \(relationship.name)")
        case .value(let sql, let type):
            if keyPath == \String.caseFolded {
                return .value("\(try swiftFunction(SQLiteFunctions.caseFolded.name, "String.caseFolded"))(\(sql))", type)
            }
            if keyPath == \String.reversedText {
                return .value("\(try swiftFunction(SQLiteFunctions.reversedText.name, "String.reversedText"))(\(sql))", type)
            }
            throw unsupported("the key path \(keyPath) on a value")
        case .null, .sequence, .objectIDValue:
            throw unsupported("the key path \(keyPath) on a value")
        }
    }

    /// A column of the row `key` of `entity`: direct when the row is an alias,
    /// otherwise a scalar subquery by primary key.
    private func column(_ name: String, of entity: EntityDescription, key: String, alias: String?) -> String {
        if let alias { return "\(alias).\(SQLSchema.quote(name))" }
        return "(SELECT \(SQLSchema.quote(name)) FROM \(SQLSchema.table(entity)) WHERE \(SQLSchema.quote(SQLSchema.primaryKey)) = \(key))"
    }

    /// `FROM … WHERE …` selecting the destination rows of a to-many
    /// relationship of row `key`, aliased by the filter's alias when filtered.
    mutating func destinationRows(owner: EntityDescription, key: String, relationship: RelationshipDescription, filter: Filter?,
                                  alias: String? = nil) throws -> String {
        let alias = filter?.alias ?? alias ?? newAlias()
        let destination = SQLSchema.table(named: relationship.destinationRootEntityName)
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        var link: String
        if let join = SQLSchema.joinTable(relationship, of: owner) {
            link = "\(alias).\(pk) IN (SELECT \(join.destinationColumn) FROM \(join.name) WHERE \(join.sourceColumn) = \(key))"
        } else {
            link = "\(alias).\(SQLSchema.quote(relationship.inverseName)) = \(key)"
        }
        if let filter { link += " AND (\(filter.condition))" }
        return "FROM \(destination) AS \(alias) WHERE \(link)"
    }

    /// The destination entity of a to-many relationship.
    func destination(of relationship: RelationshipDescription) throws -> EntityDescription {
        guard let destination = model.entitiesByName[relationship.destinationEntityName] else {
            throw unsupported("the relationship \(relationship.name) to an entity outside the model")
        }
        return destination
    }

    // MARK: Values

    /// `lhs == rhs` (or `!=`) when one side is a captured object ID: true
    /// only for a permanent ID of the same entity and store as the row.
    func identityComparison(_ lhs: Compiled, _ rhs: Compiled, equal: Bool) throws -> String? {
        let pair: (ManagedObjectID, Compiled)
        switch (lhs, rhs) {
        case (.objectIDValue(let id), let other), (let other, .objectIDValue(let id)): pair = (id, other)
        default: return nil
        }
        let (id, other) = pair
        guard case .object(let entity, let key, _) = other else { return nil }
        // Keys are unique within a hierarchy: an ID of any of its entities can match.
        let matchable = !id.isTemporaryID && id.storeNumber == storeNumber
            && (id.objectClass == entity.managedObjectClass || model.entity(for: id.objectClass)?.rootEntity === entity.rootEntity)
        guard matchable else { return equal ? "FALSE" : "TRUE" }
        return equal ? dialect.isSame(key, "\(id.key)") : dialect.isNotSame(key, "\(id.key)")
    }

    /// The store form of a Swift value captured by a predicate.
    func storeValue(of value: Any) throws -> StoreValue {
        if let id = value as? ManagedObjectID {
            return .integer(id.isTemporaryID || id.storeNumber != storeNumber ? -1 : id.key)
        }
        if case Optional<Any>.none = value as Any? { return .null }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try storeValue(of: wrapped)
        }
        if let native = value as? any AttributeValue { return native.storeValue }
        if let raw = value as? any RawRepresentable { return try storeValue(of: raw.rawValue) }
        if let codable = value as? any Encodable {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .data(try encoder.encode(codable))
        }
        throw unsupported("a value of type \(type(of: value))")
    }
}

/// A predicate that the dialect cannot evaluate exactly (PostgreSQL cannot
/// run Swift's string functions): the store then returns `nil` for the
/// request, and the context evaluates it in memory, over every row of the
/// entity, with the very Swift code the in-memory store uses.
struct SQLDialectCannotEvaluate: Error {
    let construct: String
    let entity: String
}

/// An expression that ``SQLPredicateCompiler`` can translate.
protocol SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled
}
