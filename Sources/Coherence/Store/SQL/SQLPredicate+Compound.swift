import Foundation

// Compound predicates in SQL: each subpredicate's expression compiled with
// its variable bound to the compound predicate's input.

extension CompoundPredicateExpression: SQLCompilable {
    func compile(_ compiler: inout SQLPredicateCompiler) throws -> SQLPredicateCompiler.Compiled {
        let target = try compiler.compile(input)
        var conditions: [String] = []
        for subpredicate in subpredicates {
            compiler.bindVariable(subpredicate.variable.key, to: target)
            conditions.append(try compiler.scalar(subpredicate.expression))
        }
        switch kind {
        case .and: return .value(conditions.isEmpty ? "TRUE" : "(\(conditions.joined(separator: " AND ")))", .boolean)
        case .or: return .value(conditions.isEmpty ? "FALSE" : "(\(conditions.joined(separator: " OR ")))", .boolean)
        case .not: return .value("(NOT \(conditions[0]))", .boolean)
        }
    }
}
