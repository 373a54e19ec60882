import Foundation

extension ManagedObjectContext {
    /// Saves every insertion, update and deletion to the store, atomically.
    ///
    /// In order: processes pending changes (posting didChangeObjects), posts
    /// ``willSaveObjectsNotification``, calls ``ManagedObject/willSave()`` on
    /// each changed object, validates, writes to the store in one transaction,
    /// gives inserted objects their permanent IDs, calls
    /// ``ManagedObject/didSave()``, turns deleted objects into invalidated
    /// faults, and posts ``didSaveObjectsNotification`` and
    /// ``didSaveObjectIDsNotification``. With nothing to save it does nothing.
    ///
    /// - Throws: ``ValidationError`` (a required attribute without a value, a
    ///   `.deny` rule violated, a relationship to an object of another
    ///   context) or ``StoreError``. Then nothing was written, no didSave is
    ///   posted, and the context keeps its changes pending.
    ///
    /// **Complexity:** O(changed objects × properties).
    public func save() throws {
        try saveChanges()
    }

    /// ``save()``, returning what it saved (`nil` when there was nothing).
    @discardableResult
    func saveChanges() throws -> ContextDidSave? {
        _assertOnQueue()
        processPendingChanges()
        if isScratch { propagateDeletionsForScratch() }
        guard hasChanges else {
            discardDeletedInsertions()
            return nil
        }
        post(name: ManagedObjectContext.willSaveObjectsNotification, userInfo: nil)
        processPendingChanges()
        for object in tracker.inserted.union(tracker.deleted).union(updatedObjects) {
            object.willSave()
        }
        processPendingChanges()
        try validateForSave()

        // Optimistic locking: a row saved elsewhere since it was read is a
        // conflict, resolved by the merge policy and tried again.
        var resolution = ConflictResolution()
        var inserted: Set<ManagedObject>
        var updated: Set<ManagedObject>
        let deleted = tracker.deleted
        let result: StoreSaveResult
        while true {
            inserted = tracker.inserted.union(resolution.reinserted)
            updated = updatedObjects.subtracting(resolution.reinserted).subtracting(resolution.lost)
            var request = StoreSaveRequest()
            for object in inserted {
                request.inserted.append(.init(objectID: object.objectID, entity: object._entity!, values: try storeValues(of: object)))
            }
            for object in updated {
                request.updated.append(.init(objectID: object.objectID, entity: object._entity!, values: try storeValues(of: object),
                                             baseVersion: object._snapshot?.version ?? 0))
            }
            for object in deleted {
                request.deleted.append(.init(objectID: object.objectID, entity: object._entity!))
            }
            do {
                result = try coordinator.save(request)
                break
            } catch let error as StoreConflictError {
                try resolve(error, policy: mergePolicy, resolution: &resolution)
            }
        }

        // Committed: from here on nothing may fail.
        adoptPermanentIDs(result.permanentIDs, for: Array(inserted))
        for object in inserted.union(updated) {
            object._snapshot = result.snapshots[object.objectID] ?? object._snapshot
            object._lifecycle = []
        }
        for object in resolution.lost {
            tracker.changed.remove(object)
            tracker.pendingTouched.remove(object)
        }
        for object in tracker.changed {
            object._tracking?.changedProperties = []
            object._tracking?.foreignTargets = [:]
        }
        let discarded = tracker.discarded
        tracker.inserted = []
        tracker.deleted = []
        tracker.discarded = []
        tracker.changed = []

        let didSave = ContextDidSave(
            context: self, inserted: inserted, updated: updated, deleted: deleted,
            objectIDs: ObjectIDChanges(inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                                       deleted: Set(deleted.map(\.objectID))))
        for object in inserted.union(updated).union(deleted) {
            object.didSave()
        }
        for object in deleted.union(discarded) {
            invalidate(object, notify: true)
        }
        if !resolution.lost.isEmpty {
            // Deleted elsewhere, and the policy let the deletion stand.
            tracker.pendingDeleted.formUnion(resolution.lost)
            processPendingChanges()
            for object in resolution.lost { invalidate(object, notify: true) }
        }
        post(name: ManagedObjectContext.didSaveObjectsNotification, userInfo: didSave.userInfo)
        post(name: ManagedObjectContext.didSaveObjectIDsNotification, userInfo: didSave.objectIDsUserInfo)
        return didSave
    }

    /// Gives the objects permanent IDs now, before they are saved; their
    /// later save keeps these IDs. Objects that already have one are skipped.
    /// - Throws: ``StoreError`` when no store is loaded.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        _assertOnQueue()
        let temporary = objects.filter { $0._contextRef === self && $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        let ids = try coordinator.permanentIDs(for: temporary.map(\.objectID), entities: temporary.map { $0._entity! })
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for (object, id) in zip(temporary, ids) { mapping[object.objectID] = id }
        adoptPermanentIDs(mapping, for: temporary)
    }

    /// Re-keys objects under their permanent IDs and rewrites every
    /// relationship that refers to their temporary IDs (only their own and
    /// their destinations' can, since inverses are always kept).
    private func adoptPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID], for objects: [ManagedObject]) {
        guard !mapping.isEmpty else { return }
        var affected = Set<ManagedObject>()
        for object in objects {
            guard let entity = object._entity else { continue }
            affected.insert(object)
            for relationship in entity.relationships {
                for id in relationship.access.storage(of: object).loadedIDs ?? [] {
                    if let related = registered[id] { affected.insert(related) }
                }
            }
        }
        for object in objects {
            guard let permanent = mapping[object.objectID] else { continue }
            registered[object.objectID] = nil
            object._id = permanent
            registered[permanent] = object
        }
        for object in affected where !object.isFault {
            guard let entity = object._entity else { continue }
            for relationship in entity.relationships {
                guard let ids = relationship.access.storage(of: object).loadedIDs, ids.contains(where: { mapping[$0] != nil }) else { continue }
                let remapped = Set(ids.map { mapping[$0] ?? $0 })
                relationship.access.setStorage(RelationshipStorage(ids: remapped, isToMany: relationship.isToMany), of: object)
            }
        }
    }

    /// Forgets objects that were inserted and deleted again before a save.
    private func discardDeletedInsertions() {
        for object in tracker.discarded { invalidate(object, notify: true) }
        tracker.discarded = []
    }

    private func storeValues(of object: ManagedObject) throws -> [StoreValue] {
        let entity = object._entity!
        do {
            return try object._storeValues(entity: entity)
        } catch {
            let name = entity.attributes.first { (try? $0.access.storeValue(of: object)) == nil && $0.defaultValue != nil }?.name ?? "?"
            throw ValidationError.invalidValue(entity: entity.name, property: name, reason: "\(error)")
        }
    }

    /// Checks required attributes, deny rules and cross-context relationships.
    private func validateForSave() throws {
        var errors: [ValidationError] = []
        for object in tracker.inserted.union(tracker.changed) where !object.isDeleted && object._contextRef === self {
            guard let entity = object._entity else { continue }
            for attribute in entity.attributes {
                do {
                    if try attribute.access.storeValue(of: object) == nil {
                        errors.append(.missingValue(entity: entity.name, property: attribute.name))
                    }
                } catch {
                    errors.append(.invalidValue(entity: entity.name, property: attribute.name, reason: "\(error)"))
                }
            }
            for (index, destination) in (object._tracking?.foreignTargets ?? [:]).sorted(by: { $0.key < $1.key }) {
                errors.append(.crossContextRelationship(entity: entity.name, property: entity.propertyName(at: index),
                                                        destination: destination))
            }
        }
        for object in tracker.deleted {
            guard let entity = object._entity else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                let remaining = relatedIDs(of: object, relationship).filter { registered[$0]?.isDeleted != true }
                if !remaining.isEmpty {
                    errors.append(.deleteDenied(entity: entity.name, property: relationship.name))
                }
            }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 { throw ValidationError.multiple(errors) }
    }
}
