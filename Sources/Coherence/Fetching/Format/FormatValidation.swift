import Foundation

/// Checks a format predicate's key paths against the model before it is
/// evaluated in memory, so that an unknown key throws even when there is no
/// object to evaluate (the SQLite store checks them when it compiles).
enum FormatPredicateValidation {
    static func validate(_ expression: any StandardPredicateExpression<Bool>, entity: EntityDescription,
                         model: ManagedObjectModel) throws(PredicateFormatError) {
        guard let format = expression as? any FormatPredicateExpressionProtocol else { return }
        try validate(format.node, entity: entity, model: model)
    }

    private static func validate(_ node: FormatNode, entity: EntityDescription, model: ManagedObjectModel) throws(PredicateFormatError) {
        switch node {
        case .constant: break
        case .not(let wrapped): try validate(wrapped, entity: entity, model: model)
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            try validate(lhs, entity: entity, model: model)
            try validate(rhs, entity: entity, model: model)
        case .comparison(_, let lhs, _, let rhs):
            try validate(lhs, entity: entity, model: model)
            try validate(rhs, entity: entity, model: model)
        case .string(_, let operand, _, _, _), .among(_, let operand, _), .between(_, let operand, _, _):
            try validate(operand, entity: entity, model: model)
        }
    }

    /// A key path, or a subquery's collection and its predicate (read on
    /// the collection's destination entity).
    private static func validate(_ operand: FormatOperand, entity: EntityDescription, model: ManagedObjectModel) throws(PredicateFormatError) {
        let destination = try validate(operand.keyPath, entity: entity, model: model)
        if case .subqueryCount(_, let predicate) = operand, let destination {
            try validate(predicate, entity: destination, model: model)
        }
    }

    /// Every component names a property of the entity it is read on; the
    /// entity the path ends on, when it ends on a relationship.
    @discardableResult
    private static func validate(_ path: [String]?, entity: EntityDescription, model: ManagedObjectModel) throws(PredicateFormatError) -> EntityDescription? {
        guard let path else { return nil }
        var current = entity
        for name in path {
            guard let index = current.indexByName[name] else { throw .unknownKey(entity: current.name, key: name) }
            guard let relationship = current.relationship(at: index),
                  let destination = model.entitiesByName[relationship.destinationEntityName] else { return nil }
            current = destination
        }
        return current
    }
}

/// A ``FormatPredicateExpression`` of any root type.
protocol FormatPredicateExpressionProtocol {
    var node: FormatNode { get }
}

extension FormatPredicateExpression: FormatPredicateExpressionProtocol {}
