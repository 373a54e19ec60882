import Foundation

/// Predicates composed at run time from other predicates: Core Data's
/// `NSCompoundPredicate` for typed predicates, for generic code that
/// builds a query from parts (filters a user switched on, a search field
/// plus a scope).
///
/// ```swift
/// var parts: [Predicate<Car>] = [#Predicate { $0.year >= 2020 }]
/// if electricOnly { parts.append(#Predicate { $0.isElectric }) }
/// let request = FetchRequest<Car>(predicate: CompoundPredicate.and(parts))
/// ```
///
/// The result is an ordinary `Predicate`: it evaluates in memory, and the
/// SQLite store translates it to SQL whenever it translates each part. As
/// in Core Data, an `and` of no predicates matches everything and an `or`
/// of none matches nothing
/// (<https://developer.apple.com/documentation/foundation/nscompoundpredicate/init(andpredicatewithsubpredicates:)>).
///
/// A caseless enum rather than static members of `Predicate`: `Predicate`
/// is generic over a parameter pack, and an extension cannot constrain it to
/// one input. The name avoids Foundation's `NSCompoundPredicate` on Apple
/// platforms. (`#Predicate { p.evaluate($0) }` is not available either:
/// Foundation on Linux has no `PredicateExpressions.PredicateEvaluate`.)
public enum CompoundPredicate {
    /// A predicate that matches what every one of `subpredicates` matches;
    /// all objects for none (Core Data's
    /// `NSCompoundPredicate(andPredicateWithSubpredicates:)`).
    public static func and<Input>(_ subpredicates: [Predicate<Input>]) -> Predicate<Input> {
        Predicate<Input> { input in CompoundPredicateExpression(kind: .and, subpredicates: subpredicates, input: input) }
    }

    /// A predicate that matches what any one of `subpredicates` matches;
    /// nothing for none (Core Data's
    /// `NSCompoundPredicate(orPredicateWithSubpredicates:)`).
    public static func or<Input>(_ subpredicates: [Predicate<Input>]) -> Predicate<Input> {
        Predicate<Input> { input in CompoundPredicateExpression(kind: .or, subpredicates: subpredicates, input: input) }
    }

    /// A predicate that matches what `predicate` does not match (Core Data's
    /// `NSCompoundPredicate(notPredicateWithSubpredicate:)`).
    public static func not<Input>(_ predicate: Predicate<Input>) -> Predicate<Input> {
        Predicate<Input> { input in CompoundPredicateExpression(kind: .not, subpredicates: [predicate], input: input) }
    }
}

/// The expression of a ``CompoundPredicate``: its subpredicates evaluated on
/// the compound predicate's own input, combined.
///
/// Not encodable: a `Predicate` is encodable only with a configuration that
/// lists the types it may contain, which this expression cannot pass on.
struct CompoundPredicateExpression<Input>: StandardPredicateExpression {
    typealias Output = Bool

    enum Kind: String, Codable, Sendable {
        case and, or, not
    }

    let kind: Kind
    let subpredicates: [Predicate<Input>]
    let input: PredicateExpressions.Variable<Input>

    init(kind: Kind, subpredicates: [Predicate<Input>], input: PredicateExpressions.Variable<Input>) {
        self.kind = kind
        self.subpredicates = subpredicates
        self.input = input
    }

    func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        let value = try input.evaluate(bindings)
        switch kind {
        case .and: return try subpredicates.allSatisfy { try $0.evaluate(value) }
        case .or: return try subpredicates.contains { try $0.evaluate(value) }
        case .not: return try !subpredicates[0].evaluate(value)
        }
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                     debugDescription: "a CompoundPredicate cannot be encoded"))
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                debugDescription: "a CompoundPredicate cannot be decoded"))
    }
}
