import Foundation

/// The format predicate of a `@Derived` attribute declared by name reads
/// only the child's own attributes: a derived value is kept current as each
/// child's attributes change, and a predicate that followed a relationship
/// (`server.active`, `tags.@count`) would not see the related object change.
enum FormatDerivationCheck {
    /// The first key of `expression` that is not an attribute of `entity`
    /// (a relationship, a path of several components, `SELF`, `@count` or
    /// `SUBQUERY`), or `nil` when it reads attributes only. Not a format
    /// predicate: `nil`.
    static func firstKeyThatIsNoAttribute(in expression: any StandardPredicateExpression<Bool>, entity: EntityDescription) -> String? {
        guard let format = expression as? any FormatPredicateExpressionProtocol else { return nil }
        return firstKey(in: format.node, entity: entity)
    }

    private static func firstKey(in node: FormatNode, entity: EntityDescription) -> String? {
        switch node {
        case .constant: nil
        case .not(let wrapped): firstKey(in: wrapped, entity: entity)
        case .and(let lhs, let rhs), .or(let lhs, let rhs): firstKey(in: lhs, entity: entity) ?? firstKey(in: rhs, entity: entity)
        case .comparison(_, let lhs, _, let rhs): firstKey(of: lhs, entity: entity) ?? firstKey(of: rhs, entity: entity)
        case .string(_, let operand, _, _, _), .among(_, let operand, _), .between(_, let operand, _, _): firstKey(of: operand, entity: entity)
        }
    }

    private static func firstKey(of operand: FormatOperand, entity: EntityDescription) -> String? {
        switch operand {
        case .value: return nil
        case .count(let path): return path.joined(separator: ".") + ".@count"
        case .subqueryCount(let path, _): return "SUBQUERY(\(path.joined(separator: ".")), …)"
        case .key(let path):
            guard path.count == 1, let index = entity.indexByName[path[0]], index < entity.attributes.count else {
                return path.isEmpty ? "SELF" : path.joined(separator: ".")
            }
            return nil
        }
    }
}
