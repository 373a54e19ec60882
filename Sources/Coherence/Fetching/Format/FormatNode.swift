import Foundation

/// A parsed format predicate: the tree that ``FormatPredicateExpression``
/// evaluates in memory and the SQLite store compiles to SQL. Keys are held by
/// name and resolved against the entity when the predicate is used.
indirect enum FormatNode: Codable, Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case not(FormatNode)
    case and(FormatNode, FormatNode)
    case or(FormatNode, FormatNode)
    /// `lhs op rhs`, under a quantifier when a key path crosses a to-many relationship.
    case comparison(FormatQuantifier, FormatOperand, FormatComparison, FormatOperand)
    /// `key BEGINSWITH[cd] "text"` and the other string operators.
    case string(FormatQuantifier, FormatOperand, FormatStringOperator, FormatStringOptions, pattern: String)
    /// `key IN {values}`.
    case among(FormatQuantifier, FormatOperand, [FormatValue])
    /// `key BETWEEN {low, high}`: low <= key <= high, for the same destination under a quantifier.
    case between(FormatQuantifier, FormatOperand, FormatValue, FormatValue)
}

/// `ANY`/`SOME`, `ALL`, `NONE`: how a test on the destinations of a to-many
/// key path combines. A key path that crosses a to-many relationship without
/// a quantifier is read as `ANY`.
enum FormatQuantifier: String, Codable, Sendable, Hashable {
    case any, all, none
}

/// One side of a comparison.
indirect enum FormatOperand: Codable, Sendable, Hashable {
    /// A key path by name: `["server", "name"]`; `[]` is `SELF`, the
    /// object itself.
    case key([String])
    /// `path.@count`: the number of destinations of a to-many relationship.
    case count([String])
    /// `SUBQUERY(path, $x, predicate).@count`: the number of destinations
    /// of the to-many relationship at `path` that match `predicate` (whose
    /// key paths are read on each destination).
    case subqueryCount([String], FormatNode)
    case value(FormatValue)

    var keyPath: [String]? {
        switch self {
        case .key(let path), .count(let path), .subqueryCount(let path, _): path
        case .value: nil
        }
    }
}

enum FormatComparison: String, Codable, Sendable, Hashable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
}

enum FormatStringOperator: Int, Codable, Sendable, Hashable {
    case beginsWith = 1, endsWith, contains, like, matches
}

/// The `[c]`, `[d]` and `[cd]` modifiers.
struct FormatStringOptions: OptionSet, Codable, Sendable, Hashable {
    let rawValue: Int
    static let caseInsensitive = FormatStringOptions(rawValue: 1)
    static let diacriticInsensitive = FormatStringOptions(rawValue: 2)
}

/// A constant as the store compares it: SQLite's storage classes. Booleans
/// are integers, dates are seconds since 2001 (as the store keeps them),
/// URLs and decimals are their text, UUIDs their 16 bytes.
enum FormatValue: Codable, Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case string(String)
    case blob(Data)
    /// An object (a `%@` argument that is a managed object or its ID), for
    /// comparisons with a to-one relationship.
    case objectID(ManagedObjectID)

    /// SQLite's order of storage classes: NULL, numbers, text, blobs; objects
    /// apart (they compare with relationships only).
    var classRank: Int {
        switch self {
        case .null: 0
        case .integer, .double: 1
        case .string: 2
        case .blob: 3
        case .objectID: 4
        }
    }

    /// The value as the store binds it.
    var storeValue: StoreValue {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .blob(let value): .data(value)
        case .objectID(let id): .objectID(id)
        }
    }

    /// An attribute's store value in the form the store compares.
    init(_ value: StoreValue) {
        switch value {
        case .null, .objectID, .objectIDs, .orderedObjectIDs, .toManyFault: self = .null
        case .bool(let value): self = .integer(value ? 1 : 0)
        case .integer(let value): self = .integer(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .date(let value): self = .double(value.timeIntervalSinceReferenceDate)
        case .data(let value): self = .blob(value)
        case .uuid(let value): self = .blob(withUnsafeBytes(of: value.uuid) { Data($0) })
        case .url(let value): self = .string(value.absoluteString)
        case .decimal(let value): self = .string(value.description)
        }
    }
}

extension AttributeType {
    /// The storage class rank (``FormatValue/classRank``) of the attribute's column.
    var formatClassRank: Int {
        switch self {
        case .boolean, .integer16, .integer32, .integer64, .double, .float, .date: 1
        case .string, .uri, .decimal: 2
        case .binaryData, .uuid, .codable: 3
        }
    }
}

/// Integers or floating-point numbers: SQLite and the in-memory evaluation
/// compare the two exactly, other dialects do not.
enum FormatNumericKind: Hashable {
    case integer, floatingPoint

    /// The kind of an attribute type's values; `nil` for non-numbers.
    init?(_ type: AttributeType) {
        switch type {
        case .boolean, .integer16, .integer32, .integer64: self = .integer
        case .double, .float, .date: self = .floatingPoint
        default: return nil
        }
    }
}

extension FormatValue {
    /// Whether this constant is an integer or a floating-point number, for
    /// telling where integers and doubles meet; `nil` for an integer a
    /// double holds exactly (at most 2^53 in magnitude), which compares
    /// exactly either way, and for non-numbers.
    var numericKind: FormatNumericKind? {
        switch self {
        case .integer(let value): value.magnitude <= 1 << 53 ? nil : .integer
        case .double: .floatingPoint
        default: nil
        }
    }
}
