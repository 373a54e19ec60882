import Foundation

/// A computed column of a dictionary fetch: Core Data's
/// `NSExpressionDescription`, a name, an expression and a result type.
///
/// ```swift
/// let total = ExpressionDescription(name: "total", expression: .sum("price"), resultType: .double)
/// let rows = try context.fetchDictionaries(
///     FetchRequest<Car>(), propertiesToFetch: ["make", .expression(total)], propertiesToGroupBy: ["make"])
/// // [["make": "Tesla", "total": 90000.0], …]
/// ```
/// <https://developer.apple.com/documentation/coredata/nsexpressiondescription>
public struct ExpressionDescription: Sendable, Hashable {
    /// The key of the value in each result dictionary.
    public var name: String
    /// What is computed.
    public var expression: AggregateExpression
    /// The type of the value in the dictionary: `.integer16`, `.integer32`
    /// and `.integer64` give `Int`, `.double` `Double`, `.float` `Float`,
    /// `.decimal` `Decimal`; `.date`, `.string` and `.boolean` give those
    /// types (for `min` and `max`). Core Data's `expressionResultType`.
    public var resultType: AttributeType

    /// A column named `name` computing `expression`, whose value has
    /// `resultType`.
    public init(name: String, expression: AggregateExpression, resultType: AttributeType) {
        self.name = name
        self.expression = expression
        self.resultType = resultType
    }
}

/// An aggregate function over one attribute of the rows of a group (or of
/// all matching rows without grouping): Core Data's
/// `NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])`.
/// Rows where the attribute has no value are left out, as SQL leaves out
/// `NULL`; `sum`, `min`, `max` and `average` of no values have no value
/// (the key is absent from the dictionary), `count` of none is 0.
public struct AggregateExpression: Sendable, Hashable {
    /// The functions of Core Data's dictionary fetches.
    public enum Function: String, Sendable, Hashable {
        /// The number of values (Core Data's `count:`).
        case count
        /// Their sum, of a numeric attribute (`sum:`).
        case sum
        /// The smallest, of a number, date or string attribute (`min:`).
        case min
        /// The largest (`max:`).
        case max
        /// Their mean, of a numeric attribute (`average:`).
        case average
    }

    /// The function applied to the values.
    public var function: Function
    /// The attribute (or, for `count`, to-one relationship) by name.
    public var key: String

    /// `function` over the values of `key`.
    public init(function: Function, key: String) {
        self.function = function
        self.key = key
    }

    /// The number of rows in which `key` has a value (Core Data's `count:`).
    public static func count(_ key: String) -> Self { Self(function: .count, key: key) }
    /// The sum of the values of `key` (Core Data's `sum:`).
    public static func sum(_ key: String) -> Self { Self(function: .sum, key: key) }
    /// The smallest value of `key` (Core Data's `min:`).
    public static func min(_ key: String) -> Self { Self(function: .min, key: key) }
    /// The largest value of `key` (Core Data's `max:`).
    public static func max(_ key: String) -> Self { Self(function: .max, key: key) }
    /// The mean of the values of `key` (Core Data's `average:`).
    public static func average(_ key: String) -> Self { Self(function: .average, key: key) }
}

/// One entry of a dictionary fetch's `propertiesToFetch`: a property by
/// name (a string literal) or an ``ExpressionDescription``, as Core Data
/// mixes `NSPropertyDescription`s, names and `NSExpressionDescription`s.
public enum PropertyToFetch: Sendable, Hashable, ExpressibleByStringLiteral {
    /// An attribute or to-one relationship by name.
    case property(String)
    /// A computed column.
    case expression(ExpressionDescription)

    /// The property named by the literal: `"make"` is `.property("make")`.
    public init(stringLiteral name: String) {
        self = .property(name)
    }

    /// The key of this entry's value in each result dictionary.
    var resultName: String {
        switch self {
        case .property(let name): name
        case .expression(let description): description.name
        }
    }
}

/// The condition groups must meet: Core Data's `havingPredicate`, in a
/// small typed form. It compares result names (a grouped property's name
/// or an ``ExpressionDescription``'s name) with values, combined with
/// `and`, `or` and `not`. A result without a value meets no comparison, as
/// SQL's `NULL`.
///
/// ```swift
/// let popular: HavingPredicate = .compare("count", .greaterThan, 1)
/// ```
/// <https://developer.apple.com/documentation/coredata/nsfetchrequest/havingpredicate>
public indirect enum HavingPredicate: Sendable, Hashable {
    /// The comparison operators.
    public enum Operator: String, Sendable, Hashable {
        /// `==`.
        case equal = "="
        /// `!=`.
        case notEqual = "<>"
        /// `<`.
        case lessThan = "<"
        /// `<=`.
        case lessThanOrEqual = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=`.
        case greaterThanOrEqual = ">="
    }

    /// The result `name` compared with `value` (in store form).
    case comparison(String, Operator, StoreValue)
    /// Every one holds; true for none.
    case and([HavingPredicate])
    /// At least one holds; false for none.
    case or([HavingPredicate])
    /// The condition does not hold.
    case not(HavingPredicate)

    /// The result `name` compared with a value of an attribute type
    /// (`Int`, `Double`, `String`, `Date`, …).
    public static func compare(_ name: String, _ op: Operator, _ value: some AttributeValue) -> Self {
        .comparison(name, op, value.storeValue)
    }
}
