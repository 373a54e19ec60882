/// Thrown by a store's `save` when it would break a uniqueness constraint
/// (``ManagedObject/uniquenessConstraints``); the store changed nothing.
public struct StoreConstraintError: Error, Sendable {
    /// Saved objects that share the values of one constraint, with each
    /// other or with a row already stored.
    public struct Conflict: Sendable {
        /// The entity whose constraint is broken.
        public let entity: EntityDescription
        /// The constrained attributes' names.
        public let constraint: [String]
        /// Their shared values, in the order of `constraint`.
        public let values: [StoreValue]
        /// The objects of the save (IDs as the request gave them) that have
        /// these values, in the order of the request.
        public let objectIDs: [ManagedObjectID]
        /// The stored row that has them, if any.
        public let stored: Snapshot?

        /// A conflict of `objectIDs` (and `stored`, if any) sharing
        /// `values` of `constraint`.
        public init(entity: EntityDescription, constraint: [String], values: [StoreValue], objectIDs: [ManagedObjectID], stored: Snapshot?) {
            self.entity = entity
            self.constraint = constraint
            self.values = values
            self.objectIDs = objectIDs
            self.stored = stored
        }
    }

    /// Every broken constraint of the save.
    public let conflicts: [Conflict]

    /// An error listing `conflicts`.
    public init(conflicts: [Conflict]) {
        self.conflicts = conflicts
    }
}

/// The uniqueness check every store runs in `save`, before writing: the
/// inserted and updated rows are grouped by each constraint's values, and
/// each group is looked up among the stored rows (those the save updates or
/// deletes excepted, whose new values are in the groups). `nil` values never
/// conflict, as in SQL.
///
/// **Complexity:** O(1) for a save without constrained entities; otherwise
/// O(constrained rows × constraints) lookups in the store.
enum UniquenessCheck {
    /// The conflicts of `request`; `storedRows` gives the stored rows of an
    /// entity whose attributes at the indexes have the values.
    static func conflicts(
        in request: StoreSaveRequest,
        storedRows: (EntityDescription, [Int], [StoreValue]) throws -> [Snapshot]
    ) throws -> [StoreConstraintError.Conflict] {
        var written: [(id: ManagedObjectID, entity: EntityDescription, values: [StoreValue])] = []
        for insert in request.inserted where !insert.entity.constraintIndexes.isEmpty {
            written.append((insert.objectID, insert.entity, insert.values))
        }
        for update in request.updated where !update.entity.constraintIndexes.isEmpty {
            written.append((update.objectID, update.entity, update.values))
        }
        guard !written.isEmpty else { return [] }
        let rewritten = Set(request.updated.map(\.objectID) + request.deleted.map(\.objectID))
        var conflicts: [StoreConstraintError.Conflict] = []
        // A constraint holds over the entity that declares it and its
        // sub-entities, which inherit it (at the same attribute indexes).
        var entities: [EntityDescription] = []
        for row in written {
            for constraint in row.entity.uniquenessConstraints {
                let owner = owner(of: constraint, in: row.entity)
                if !entities.contains(where: { $0 === owner }) { entities.append(owner) }
            }
        }
        for entity in entities {
            for (position, indexes) in entity.constraintIndexes.enumerated() {
                let constraint = entity.uniquenessConstraints[position]
                guard owner(of: constraint, in: entity) === entity else { continue }
                let rows = written.filter { $0.entity.isKind(of: entity) && $0.entity.uniquenessConstraints.contains(constraint) }
                var groups: [[ExactValue]: [ManagedObjectID]] = [:]
                var order: [[StoreValue]] = []
                for row in rows {
                    let values = indexes.map { row.values[$0] }
                    guard !values.contains(.null) else { continue }
                    let key = values.map(ExactValue.init)
                    if groups[key] == nil { order.append(values) }
                    groups[key, default: []].append(row.id)
                }
                for values in order {
                    let ids = groups[values.map(ExactValue.init)]!
                    let stored = try storedRows(entity, indexes, values).first { !rewritten.contains($0.objectID) }
                    guard ids.count > 1 || stored != nil else { continue }
                    conflicts.append(.init(entity: entity, constraint: entity.uniquenessConstraints[position], values: values,
                                           objectIDs: ids, stored: stored))
                }
            }
        }
        return conflicts
    }

    /// The entity whose constraint `constraint` of `entity` is: the topmost
    /// ancestor that declares it too (a class inherits `uniquenessConstraints`).
    static func owner(of constraint: [String], in entity: EntityDescription) -> EntityDescription {
        var owner = entity
        while let parent = owner.superentity, parent.uniquenessConstraints.contains(constraint) { owner = parent }
        return owner
    }
}
