import Foundation

/// Why a predicate format string could not be turned into a predicate, or
/// why a format predicate does not fit the entity it is used on.
///
/// Positions are offsets in characters (`Character`s) from the start of the
/// format string.
public enum PredicateFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format string does not follow the syntax: at `position`, the parser
    /// expected `expected` and found `found`.
    case syntax(position: Int, expected: String, found: String)
    /// A substitution (`%@`, `%K`, `%d`, `%f`) at `position` has no argument.
    case missingArgument(position: Int)
    /// More arguments were given than the format string has substitutions.
    case unusedArguments(expected: Int, given: Int)
    /// The argument for the substitution at `position` has the wrong type.
    case argumentType(position: Int, expected: String, found: String)
    /// The `MATCHES` pattern at `position` is not a valid regular expression.
    case invalidRegularExpression(position: Int, pattern: String)
    /// The entity has no property `key` (checked when the predicate is first
    /// used on the entity: at fetch time).
    case unknownKey(entity: String, key: String)
    /// The key path `key` of `entity` cannot be used this way (a to-many
    /// relationship compared as a value, `@count` of an attribute, ...).
    case unsupportedKeyPath(entity: String, key: String, reason: String)

    public var description: String {
        switch self {
        case .syntax(let position, let expected, let found):
            "predicate format: at position \(position), expected \(expected) but found \(found)"
        case .missingArgument(let position):
            "predicate format: the substitution at position \(position) has no argument"
        case .unusedArguments(let expected, let given):
            "predicate format: \(given) arguments given for \(expected) substitutions"
        case .argumentType(let position, let expected, let found):
            "predicate format: the argument for the substitution at position \(position) must be \(expected), not \(found)"
        case .invalidRegularExpression(let position, let pattern):
            "predicate format: the MATCHES pattern at position \(position) is not a valid regular expression: \(pattern)"
        case .unknownKey(let entity, let key):
            "predicate format: \(entity) has no property named \(key)"
        case .unsupportedKeyPath(let entity, let key, let reason):
            "predicate format: the key path \(key) of \(entity) \(reason)"
        }
    }
}
