import Foundation

// A nested context's save: the child's changes become its parent's unsaved
// changes, as Core Data's child contexts do. The child sends what it
// changed (its changed properties, with the snapshot it read); the parent
// applies exactly that over its own state and brings its derived values up
// to date from the children it has.
extension ManagedObjectContext {
    /// A nested context's save: the changes become the parent's unsaved
    /// changes; the parent announces them with its own didChangeObjects.
    func pushToParent(_ request: StoreSaveRequest, parent: ManagedObjectContext) throws -> StoreSaveResult {
        try parent.performAndWait { () throws in try parent.acceptChildSave(request) }
        var result = StoreSaveResult()
        for insert in request.inserted {
            result.snapshots[insert.objectID] = Snapshot(objectID: insert.objectID, values: insert.values, version: 0)
        }
        for update in request.updated {
            result.snapshots[update.objectID] = Snapshot(objectID: update.objectID, values: update.values, version: update.baseVersion)
        }
        return result
    }

    /// Applies a child's save to this context's objects, all or nothing.
    func acceptChildSave(_ request: StoreSaveRequest) throws {
        let request = translated(request)
        applyDerivations() // this context's own changes first
        // Before the check, which would read the rows of the others now.
        startFromWhatTheChildRead(request.updated)
        // Check first: every updated or deleted object must exist here.
        for id in request.updated.map(\.objectID) + request.deleted.map(\.objectID) {
            if let object = registered[id] {
                if object.isDeleted { throw ContextError.objectDeleted(id) }
                if object.isFault, !faultIsInStore(object) { throw ContextError.objectNotFound(id) }
            } else if try source.snapshot(for: id) == nil {
                throw ContextError.objectNotFound(id)
            }
        }
        for insert in request.inserted where registered[insert.objectID] == nil {
            let object = insert.entity.managedObjectClass.init()
            object._id = insert.objectID
            object._setInitialValues(entity: insert.entity)
            register(inserted: object, entity: insert.entity)
        }
        // What the child changed, and only that: its copies of the other
        // properties may be older than this context's (a merge the child
        // has not had yet), as Core Data pushes only changed values. A
        // to-many relationship whose inverse is to-one changes through the
        // inverse objects, which the save carries too; the child's whole
        // set would also drop members it has not heard of. Derived values
        // are brought up to date here, from the children this context has.
        let inserted = request.inserted.map { ($0.objectID, $0.entity, $0.values, nil as Set<String>?) }
        let updated = request.updated.map { ($0.objectID, $0.entity, $0.values, Set($0.updatedProperties) as Set<String>?) }
        // The child's order of ordered relationships, applied once their
        // members arrived through the inverse objects.
        var orders: [(ManagedObject, RelationshipDescription, [ManagedObjectID])] = []
        for change in inserted + updated {
            let object = self.object(with: change.0)
            if object.isFault { _fulfillFault(object) }
            for index in 0..<change.1.propertyCount {
                let value = change.2[index]
                if let changed = change.3, !changed.contains(change.1.propertyName(at: index)) { continue }
                if let relationship = change.1.relationship(at: index), relationship.isToMany, !relationship.inverseIsToMany {
                    if case .orderedObjectIDs(let order) = value { orders.append((object, relationship, order)) }
                    continue
                }
                if index < change.1.attributes.count, change.1.attributes[index].isDerived { continue }
                guard value != .toManyFault, value != object._currentValue(at: index) else { continue }
                if change.1.relationship(at: index) != nil {
                    _setRelationship(of: object, index: index, to: value.referencedIDs.map { self.object(with: $0) })
                } else {
                    _recordWrite(of: object, property: index)
                    try change.1.attributes[index].setStoreValue(value, of: object)
                }
            }
        }
        for (object, relationship, order) in orders {
            reorder(relationship, of: object, like: order)
        }
        for delete in request.deleted {
            let object = self.object(with: delete.objectID)
            if object.isFault { _fulfillFault(object) }
            markDeleted(object)
        }
        // Derived values follow from the children as this context has them:
        // the child's own may come from older copies of them.
        propagateDeletions()
        processPendingChanges()
    }

    /// Objects the child updated that this context holds no version of
    /// (not registered, or a fault without a snapshot) start from the
    /// child's snapshot: the values and the version the child read, as
    /// Core Data's parent takes the row from its coordinator's row cache,
    /// which holds what the child fetched. Reading the row now could give a
    /// newer version, and the save would then overwrite another writer's
    /// change with the child's instead of meeting it as a conflict for the
    /// merge policy (the concurrency campaign lost updates that way). An
    /// object whose version this context knows, merged or read, keeps it,
    /// as in Core Data.
    private func startFromWhatTheChildRead(_ updates: [StoreSaveRequest.Update]) {
        for update in updates {
            guard let base = update.baseSnapshot, base.version > 0 else { continue }
            if let held = registered[update.objectID] {
                guard held.isFault, held._snapshot == nil else { continue }
                held._snapshot = base
            } else {
                _ = registerFault(update.objectID, snapshot: base, entity: update.entity)
            }
        }
    }

    /// A child's save request with the temporary IDs it has not learned yet
    /// replaced by their permanent ones.
    func translated(_ request: StoreSaveRequest) -> StoreSaveRequest {
        guard !tracker.unlearnedPermanentIDs.isEmpty else { return request }
        let mapping = tracker.unlearnedPermanentIDs.reduce(into: [ManagedObjectID: ManagedObjectID]()) { $0.merge($1.mapping) { a, _ in a } }
        var result = StoreSaveRequest()
        result.inserted = request.inserted.map { .init(objectID: mapping[$0.objectID] ?? $0.objectID, entity: $0.entity, values: $0.values.map { $0.remapped(mapping) }) }
        result.updated = request.updated.map {
            .init(objectID: mapping[$0.objectID] ?? $0.objectID, entity: $0.entity, values: $0.values.map { $0.remapped(mapping) },
                  baseVersion: $0.baseVersion, updatedProperties: $0.updatedProperties,
                  baseSnapshot: $0.baseSnapshot.map { base in
                      Snapshot(objectID: mapping[base.objectID] ?? base.objectID, values: base.values.map { $0.remapped(mapping) },
                               version: base.version)
                  })
        }
        result.deleted = request.deleted.map { .init(objectID: mapping[$0.objectID] ?? $0.objectID, entity: $0.entity, baseVersion: $0.baseVersion) }
        return result
    }
}
