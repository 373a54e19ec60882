import Foundation

// Change tracking, inverse upkeep, delete rules and the didChangeObjects
// notification.
extension ManagedObjectContext {
    /// Records that property `index` of `object` is about to be written.
    /// **Complexity:** O(1): a bit in the object's masks, and on the first
    /// write of the property since the last notification its old value in
    /// store form, logged.
    /// `announce: false` is for property setters, which tell Observation
    /// about their own property.
    func _recordWrite(of object: ManagedObject, property index: Int, announce: Bool = true) {
        if object._lifecycle.contains(.insertionUnannounced) {
            // Announced whole as inserted; saved whole. Nothing to track.
            derivationTouched(object)
            if announce { object._observationChanged() }
            return
        }
        let (firstSinceNotification, firstSinceSave) = object._markWritten(index)
        if firstSinceNotification {
            let before = object._currentValue(at: index)
            tracker.pendingWrites.append(PendingWrite(object: object, index: index, before: before))
        }
        if firstSinceSave {
            tracker.noteChanged(object)
        }
        derivationTouched(object)
        if announce { object._observationChanged() }
    }

    // MARK: Relationships

    /// The destination IDs of `relationship` on `object`, loading a to-many
    /// fault first.
    func relatedIDs(of object: ManagedObject, _ relationship: RelationshipDescription) -> Set<ManagedObjectID> {
        relationship.storage(of: object).loadedIDs ?? Set(_loadToManyFault(of: object, relationship))
    }

    /// The destination IDs of `relationship` on `object`, in order for an
    /// ordered relationship, loading a to-many fault first.
    func relatedIDList(of object: ManagedObject, _ relationship: RelationshipDescription) -> [ManagedObjectID] {
        relationship.storage(of: object).loadedIDList ?? _loadToManyFault(of: object, relationship)
    }

    /// Loads one to-many fault with one store query; the object's snapshot
    /// learns the IDs too, so they do not count as a change. `knownIDs`
    /// are the destinations when a prefetch read them already.
    @discardableResult
    func _loadToManyFault(of object: ManagedObject, _ relationship: RelationshipDescription,
                          knownIDs: [ManagedObjectID]? = nil) -> [ManagedObjectID] {
        let ids: [ManagedObjectID]
        do {
            ids = try knownIDs ?? source.relatedObjectIDs(of: object.objectID, relationship: relationship)
        } catch {
            fatalError("Coherence could not load \(object._entity?.name ?? "?").\(relationship.name) of \(object.objectID): \(error)")
        }
        let value: StoreValue = relationship.isOrdered ? .orderedObjectIDs(ids) : .objectIDs(Set(ids))
        object._setCurrentValue(value, at: relationship.index)
        if let snapshot = object._snapshot, case .toManyFault = snapshot.values[relationship.index] {
            object._snapshot = snapshot.replacingValues { $0[relationship.index] = value }
        }
        return ids
    }

    /// Sets relationship `index` of `object` to `targets`, updating the
    /// inverse of every destination that is added or removed. An ordered
    /// relationship takes the order of `targets` (an object listed twice
    /// counts once, where it first appears).
    /// **Complexity:** O(n + m) for n old and m new destinations.
    func _setRelationship(of object: ManagedObject, index: Int, to targets: [ManagedObject]) {
        guard let entity = object._entity, let relationship = entity.relationship(at: index) else { return }
        var newIDs = Set<ManagedObjectID>()
        var newList: [ManagedObjectID] = []
        var foreign: String?
        let isOrdered = relationship.isOrdered
        for target in targets {
            if target._belongs(to: self), !target._access.contains(.invalidated) {
                if newIDs.insert(target.objectID).inserted, isOrdered { newList.append(target.objectID) }
            } else {
                foreign = "\(target.entityNameForMessages) \(target.objectID)"
            }
        }
        if !relationship.isToMany, newIDs.count > 1 { newIDs = [newIDs.first!] }
        let oldList = isOrdered ? relatedIDList(of: object, relationship) : []
        let oldIDs = isOrdered ? Set(oldList) : relatedIDs(of: object, relationship)
        let hadForeign = object._foreignTargets[index] != nil
        let reordered = isOrdered && newList != oldList
        guard newIDs != oldIDs || reordered || foreign != nil || hadForeign else { return }

        _recordWrite(of: object, property: index)
        if let foreign {
            object._extrasCreated.foreignTargets[index] = foreign
        } else {
            object._extras?.foreignTargets[index] = nil
        }
        if isOrdered {
            relationship.setStorage(.ordered(newList), of: object)
        } else {
            relationship.setMembers(newIDs, of: object)
        }
        for removed in oldIDs.subtracting(newIDs) {
            removeInverse(of: relationship, from: self.object(with: removed), pointingTo: object.objectID)
        }
        for added in newIDs where !oldIDs.contains(added) {
            addInverse(of: relationship, to: registered[added]!, pointingTo: object)
        }
    }

    /// Puts the destinations of the ordered `relationship` of `object` in
    /// the order of `order` (a nested context's), with change tracking;
    /// destinations `order` lacks keep their order after those it has.
    func reorder(_ relationship: RelationshipDescription, of object: ManagedObject, like order: [ManagedObjectID]) {
        let current = relatedIDList(of: object, relationship)
        let wanted = RelationshipDescription.order(order, then: current, within: Set(current))
        guard wanted != current else { return }
        _recordWrite(of: object, property: relationship.index)
        relationship.setStorage(.ordered(wanted), of: object)
    }

    /// Removes `sourceID` from `target`'s side of `relationship`.
    private func removeInverse(of relationship: RelationshipDescription, from target: ManagedObject, pointingTo sourceID: ManagedObjectID) {
        guard target._belongs(to: self) else { return }
        if target.isFault {
            guard faultIsInStore(target) else { return }
            _fulfillFault(target)
        }
        guard let inverse = target._entity?.inverse(of: relationship) else { return }
        var ids = relatedIDs(of: target, inverse)
        guard ids.contains(sourceID) else { return }
        _recordWrite(of: target, property: inverse.index)
        ids.remove(sourceID)
        inverse.setMembers(ids, of: target, returningToSavedPlaces: isRestoringSavedRelationships)
    }

    /// Adds `source` to `target`'s side of `relationship`; for a to-one
    /// inverse, first detaches `target` from the object it pointed to.
    private func addInverse(of relationship: RelationshipDescription, to target: ManagedObject, pointingTo source: ManagedObject) {
        if target.isFault { _fulfillFault(target) }
        guard let inverse = target._entity?.inverse(of: relationship) else { return }
        var ids = relatedIDs(of: target, inverse)
        guard !ids.contains(source.objectID) else { return }
        _recordWrite(of: target, property: inverse.index)
        if !inverse.isToMany {
            for previous in ids {
                // `target` moves from `previous` to `source`: `previous` loses it.
                removeInverse(of: inverse, from: self.object(with: previous), pointingTo: target.objectID)
            }
            ids = []
        }
        ids.insert(source.objectID)
        inverse.setMembers(ids, of: target, returningToSavedPlaces: isRestoringSavedRelationships)
    }

    // MARK: Deleting

    /// Marks `object` deleted; its delete rules run at the next
    /// `processPendingChanges()`.
    func markDeleted(_ object: ManagedObject) {
        guard !object.isDeleted else { return }
        if tracker.inserted.remove(object) != nil {
            tracker.discarded.insert(object)
            if tracker.pendingInserted.remove(object) == nil {
                tracker.pendingDeleted.insert(object)
            }
        } else {
            tracker.deleted.insert(object)
            tracker.pendingDeleted.insert(object)
        }
        object._flags.deleted()
        tracker.deletionsToPropagate.append(object)
        derivationTouched(object)
    }

    /// Applies pending delete rules without announcing anything: for scratch
    /// contexts (which post nothing) and for conflict resolution.
    func applyDeleteRules() {
        propagateDeletions()
        applyDerivations()
    }

    /// Applies the delete rules of every object deleted since the last call.
    func propagateDeletions() {
        // In the order of deletion; rules that delete more objects add them
        // to the next round. (Taking a round at once, not `removeFirst()`,
        // keeps a large deletion linear.)
        while !tracker.deletionsToPropagate.isEmpty {
            let round = tracker.deletionsToPropagate
            tracker.deletionsToPropagate = []
            for object in round { propagateDeletion(of: object) }
        }
    }

    /// Applies the delete rules of one deleted object.
    private func propagateDeletion(of object: ManagedObject) {
        guard let entity = object._entity, object._belongs(to: self) else { return }
        object.prepareForDeletion()
        for relationship in entity.relationships {
            let targets = relatedIDs(of: object, relationship).map { self.object(with: $0) }
            switch relationship.deleteRule {
            case .cascade:
                for target in targets where target._belongs(to: self) {
                    if target.isFault, !faultIsInStore(target) { continue }
                    if target.isFault { _fulfillFault(target) }
                    markDeleted(target)
                }
                for target in targets {
                    removeInverse(of: relationship, from: target, pointingTo: object.objectID)
                }
            case .nullify:
                for target in targets {
                    removeInverse(of: relationship, from: target, pointingTo: object.objectID)
                }
            case .deny, .noAction:
                break
            }
        }
    }

    // MARK: Processing pending changes

    /// Applies delete rules and announces every change since the last call in
    /// one coalesced ``didChangeObjectsNotification``.
    ///
    /// Runs at the end of every `perform`/`performAndWait` block and before
    /// every save and fetch; call it yourself to announce changes sooner. An
    /// object inserted and deleted between two notifications appears in
    /// neither set; a change undone before the notification is not reported.
    /// Changes that observers make while handling the notification are
    /// announced by a further notification before this method returns.
    ///
    /// **Complexity:** O(changed objects × their changed properties).
    public func processPendingChanges() {
        processPendingChanges(finishingMergedDeletions: true)
    }

    /// ``processPendingChanges()``; `finishingMergedDeletions: false` leaves
    /// the objects a merge deleted in ``deletedObjects`` (the end of a
    /// `performAndWait` block, where Core Data processes nothing).
    func processPendingChanges(finishingMergedDeletions: Bool) {
        _assertOnQueue()
        guard !isScratch else { return }
        if finishingMergedDeletions, !mergedDeletions.isEmpty, !isProcessingPendingChanges { finishMergedDeletions() }
        let wasProcessing = isProcessingPendingChanges
        isProcessingPendingChanges = true
        enterCheckedOperation()
        defer {
            isProcessingPendingChanges = wasProcessing
            leaveCheckedOperation()
        }
        // Observers may change objects again; each round announces those
        // changes. The bound stops observers that keep changing each other.
        var refreshed: [ManagedObjectID] = []
        var recordsCleared = false
        for _ in 0..<100 {
            guard tracker.hasPendingNotification || hasPendingDerivations else { break }
            propagateDeletions()
            applyDerivations()
            let (change, changedProperties) = takePendingChange()
            refreshed += change.refreshed.lazy.filter(\.isFault).map(\.objectID)
            recordsCleared = recordsCleared || !change.refreshed.isEmpty || !change.invalidated.isEmpty || !change.deleted.isEmpty
            if !change.isEmpty {
                post(change)
                objectObservers.dispatch(change, changedProperties: changedProperties)
            }
        }
        // Objects turned into faults are let go once announced, unless
        // something else holds them or observes them by ID.
        // Objects whose records were cleared (refreshed, invalidated,
        // deleted by a merge) leave the changed list, which held them.
        if recordsCleared { tracker.compactChanged() }
        forgetEvicted(refreshed.compactMap { registered.evictIfUnreferencedFault($0) })
    }

    /// The announcement of everything since the last one; clears the record.
    /// The changed properties of each updated object are worked out only
    /// when object observers want them.
    private func takePendingChange() -> (ObjectsDidChangeMessage, [ObjectIdentifier: Set<Int>]) {
        let inserted = tracker.pendingInserted
        for object in inserted { object._flags.insertionAnnounced() }
        let deleted = tracker.pendingDeleted
        let wantsProperties = !objectObservers.isEmpty
        var updated = Set<ManagedObject>(minimumCapacity: tracker.pendingWrites.count)
        var changedProperties: [ObjectIdentifier: Set<Int>] = [:]
        // Newest first: an entry whose property is no longer pending was
        // superseded by a later one (or its record was cleared). Read in
        // place: copying an entry would retain its object and its value.
        tracker.pendingWrites.withUnsafeBufferPointer { writes in
            for position in writes.indices.reversed() {
                let index = writes[position].index
                // The log holds the object while this loop runs: borrowed, not retained.
                Unmanaged.passUnretained(writes[position].object)._withUnsafeGuaranteedRef { object in
                    guard object._isPending(index) else { return }
                    object._removePending(index)
                    guard !object.isDeleted, object._belongs(to: self), object._entity != nil,
                          inserted.isEmpty || !inserted.contains(object), deleted.isEmpty || !deleted.contains(object),
                          object._currentValue(at: index) != writes[position].before else { return }
                    if !object._listed.contains(.announcedUpdated) {
                        object._flags.listed(.announcedUpdated, true)
                        updated.insert(object)
                    }
                    if wantsProperties { changedProperties[ObjectIdentifier(object), default: []].insert(index) }
                }
            }
        }
        for object in updated { object._flags.listed(.announcedUpdated, false) }
        let change = ObjectsDidChangeMessage(
            context: self, inserted: inserted, updated: updated, deleted: deleted,
            refreshed: tracker.pendingRefreshed, invalidated: tracker.pendingInvalidated,
            invalidatedAll: tracker.pendingInvalidatedAll)
        tracker.pendingInserted = []
        tracker.pendingDeleted = []
        tracker.pendingWrites.removeAll(keepingCapacity: true)
        tracker.pendingRefreshed = []
        tracker.pendingInvalidated = []
        tracker.pendingInvalidatedAll = []
        return (change, changedProperties)
    }
}
