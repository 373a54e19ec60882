import Foundation

// Uniqueness constraints: resolving a save's constraint conflicts by the
// merge policy (see ManagedObject.uniquenessConstraints).
extension ManagedObjectContext {
    /// Applies the merge policy to the constraint conflicts a store reported,
    /// or throws ``MergeError`` (policy `.error`; a conflict of an object that
    /// is not inserted; the very conflicts of the last round again). New
    /// conflicts (other writers saving the same values meanwhile) are
    /// resolved however many rounds they take.
    ///
    /// For each conflict the survivor is the stored object (registered as a
    /// fault if needed) or, with none, the first inserted object; every other
    /// inserted object is merged into it and deleted.
    func resolve(_ error: StoreConstraintError, policy: MergePolicy, resolution: inout ConflictResolution) throws {
        let seen = error.conflicts.map { conflict in
            "\(conflict.entity.name) \(conflict.constraint) \(conflict.values) \(conflict.objectIDs) \(conflict.stored.map { "\($0.objectID) \($0.version)" } ?? "")"
        }.sorted()
        let repeated = seen == resolution.lastConstraintConflicts
        resolution.lastConstraintConflicts = seen
        let survivors = error.conflicts.map(survivor)
        guard policy != .error, !repeated, !survivors.contains(where: { $0 == nil }) else {
            throw MergeError(conflicts: [], constraintConflicts: error.conflicts.map(constraintConflict))
        }
        let objectWins = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        for conflict in error.conflicts {
            // Chosen again among the objects an earlier conflict did not
            // merge away (two constraints may involve one object).
            guard let survivor = survivor(of: conflict) else { continue }
            // Merging reads the survivor's relationships: load it first.
            if survivor.isFault { _fulfillFault(survivor) }
            // Insertion order: temporary IDs are handed out in sequence.
            let duplicates = conflict.objectIDs.compactMap { registered[$0] }
                .filter { $0 !== survivor && $0.isInserted && !$0.isDeleted }
                .sorted { $0.objectID.key < $1.objectID.key }
            for duplicate in duplicates {
                merge(duplicate, into: survivor, objectWins: objectWins, shared: conflict.entity)
                delete(duplicate)
            }
        }
        // Delete rules now; the deletions are announced after the save, so
        // that a save that still fails (and restores its checkpoint) has told
        // observers nothing.
        applyDeleteRules()
    }

    /// The object the others of `conflict` merge into: the stored object
    /// (registered as a fault if needed); with none, the one saved object
    /// among them whose committed values already were the shared ones (an
    /// object changed elsewhere in the save, not moved onto the values), or
    /// the first inserted. `nil` when the conflict cannot be resolved: a
    /// saved object was changed to equal another.
    private func survivor(of conflict: StoreConstraintError.Conflict) -> ManagedObject? {
        let members = conflict.objectIDs.compactMap { registered[$0] }.filter { !$0.isDeleted }
        let saved = members.filter { !$0.isInserted }
        if let stored = conflict.stored {
            return saved.isEmpty ? object(with: stored.objectID) : nil
        }
        guard let indexes = conflict.entity.uniquenessConstraints.firstIndex(of: conflict.constraint)
            .map({ conflict.entity.constraintIndexes[$0] }) else { return nil }
        switch saved.count {
        case 0:
            return members.min { $0.objectID.key < $1.objectID.key }
        case 1:
            let committed = saved[0]._snapshot.map { snapshot in indexes.map { ExactValue(snapshot.values[$0]) } }
            return committed == conflict.values.map(ExactValue.init) ? saved[0] : nil
        default:
            return nil
        }
    }

    /// Moves `duplicate`'s values into `survivor`: attributes when the
    /// object wins, to-one relationships when the object wins or the
    /// survivor has none, to-many destinations always (joined). Objects of
    /// two entities of one hierarchy (a constraint of `shared`, their common
    /// parent) merge the properties of `shared` only.
    private func merge(_ duplicate: ManagedObject, into survivor: ManagedObject, objectWins: Bool, shared: EntityDescription) {
        guard let entity = duplicate._entity, let survivorEntity = survivor._entity else { return }
        let common = entity === survivorEntity ? entity : shared
        if objectWins {
            // Attributes of a parent entity keep their index in sub-entities.
            for attribute in common.attributes where !attribute.isDerived {
                guard let value = duplicate._currentValue(at: attribute.index),
                      survivor._currentValue(at: attribute.index) != value else { continue }
                survivor._prepareForWriteAt(index: attribute.index)
                try? attribute.setStoreValue(value, of: survivor)
            }
        }
        for declared in common.relationships {
            guard let relationship = entity === common ? declared : entity.relationship(named: declared.name),
                  let survivorRelationship = survivorEntity === entity ? relationship : survivorEntity.relationship(named: declared.name)
            else { continue }
            let movedList = relatedIDList(of: duplicate, relationship)
            guard !movedList.isEmpty else { continue }
            let moved = Set(movedList)
            // Emptied first, so that the duplicate's delete rules find nothing.
            _setRelationship(of: duplicate, index: relationship.index, to: [])
            if relationship.isToMany {
                // The survivor's destinations, then the duplicate's, each in
                // their order (an ordered relationship keeps it).
                let joined = RelationshipDescription.order(relatedIDList(of: survivor, survivorRelationship), then: movedList)
                _setRelationship(of: survivor, index: survivorRelationship.index, to: joined.map { object(with: $0) })
            } else if objectWins || relatedIDs(of: survivor, survivorRelationship).isEmpty {
                _setRelationship(of: survivor, index: survivorRelationship.index, to: moved.map { object(with: $0) })
            }
        }
    }

    private func constraintConflict(_ conflict: StoreConstraintError.Conflict) -> ConstraintConflict {
        let entity = conflict.entity
        var values: [String: StoreValue] = [:]
        for (name, value) in zip(conflict.constraint, conflict.values) { values[name] = value }
        let stored = conflict.stored.map { snapshot in
            // Named by the row's own entity (a sub-entity's row has more properties).
            let rowEntity = coordinator.managedObjectModel.entity(for: snapshot.objectID.objectClass) ?? entity
            var result: [String: StoreValue] = [:]
            for index in 0..<rowEntity.propertyCount where snapshot.values[index] != .toManyFault {
                result[rowEntity.propertyName(at: index)] = snapshot.values[index]
            }
            return result
        }
        return ConstraintConflict(entityName: entity.name, constraint: conflict.constraint, constraintValues: values,
                                  databaseObjectID: conflict.stored?.objectID, databaseSnapshot: stored,
                                  conflictingObjectIDs: conflict.objectIDs)
    }
}
