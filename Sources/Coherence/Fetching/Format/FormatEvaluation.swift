import Foundation

/// A format predicate as a Foundation predicate expression: the node that
/// `Predicate(format:)` builds. It evaluates on objects in memory (unsaved
/// changes, in-memory stores, fetched results controllers) and the SQLite
/// store compiles it to SQL; both follow ``FormatSemantics``.
struct FormatPredicateExpression<Root>: StandardPredicateExpression {
    typealias Output = Bool

    let variable: PredicateExpressions.Variable<Root>
    let node: FormatNode

    func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        guard let object = bindings[variable] as? ManagedObject else {
            fatalError("Coherence: a format predicate evaluates managed objects only, not \(Root.self)")
        }
        return try FormatEvaluator.evaluate(node, on: object)
    }
}

/// Evaluates a ``FormatNode`` on one object, reading its values by name.
enum FormatEvaluator {
    /// What a key path reaches from one object.
    enum Reached {
        case single(FormatValue)
        /// The values reached through a to-many relationship, one per destination.
        case many([FormatValue])
        /// A to-one relationship itself: its destination's ID, if any.
        case object(ManagedObjectID?)
        /// A to-many relationship itself: its destinations' IDs.
        case objects([ManagedObjectID])
    }

    static func evaluate(_ node: FormatNode, on object: ManagedObject) throws(PredicateFormatError) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .not(let wrapped):
            return !(try evaluate(wrapped, on: object))
        case .and(let lhs, let rhs):
            guard try evaluate(lhs, on: object) else { return false }
            return try evaluate(rhs, on: object)
        case .or(let lhs, let rhs):
            if try evaluate(lhs, on: object) { return true }
            return try evaluate(rhs, on: object)
        case .comparison(let quantifier, let lhs, let op, let rhs):
            let left = try reach(lhs, from: object), right = try reach(rhs, from: object)
            if case .object(let id) = left { return try relationshipTest(id, op, right, lhs, object) }
            if case .object(let id) = right { return try relationshipTest(id, op, left, rhs, object) }
            if case .objects(let ids) = left {
                var results: [Bool] = []
                for id in ids { results.append(try relationshipTest(id, op, right, lhs, object)) }
                if ids.isEmpty { _ = try relationshipTest(nil, op, right, lhs, object) } // the same errors with no destinations
                return quantify(quantifier, .many(results.map { .integer($0 ? 1 : 0) })) { $0 == .integer(1) }
            }
            if case .objects = right { throw toManyOnTheRight(rhs, object) }
            guard case .single(let value) = right else { throw toManyOnTheRight(rhs, object) }
            if value.classRank == 4 || left.holdsObjectID { throw objectComparedWithValue(lhs, object) }
            return quantify(quantifier, left) { FormatSemantics.compare($0, op, value) }
        case .string(let quantifier, let lhs, let op, let options, let pattern):
            let left = try reach(lhs, from: object)
            if left.isRelationship { throw relationshipAsValue(lhs, object) }
            if left.holdsObjectID { throw objectComparedWithValue(lhs, object) }
            return quantify(quantifier, left) { FormatSemantics.matches($0, op, options, pattern: pattern) }
        case .among(let quantifier, let lhs, let values):
            let left = try reach(lhs, from: object)
            if case .object(let id) = left {
                guard values.allSatisfy({ $0 == .null || $0.classRank == 4 }) else { throw relationshipAsValue(lhs, object) }
                return values.contains { $0 == .null ? id == nil : id.map(FormatValue.objectID) == $0 }
            }
            if case .objects(let ids) = left {
                guard values.allSatisfy({ $0 == .null || $0.classRank == 4 }) else { throw relationshipAsValue(lhs, object) }
                return quantify(quantifier, .many(ids.map { .objectID($0) })) { values.contains($0) }
            }
            if left.holdsObjectID || values.contains(where: { $0.classRank == 4 }) { throw objectComparedWithValue(lhs, object) }
            return quantify(quantifier, left) { value in values.contains { FormatSemantics.compare(value, .equal, $0) } }
        case .between(let quantifier, let lhs, let low, let high):
            let left = try reach(lhs, from: object)
            if left.isRelationship { throw relationshipAsValue(lhs, object) }
            if left.holdsObjectID || low.classRank == 4 || high.classRank == 4 { throw objectComparedWithValue(lhs, object) }
            return quantify(quantifier, left) {
                FormatSemantics.compare($0, .greaterOrEqual, low) && FormatSemantics.compare($0, .lessOrEqual, high)
            }
        }
    }

    /// `ANY`/`ALL`/`NONE` over the values reached through a to-many
    /// relationship; on a single value, `ANY` and `ALL` test it and `NONE`
    /// negates the test.
    private static func quantify(_ quantifier: FormatQuantifier, _ reached: Reached, _ test: (FormatValue) -> Bool) -> Bool {
        switch (reached, quantifier) {
        case (.single(let value), .none): !test(value)
        case (.single(let value), _): test(value)
        case (.many(let values), .any): values.contains(where: test)
        case (.many(let values), .all): values.allSatisfy(test)
        case (.many(let values), .none): !values.contains(where: test)
        case (.object, _), (.objects, _): false
        }
    }

    /// `relationship == nil`, `relationship == %@` (an object) and their
    /// `!=`: the only comparisons of a to-one relationship.
    private static func relationshipTest(_ id: ManagedObjectID?, _ op: FormatComparison, _ other: Reached, _ operand: FormatOperand,
                                         _ object: ManagedObject) throws(PredicateFormatError) -> Bool {
        guard case .single(let value) = other, op == .equal || op == .notEqual else { throw relationshipAsValue(operand, object) }
        let equal: Bool
        switch value {
        case .null: equal = id == nil
        case .objectID(let other): equal = id == other
        default: throw relationshipAsValue(operand, object)
        }
        return equal == (op == .equal)
    }

    private static func objectComparedWithValue(_ operand: FormatOperand, _ object: ManagedObject) -> PredicateFormatError {
        .unsupportedKeyPath(entity: object._entity?.name ?? "\(type(of: object))", key: (operand.keyPath ?? []).joined(separator: "."),
                            reason: "is compared with an object; only to-one relationships can be")
    }

    private static func relationshipAsValue(_ operand: FormatOperand, _ object: ManagedObject) -> PredicateFormatError {
        .unsupportedKeyPath(entity: object._entity?.name ?? "\(type(of: object))", key: (operand.keyPath ?? []).joined(separator: "."),
                            reason: "is a relationship, which can only be compared with nil or an object")
    }

    private static func toManyOnTheRight(_ operand: FormatOperand, _ object: ManagedObject) -> PredicateFormatError {
        .unsupportedKeyPath(entity: object._entity?.name ?? "\(type(of: object))", key: (operand.keyPath ?? []).joined(separator: "."),
                            reason: "crosses a to-many relationship, which is supported on the left side of a comparison only")
    }

    static func reach(_ operand: FormatOperand, from object: ManagedObject) throws(PredicateFormatError) -> Reached {
        switch operand {
        case .value(let value): return .single(value)
        case .key(let path) where path.isEmpty: return .object(object.objectID) // SELF
        case .count(let path) where path.isEmpty: throw selfCount(object)
        case .key(let path): return try walk(path[...], from: object, count: false, fullPath: path)
        case .count(let path): return try walk(path[...], from: object, count: true, fullPath: path)
        case .subqueryCount(let path, let predicate): return .single(.integer(Int64(try subqueryCount(path[...], predicate, from: object, fullPath: path))))
        }
    }

    private static func selfCount(_ object: ManagedObject) -> PredicateFormatError {
        .unsupportedKeyPath(entity: object._entity?.name ?? "\(type(of: object))", key: "SELF", reason: "uses @count on an object")
    }

    /// How many destinations of the to-many relationship at the end of
    /// `path` (through to-one relationships before it) match `predicate`.
    private static func subqueryCount(_ path: ArraySlice<String>, _ predicate: FormatNode, from object: ManagedObject,
                                      fullPath: [String]) throws(PredicateFormatError) -> Int {
        guard let entity = object._entity else {
            fatalError("Coherence: a format predicate was evaluated on a \(type(of: object)) that belongs to no context")
        }
        guard let name = path.first, let index = entity.indexByName[name] else { throw .unknownKey(entity: entity.name, key: path.first ?? "") }
        guard let relationship = entity.relationship(at: index), relationship.isToMany || path.count > 1 else {
            throw .unsupportedKeyPath(entity: entity.name, key: fullPath.joined(separator: "."),
                                      reason: "is not a to-many relationship, which SUBQUERY's collection must be")
        }
        let value = object._readProperty(at: index, entity: entity)
        if relationship.isToMany {
            guard path.count == 1 else {
                throw .unsupportedKeyPath(entity: entity.name, key: fullPath.joined(separator: "."),
                                          reason: "continues after a to-many relationship in SUBQUERY's collection")
            }
            var matching = 0
            for destination in ManagedObject._destinations(in: value) where try evaluate(predicate, on: destination) { matching += 1 }
            return matching
        }
        guard let destination = value as? ManagedObject else { return 0 }
        return try subqueryCount(path.dropFirst(), predicate, from: destination, fullPath: fullPath)
    }

    /// Follows `path` from `object` by name, as the SQL translation does: a
    /// missing to-one destination gives NULL (0 for `@count`).
    private static func walk(_ path: ArraySlice<String>, from object: ManagedObject, count: Bool,
                             fullPath: [String]) throws(PredicateFormatError) -> Reached {
        guard let entity = object._entity else {
            fatalError("Coherence: a format predicate was evaluated on a \(type(of: object)) that belongs to no context")
        }
        guard let name = path.first, let index = entity.indexByName[name] else {
            throw .unknownKey(entity: entity.name, key: path.first ?? "")
        }
        let rest = path.dropFirst()
        let key = fullPath.joined(separator: ".")
        if let relationship = entity.relationship(at: index) {
            let value = object._readProperty(at: index, entity: entity)
            if relationship.isToMany {
                let destinations = ManagedObject._destinations(in: value)
                if rest.isEmpty {
                    guard count else { return .objects(destinations.map(\.objectID)) }
                    return .single(.integer(Int64(destinations.count)))
                }
                var values: [FormatValue] = []
                for destination in destinations {
                    guard case .single(let value) = try walk(rest, from: destination, count: count, fullPath: fullPath) else {
                        throw .unsupportedKeyPath(entity: entity.name, key: key, reason: "crosses more than one relationship after a to-many one")
                    }
                    values.append(value)
                }
                return .many(values)
            }
            let destination = value as? ManagedObject
            if rest.isEmpty {
                if count { throw .unsupportedKeyPath(entity: entity.name, key: key, reason: "uses @count on a to-one relationship") }
                return .object(destination?.objectID)
            }
            guard let destination else { return .single(count ? .integer(0) : .null) }
            return try walk(rest, from: destination, count: count, fullPath: fullPath)
        }
        guard rest.isEmpty, !count else {
            throw .unsupportedKeyPath(entity: entity.name, key: key, reason: count ? "uses @count on an attribute" : "continues after the attribute \(name)")
        }
        let attribute = entity.attributes[index]
        let swiftValue = object._readProperty(at: index, entity: entity)
        let stored = (try? attribute.access.storeValue(forSwiftValue: swiftValue)) ?? nil
        return .single(FormatValue(stored ?? .null))
    }
}

extension FormatEvaluator.Reached {
    /// Whether this is a relationship itself rather than a value.
    var isRelationship: Bool {
        switch self {
        case .object, .objects: true
        case .single, .many: false
        }
    }

    /// Whether this is an object constant (`%@` with a managed object), not a key path.
    var holdsObjectID: Bool {
        if case .single(.objectID) = self { return true }
        return false
    }
}
