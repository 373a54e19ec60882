import Foundation

/// Evaluates a ``FormatNode`` on a record of named values rather than on a
/// managed object: the transactions and changes of persistent history,
/// which Core Data filters with format predicates. Comparisons and string
/// tests follow ``FormatSemantics``, as for objects.
enum FormatRecordEvaluator {
    /// Whether the record `value(key)` describes matches `node`; `entity`
    /// names the record's kind in errors.
    /// - Throws: ``PredicateFormatError/unknownKey(entity:key:)`` for a key
    ///   the record does not have; ``PredicateFormatError/unsupportedKeyPath(entity:key:reason:)``
    ///   for `@count` and `SUBQUERY`, which records have nothing to count for.
    static func evaluate(_ node: FormatNode, entity: String, value: (String) -> FormatValue?) throws(PredicateFormatError) -> Bool {
        switch node {
        case .constant(let result):
            return result
        case .not(let wrapped):
            return !(try evaluate(wrapped, entity: entity, value: value))
        case .and(let lhs, let rhs):
            guard try evaluate(lhs, entity: entity, value: value) else { return false }
            return try evaluate(rhs, entity: entity, value: value)
        case .or(let lhs, let rhs):
            if try evaluate(lhs, entity: entity, value: value) { return true }
            return try evaluate(rhs, entity: entity, value: value)
        case .comparison(let quantifier, let lhs, let op, let rhs):
            let left = try resolve(lhs, entity: entity, value: value), right = try resolve(rhs, entity: entity, value: value)
            return quantified(quantifier, FormatSemantics.compare(left, op, right))
        case .string(let quantifier, let lhs, let op, let options, let pattern):
            let left = try resolve(lhs, entity: entity, value: value)
            return quantified(quantifier, FormatSemantics.matches(left, op, options, pattern: pattern))
        case .among(let quantifier, let lhs, let values):
            let left = try resolve(lhs, entity: entity, value: value)
            return quantified(quantifier, values.contains { FormatSemantics.compare(left, .equal, $0) })
        case .between(let quantifier, let lhs, let low, let high):
            let left = try resolve(lhs, entity: entity, value: value)
            return quantified(quantifier, FormatSemantics.compare(left, .greaterOrEqual, low) && FormatSemantics.compare(left, .lessOrEqual, high))
        }
    }

    /// A record holds single values: `ANY` and `ALL` test the value, `NONE` negates the test.
    private static func quantified(_ quantifier: FormatQuantifier, _ test: Bool) -> Bool {
        quantifier == .none ? !test : test
    }

    private static func resolve(_ operand: FormatOperand, entity: String, value: (String) -> FormatValue?) throws(PredicateFormatError) -> FormatValue {
        switch operand {
        case .value(let constant):
            return constant
        case .key(let path):
            let key = path.isEmpty ? "SELF" : path.joined(separator: ".")
            guard !path.isEmpty, let found = value(key) else { throw .unknownKey(entity: entity, key: key) }
            return found
        case .count(let path), .subqueryCount(let path, _):
            throw .unsupportedKeyPath(entity: entity, key: path.joined(separator: "."), reason: "counts, which a \(entity) has nothing to count for")
        }
    }
}
