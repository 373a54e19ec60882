import Foundation

/// What resolving conflicts decided for the retry of a save.
struct ConflictResolution {
    /// Objects deleted from the store that the save writes back.
    var reinserted: Set<ManagedObject> = []
    /// Objects deleted from the store whose deletion stands.
    var lost: Set<ManagedObject> = []
    var attempts = 0
}

extension ManagedObjectContext {
    /// Applies the merge policy to a save's conflicts, or throws
    /// ``MergeError`` (policy `.error`, or conflicts that keep coming back).
    func resolve(_ error: StoreConflictError, policy: MergePolicy, resolution: inout ConflictResolution) throws {
        resolution.attempts += 1
        let conflicts = error.conflicts.compactMap { conflict in registered[conflict.objectID].map { (conflict, $0) } }
        guard policy != .error, resolution.attempts <= 5 else {
            throw MergeError(conflicts: conflicts.map { mergeConflict($0.0, object: $0.1) })
        }
        for (conflict, object) in conflicts {
            guard let entity = object._entity else { continue }
            guard let current = conflict.current else {
                switch policy {
                case .overwrite, .mergeByPropertyObjectTrump: resolution.reinserted.insert(object)
                default: resolution.lost.insert(object)
                }
                continue
            }
            let base = object._snapshot
            for index in 0..<entity.propertyCount {
                let mine = object._currentStoreValue(at: index, entity: entity)
                let read = base?.values[index]
                var theirs = current.values[index]
                if theirs == .toManyFault, let relationship = entity.relationship(at: index) {
                    // The store derives to-many values from other rows: read them now.
                    theirs = .objectIDs((try? source.relatedObjectIDs(of: object.objectID, relationship: relationship)) ?? [])
                }
                let changedHere = mine != read
                let changedThere = theirs != read && read != .toManyFault
                let takeTheirs: Bool = switch policy {
                case .mergeByPropertyStoreTrump: changedThere
                case .mergeByPropertyObjectTrump: !changedHere && changedThere
                case .rollback: true
                case .overwrite, .error: false
                }
                if takeTheirs { setCommittedValue(theirs, at: index, of: object, entity: entity) }
            }
            object._snapshot = current
        }
    }

    /// Sets one property to a store value, with change tracking (so the
    /// change is announced) and inverse upkeep for relationships.
    private func setCommittedValue(_ value: StoreValue, at index: Int, of object: ManagedObject, entity: EntityDescription) {
        if entity.relationship(at: index) != nil {
            _setRelationship(of: object, index: index, to: value.referencedIDs.map { self.object(with: $0) })
        } else {
            _recordWrite(of: object, property: index)
            try? entity.attributes[index].access.setStoreValue(value, of: object)
        }
    }

    private func mergeConflict(_ conflict: StoreConflictError.Conflict, object: ManagedObject) -> MergeConflict {
        let entity = object._entity!
        func dictionary(_ values: [StoreValue]) -> [String: Any] {
            var result: [String: Any] = [:]
            for index in 0..<entity.propertyCount where values[index] != .toManyFault {
                result[entity.propertyName(at: index)] = object._swiftValue(values[index], at: index, entity: entity)
            }
            return result
        }
        let current = (0..<entity.propertyCount).map { object._currentStoreValue(at: $0, entity: entity) ?? .null }
        return MergeConflict(
            sourceObject: object, objectSnapshot: dictionary(current),
            cachedSnapshot: object._snapshot.map { dictionary($0.values) },
            persistedSnapshot: conflict.current.map { dictionary($0.values) },
            newVersionNumber: conflict.current?.version ?? 0, oldVersionNumber: conflict.expectedVersion)
    }
}
