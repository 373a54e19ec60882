import Foundation

extension ManagedObjectContext {
    /// Saves every insertion, update and deletion to the store, atomically.
    ///
    /// In order: processes pending changes (posting didChangeObjects), posts
    /// ``willSaveObjectsNotification``, calls ``ManagedObject/willSave()`` on
    /// each changed object, validates (the context's own checks, then each
    /// object's ``ManagedObject/validateForInsert()``,
    /// ``ManagedObject/validateForUpdate()`` or
    /// ``ManagedObject/validateForDelete()``), writes to the store in one transaction,
    /// gives inserted objects their permanent IDs, calls
    /// ``ManagedObject/didSave()``, turns deleted objects into invalidated
    /// faults, and posts ``didSaveObjectsNotification`` and
    /// ``didSaveObjectIDsNotification``. With nothing to save, it writes
    /// nothing but still posts willSave (whose observers may add changes,
    /// which are then saved) and, with empty sets, didSave and didSaveObjectIDs,
    /// as Core Data does: code waiting for the didSave of a save is called.
    ///
    /// - Throws: ``ValidationError`` (a required attribute without a value, a
    ///   `.deny` rule violated, a relationship to an object of another
    ///   context; several as ``ValidationError/multiple(_:)``), the error an
    ///   object's validation method threw, as it was thrown (as in Core
    ///   Data; among several, as ``ValidationError/rejected(entity:property:error:)``),
    ///   or ``StoreError``. Then nothing was written, no didSave is
    ///   posted, and the context keeps its changes pending.
    ///
    /// **Complexity:** O(changed objects × properties).
    public func save() throws {
        enterCheckedOperation()
        defer { leaveCheckedOperation() }
        try saveChanges()
    }

    /// ``save()``, returning what it saved (empty when there was nothing).
    @discardableResult
    func saveChanges() throws -> DidSaveMessage {
        _assertOnQueue()
        // A merge's deletions are done, not to be written again (even when
        // this save runs inside the merge's own didChangeObjects).
        if !mergedDeletions.isEmpty { finishMergedDeletions() }
        processPendingChanges()
        if isScratch { applyDeleteRules() }
        post(name: ManagedObjectContext.willSaveObjectsNotification, userInfo: nil)
        processPendingChanges()
        // Inserted, deleted and updated objects are disjoint (their
        // lifecycle tells them apart): no union to build.
        for objects in [tracker.inserted, tracker.deleted, updatedObjects] {
            for object in objects { object.willSave() }
        }
        processPendingChanges()
        guard hasChanges else {
            discardDeletedInsertions()
            let nothing = DidSaveMessage(context: self, inserted: [], updated: [], deleted: [], objectIDs: ObjectIDChanges())
            post(name: ManagedObjectContext.didSaveObjectsNotification, userInfo: nothing.userInfo)
            post(name: ManagedObjectContext.didSaveObjectIDsNotification, userInfo: nothing.objectIDsUserInfo)
            return nothing
        }
        try validateForSave()

        // Optimistic locking: a row saved elsewhere since it was read is a
        // conflict, resolved by the merge policy and tried again, as many
        // times as other writers get in the way. A store that can
        // (PostgreSQL) asks for the resolution inside its transaction, with
        // the rows locked: that round is the last.
        var resolution = ConflictResolution()
        var checkpoint: SaveCheckpoint?
        var inserted: Set<ManagedObject> = []
        var updated: Set<ManagedObject> = []
        var deleted: Set<ManagedObject> = []
        var result: StoreSaveResult
        /// `inserted` in the order of the request's inserted rows.
        var insertedInOrder: [ManagedObject] = []
        // Only a store keeping history reads which properties changed.
        let recordsHistory = parent == nil && coordinator.persistentStores.contains {
            ($0 as? any PersistentHistoryStore)?.tracksPersistentHistory == true
        }
        /// The request of the context's changes as they are now.
        func makeRequest() -> StoreSaveRequest {
            deleted = tracker.deleted
            // An object written back by one round of resolution and deleted
            // by a later one (a delete rule) is only deleted, never both: the
            // SQL stores delete before they insert, and would bring it back.
            // (No shipped policy is known to do this; the guard is cheap.)
            inserted = tracker.inserted.union(resolution.reinserted.filter { !$0.isDeleted })
            updated = updatedObjects.subtracting(resolution.reinserted).subtracting(resolution.lost)
            var request = StoreSaveRequest()
            request.author = transactionAuthor
            request.contextName = name
            request.inserted.reserveCapacity(inserted.count)
            request.updated.reserveCapacity(updated.count)
            request.deleted.reserveCapacity(deleted.count)
            insertedInOrder = Array(inserted)
            for object in insertedInOrder {
                request.inserted.append(.init(objectID: object.objectID, entity: object._entity!, values: object._storeValues(entity: object._entity!)))
            }
            for object in updated {
                request.updated.append(.init(objectID: object.objectID, entity: object._entity!, values: object._storeValues(entity: object._entity!),
                                             baseVersion: object._snapshot?.version ?? 0,
                                             // A store writes an ordered relationship's positions when it changed.
                                             updatedProperties: recordsHistory || parent != nil || object._entity!.hasOrderedRelationships
                                                 ? object._changedPropertyNames(includingTransient: parent != nil) : [],
                                             baseSnapshot: parent != nil ? object._snapshot : nil))
            }
            for object in deleted {
                request.deleted.append(.init(objectID: object.objectID, entity: object._entity!,
                                             baseVersion: object._snapshot?.version ?? 0))
            }
            return request
        }
        /// One round of resolution: the merge policy applied to `error`,
        /// then what follows from the merged values. Throws when the policy
        /// gives up (``MergeError``) or the merged objects do not validate.
        func resolveRound(_ error: any Error) throws {
            // Resolving changes objects (merges values, or merges
            // duplicates into survivors and deletes them); if the save
            // still fails, undo that.
            if checkpoint == nil { checkpoint = SaveCheckpoint(self) }
            if let error = error as? StoreConflictError {
                try resolve(error, policy: mergePolicy, resolution: &resolution)
                // Resolved values mix the store's and ours: recount parents.
                for object in error.conflicts.compactMap({ registered[$0.objectID] }) { derivationStale(object) }
            } else if let error = error as? StoreConstraintError {
                try resolve(error, policy: mergePolicy, resolution: &resolution)
            }
            resyncDerivations()
            applyDerivations()
            try validateForSave()
        }
        // Under `.error` a conflict throws at once: nothing to resolve inside.
        let resolveInside: ((StoreConflictError) throws -> StoreSaveRequest)? = parent != nil || mergePolicy == .error ? nil : { error in
            try resolveRound(error)
            return makeRequest().withoutTransientValues()
        }
        while true {
            do {
                let request = makeRequest()
                result = try parent.map { try pushToParent(request, parent: $0) }
                    ?? coordinator.save(request.withoutTransientValues(), resolvingConflicts: resolveInside)
                break
            } catch let error where error is StoreConflictError || error is StoreConstraintError {
                do {
                    try resolveRound(error)
                } catch {
                    checkpoint?.restore(self)
                    throw error
                }
            } catch {
                checkpoint?.restore(self)
                throw error
            }
        }

        // Committed: from here on nothing may fail.
        let insertedSnapshots = result.insertedSnapshots.flatMap { $0.count == insertedInOrder.count ? $0 : nil }
        adoptPermanentIDs(result.permanentIDs, for: insertedInOrder, snapshots: insertedSnapshots)
        func adopt(_ snapshot: Snapshot?, by object: ManagedObject) {
            object._snapshot = snapshot ?? object._snapshot
            if let entity = object._entity, entity.hasTransientAttributes {
                object._snapshot = object._snapshot?.keepingTransientValues(of: object, entity: entity)
            }
            object._flags.settled()
        }
        if let insertedSnapshots {
            // The store's snapshots in the objects' order: no lookups.
            for (object, snapshot) in zip(insertedInOrder, insertedSnapshots) { adopt(snapshot, by: object) }
            for object in updated { adopt(result.snapshots[object.objectID], by: object) }
        } else {
            for object in inserted.union(updated) { adopt(result.snapshots[object.objectID], by: object) }
        }
        for object in resolution.lost {
            object._clearTracking()
        }
        for object in tracker.changed {
            object._removeAllChanged()
        }
        let discarded = tracker.discarded
        tracker.inserted = []
        tracker.deleted = []
        tracker.discarded = []
        tracker.clearChanged()

        let didSave = DidSaveMessage(
            context: self, inserted: inserted, updated: updated, deleted: deleted,
            objectIDs: ObjectIDChanges(inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                                       deleted: Set(deleted.map(\.objectID))),
            historyToken: result.historyToken)
        // Once per object: the three sets are disjoint (a reinserted object
        // that a later round deleted is only in `deleted`).
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        for object in deleted { object.didSave() }
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
        if !result.permanentIDs.isEmpty { tellChildren(result.permanentIDs) }
        return didSave
    }

    /// After a save to the store, nested contexts learn the permanent IDs of
    /// the objects they know by temporary ones (on their own queues).
    private func tellChildren(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        let children = children
        guard !children.isEmpty else { return }
        tracker.unlearnedPermanentIDs.append((mapping, children.count))
        for child in children {
            child.perform {
                child.learnPermanentIDs(mapping)
                self.perform { self.childLearned(mapping) }
            }
        }
    }

    private func childLearned(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard let index = tracker.unlearnedPermanentIDs.firstIndex(where: { $0.mapping == mapping }) else { return }
        tracker.unlearnedPermanentIDs[index].children -= 1
        if tracker.unlearnedPermanentIDs[index].children <= 0 { tracker.unlearnedPermanentIDs.remove(at: index) }
    }

    func learnPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        let known = mapping.keys.compactMap { registered[$0] }
        adoptPermanentIDs(mapping, for: known)
        tellChildren(mapping)
    }

    /// Gives the objects permanent IDs now, before they are saved; their
    /// later save keeps these IDs. Objects that already have one are skipped.
    /// - Throws: ``StoreError`` when no store is loaded.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        _assertOnQueue()
        let temporary = objects.filter { $0._belongs(to: self) && $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        let ids = try coordinator.permanentIDs(for: temporary.map(\.objectID), entities: temporary.map { $0._entity! })
        var mapping: [ManagedObjectID: ManagedObjectID] = [:]
        for (object, id) in zip(temporary, ids) { mapping[object.objectID] = id }
        adoptPermanentIDs(mapping, for: temporary)
    }

    /// Re-keys objects under their permanent IDs and rewrites every
    /// relationship that refers to their temporary IDs (only their own and
    /// their destinations' can, since inverses are always kept). With
    /// `snapshots` (the objects' new snapshots, in their order), each
    /// object's permanent ID is its snapshot's.
    func adoptPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID], for objects: [ManagedObject], snapshots: [Snapshot]? = nil) {
        require(snapshots == nil || snapshots?.count == objects.count, "Coherence: a save returned snapshots for other objects than it saved")
        guard !mapping.isEmpty else { return }
        derivations.remap(mapping)
        // Only objects with relationships hold IDs to replace: the saved
        // objects that have some, and the objects they point to.
        var affected = Set<ManagedObject>()
        for object in objects {
            guard let entity = object._entity, !entity.relationships.isEmpty else { continue }
            affected.insert(object)
            for relationship in entity.relationships {
                for id in relationship.storage(of: object).loadedIDs ?? [] {
                    if let related = registered[id] { affected.insert(related) }
                }
            }
        }
        for (index, object) in objects.enumerated() {
            // The permanent ID from the object's new snapshot when the store
            // gave them in the objects' order (a permanent ID stays as it
            // is), otherwise looked up.
            let permanent = snapshots.map { $0[index].objectID } ?? mapping[object.objectID]
            guard let permanent, permanent != object.objectID else { continue }
            registered[object.objectID] = nil
            object._id = permanent
            registered[permanent] = object
        }
        for object in affected where !object.isFault {
            guard let entity = object._entity else { continue }
            for relationship in entity.relationships {
                guard let ids = relationship.storage(of: object).loadedIDList, ids.contains(where: { mapping[$0] != nil }) else { continue }
                let remapped = ids.map { mapping[$0] ?? $0 }
                relationship.setStorage(relationship.isOrdered ? .ordered(remapped) : RelationshipStorage(ids: Set(remapped), isToMany: relationship.isToMany),
                                        of: object)
            }
        }
    }

    /// Forgets objects that were inserted and deleted again before a save.
    private func discardDeletedInsertions() {
        for object in tracker.discarded { invalidate(object, notify: true) }
        tracker.discarded = []
    }

    /// Checks required attributes, deny rules and cross-context
    /// relationships, then calls each object's validation method (inserted,
    /// then updated, then deleted objects), and throws every error found.
    private func validateForSave() throws {
        var errors: [ValidationError] = []
        func validate(_ object: ManagedObject, _ method: (ManagedObject) -> () throws -> Void) {
            do {
                try method(object)()
            } catch let error as ValidationError {
                errors += error.errors
            } catch {
                errors.append(.rejected(entity: object.entityNameForMessages, property: nil, error: error))
            }
        }
        isValidatingSave = true
        defer { isValidatingSave = false }
        // The inserted objects, then the changed ones not inserted (without
        // building their union: a save of many inserts hashes each once).
        for object in tracker.inserted where !object.isDeleted && object._belongs(to: self) {
            object._graphErrors(in: self, into: &errors)
            validate(object, ManagedObject.validateForInsert)
        }
        for object in tracker.changedObjects where !object.isInserted && !object.isDeleted && object._belongs(to: self) {
            object._graphErrors(in: self, into: &errors)
            validate(object, ManagedObject.validateForUpdate)
        }
        // Objects still pointing at a deleted one (left so by `.noAction`).
        for object in tracker.deleted.union(tracker.discarded) {
            guard let entity = object._entity else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .noAction {
                for id in relatedIDs(of: object, relationship) {
                    guard let holder = registered[id], !holder.isDeleted, let inverse = holder._entity?.inverse(of: relationship),
                          inverse.storage(of: holder).loadedIDs?.contains(object.objectID) == true else { continue }
                    errors.append(.danglingReference(entity: holder.entityNameForMessages, property: inverse.name,
                                                     destination: "\(object.entityNameForMessages) \(object.objectID)"))
                }
            }
        }
        for object in tracker.deleted {
            errors += object._denyErrors(in: self)
            validate(object, ManagedObject.validateForDelete)
        }
        // One error a validation method threw reaches the caller as itself,
        // as in Core Data; several as the aggregate (NSDetailedErrorsKey
        // lists them, each as thrown).
        if let error = ValidationError.combining(errors) { throw error.thrownError }
    }
}
