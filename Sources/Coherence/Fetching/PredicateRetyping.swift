import Foundation

/// A predicate expression that reads its input by name, so it can be
/// rebuilt over another input type: a format predicate, or a
/// ``CompoundPredicate`` of them. A request for results that are not objects
/// (`FetchRequest<NSDictionary>`) holds such a predicate, which the fetch
/// reads on the entity's objects.
protocol RetypablePredicateExpression {
    /// The same test over `variable`; `nil` if a part cannot be rebuilt.
    func retyped<T>(to variable: PredicateExpressions.Variable<T>) -> (any StandardPredicateExpression<Bool>)?
}

extension FormatPredicateExpression: RetypablePredicateExpression {
    func retyped<T>(to variable: PredicateExpressions.Variable<T>) -> (any StandardPredicateExpression<Bool>)? {
        FormatPredicateExpression<T>(variable: variable, node: node)
    }
}

extension CompoundPredicateExpression: RetypablePredicateExpression {
    func retyped<T>(to variable: PredicateExpressions.Variable<T>) -> (any StandardPredicateExpression<Bool>)? {
        var retypedSubpredicates: [Predicate<T>] = []
        for subpredicate in subpredicates {
            guard let retyped = retypedPredicate(subpredicate, as: T.self) else { return nil }
            retypedSubpredicates.append(retyped)
        }
        let retypedKind: CompoundPredicateExpression<T>.Kind = switch kind {
        case .and: .and
        case .or: .or
        case .not: .not
        }
        return CompoundPredicateExpression<T>(kind: retypedKind, subpredicates: retypedSubpredicates, input: variable)
    }
}

/// `predicate` over `T` instead of `Input`: possible for predicates that
/// read their input by name (format predicates and compound predicates of
/// them); `nil` for others (`#Predicate` closures are typed).
func retypedPredicate<Input, T>(_ predicate: Predicate<Input>, as type: T.Type) -> Predicate<T>? {
    guard let expression = predicate.expression as? any RetypablePredicateExpression else { return nil }
    var retyped = true
    let result = Predicate<T> { variable in
        guard let rebuilt = expression.retyped(to: variable) else {
            retyped = false
            return PredicateExpressions.Value(false)
        }
        return rebuilt
    }
    return retyped ? result : nil
}

/// A predicate expression that is a format predicate's tree: a format
/// predicate, or a ``CompoundPredicate`` of them. Persistent history reads
/// such predicates on its own records.
protocol FormatNodeExpression {
    /// The tree; `nil` if a part is not a format predicate.
    var formatNode: FormatNode? { get }
}

extension FormatPredicateExpression: FormatNodeExpression {
    var formatNode: FormatNode? { node }
}

extension CompoundPredicateExpression: FormatNodeExpression {
    var formatNode: FormatNode? {
        var nodes: [FormatNode] = []
        for subpredicate in subpredicates {
            guard let node = (subpredicate.expression as? any FormatNodeExpression)?.formatNode else { return nil }
            nodes.append(node)
        }
        switch kind {
        case .and: return nodes.reduce(nil) { combined, node in combined.map { .and($0, node) } ?? node } ?? .constant(true)
        case .or: return nodes.reduce(nil) { combined, node in combined.map { .or($0, node) } ?? node } ?? .constant(false)
        case .not: return nodes.first.map { .not($0) }
        }
    }
}
