import Foundation

// refresh, rollback and reset: going back to committed state.
extension ManagedObjectContext {
    /// Brings one object up to date with its store.
    ///
    /// - With `mergeChanges: false` the object's unsaved changes are
    ///   discarded (relationship changes are undone on both sides) and it
    ///   turns into a fault that loads the latest committed values when next
    ///   used.
    /// - With `mergeChanges: true` the latest committed values replace the
    ///   properties the object has not changed; its own changes stay. An
    ///   object without changes turns into a fault.
    /// - An object that turns into a fault loses its transient values (they
    ///   go back to their initial values), as a Core Data fault's are
    ///   "already cleared out" by `didTurnIntoFault()`; a changed object
    ///   refreshed with `mergeChanges: true` keeps them, and so do objects a
    ///   merge of another context's save refreshes.
    ///
    /// The object is reported under `refreshed` in the next
    /// didChangeObjects notification. An object no longer in the store is
    /// invalidated instead and reported under `invalidated`. Inserted and
    /// deleted objects, objects of other contexts, and objects the store
    /// cannot read right now (a read error) are left alone.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        _assertOnQueue()
        enterCheckedOperation()
        defer { leaveCheckedOperation() }
        refreshRegistered(object, mergeChanges: mergeChanges)
    }

    /// ``refresh(_:mergeChanges:)`` without the invariant check (which
    /// ``refreshAllObjects()`` makes once, after every object).
    private func refreshRegistered(_ object: ManagedObject, mergeChanges: Bool) {
        guard object._belongs(to: self), !object.isInserted, !object.isDeleted, object._entity != nil else { return }
        // A read error leaves the object as it is: only a row that is gone invalidates it.
        guard let latest = source.latestSnapshots(for: [object.objectID])[object.objectID] else { return }
        refresh(object, mergeChanges: mergeChanges, latest: latest)
    }

    /// ``refresh(_:mergeChanges:)`` with the object's latest snapshot already
    /// read (`nil`: the object is no longer in the store). A merge
    /// (`keepingTransientValues`) keeps the transient values of an object it
    /// turns into a fault: Core Data's merge updates objects in place.
    func refresh(_ object: ManagedObject, mergeChanges: Bool, latest: Snapshot?, keepingTransientValues: Bool = false) {
        guard object._belongs(to: self), !object.isInserted, !object.isDeleted, let entity = object._entity else { return }
        derivationTouched(object)
        derivationStale(object)
        if object.isFault, let latest {
            // Nothing loaded to merge with: the next use loads the latest values.
            object._snapshot = mergeChanges ? latest.keepingTransientValues(of: object._snapshot, entity: entity) : latest
            tracker.pendingRefreshed.insert(object)
            object._observationChanged()
            return
        }
        if latest == nil {
            // Deleted from the store by someone else: nothing to refresh from.
            invalidate(object, notify: true)
            tracker.pendingInvalidated.insert(object)
            return
        }
        let changed = object._changedProperties.filter {
            object._currentValue(at: $0) != object._committedStoreValue(at: $0)
        }
        if mergeChanges, !changed.isEmpty {
            // Transient values are left alone, as Core Data leaves them.
            for index in 0..<entity.propertyCount where !changed.contains(index) {
                if index < entity.attributes.count, entity.attributes[index].isTransient { continue }
                if let relationship = entity.relationship(at: index) {
                    relationship.setStorage(
                        RelationshipStorage(storeValue: latest!.values[index], isToMany: relationship.isToMany), of: object)
                } else {
                    try? entity.attributes[index].setStoreValue(latest!.values[index], of: object)
                }
            }
            object._snapshot = latest!.keepingTransientValues(of: object._snapshot, entity: entity)
        } else {
            if !mergeChanges {
                // Undo relationship changes through the setter so destinations follow.
                isRestoringSavedRelationships = true
                defer { isRestoringSavedRelationships = false }
                for index in changed {
                    guard entity.relationship(at: index) != nil, let committed = object._committedStoreValue(at: index),
                          committed != .toManyFault else { continue }
                    _setRelationship(of: object, index: index, to: committed.referencedIDList.map { self.object(with: $0) })
                }
            }
            object.willTurnIntoFault()
            object._clearTracking()
            // Turning into a fault clears transient values, as Core Data's
            // faults do ("transient values declared as entity properties are
            // typically already cleared out" by didTurnIntoFault()): the
            // store's snapshot holds their initial values, which firing the
            // fault loads. Only an object with changes, merged above, and a
            // merge keep them.
            object._snapshot = keepingTransientValues && entity.hasTransientAttributes
                ? latest!.keepingTransientValues(of: object, entity: entity) : latest
            object._clearCurrentValues()
            object._flags.turnedIntoFault()
            object.didTurnIntoFault()
        }
        tracker.pendingRefreshed.insert(object)
        object._observationChanged()
    }

    /// Refreshes every registered object with `mergeChanges: true`: objects
    /// without changes turn into faults (releasing their values), changed
    /// objects take the latest committed values of their unchanged properties.
    public func refreshAllObjects() {
        _assertOnQueue()
        evictUnreferencedFaults()
        enterCheckedOperation()
        defer { leaveCheckedOperation() }
        for object in registered.objects {
            refreshRegistered(object, mergeChanges: true)
        }
    }

    /// Discards every unsaved change: inserted objects leave the context
    /// (invalidated), deleted objects come back, updated objects return to
    /// their last committed values. Does not fetch from the store.
    ///
    /// The next didChangeObjects notification (posted before `rollback`
    /// returns) reports the difference from what the last one announced:
    /// announced insertions now under `deleted`, announced deletions under
    /// `inserted`, reverted values under `updated`. Changes never announced
    /// simply vanish.
    public func rollback() {
        _assertOnQueue()
        enterCheckedOperation()
        defer { leaveCheckedOperation() }
        // A merge's deletions are not undone: their rows are gone.
        if !mergedDeletions.isEmpty { finishMergedDeletions() }
        // An inserted object whose insertion was announced is now gone; one
        // inserted and deleted again already had its net effect recorded.
        let discarded = tracker.inserted.union(tracker.discarded)
        for object in tracker.inserted where tracker.pendingInserted.remove(object) == nil {
            tracker.pendingDeleted.insert(object)
        }
        for object in discarded {
            object._removeAllPending()
        }
        for object in tracker.deleted {
            derivationTouched(object) // its contribution is back
            object._flags.settled()
            if tracker.pendingDeleted.remove(object) == nil {
                tracker.pendingInserted.insert(object)
            }
        }
        for object in tracker.changedObjects where !discarded.contains(object) {
            guard let entity = object._entity, let snapshot = object._snapshot else { continue }
            for index in object._changedProperties {
                _recordWrite(of: object, property: index)
                if let relationship = entity.relationship(at: index) {
                    relationship.setStorage(
                        RelationshipStorage(storeValue: snapshot.values[index], isToMany: relationship.isToMany), of: object)
                } else {
                    try? entity.attributes[index].setStoreValue(snapshot.values[index], of: object)
                }
            }
            object._removeAllChanged()
        }
        tracker.inserted = []
        tracker.deleted = []
        tracker.discarded = []
        tracker.clearChanged()
        tracker.deletionsToPropagate = []
        // Committed values are consistent: take them as the recorded
        // contributions instead of moving parents again.
        for object in discarded { derivationForget(object) }
        resyncDerivations()
        processPendingChanges()
        for object in discarded {
            invalidate(object, notify: true)
        }
    }

    /// Forgets every object: all registered objects are invalidated (they
    /// keep their last values but belong to no context, and an unloaded fault
    /// can no longer load), unsaved changes are discarded, and a
    /// didChangeObjects notification lists them all under `invalidatedAll`.
    public func reset() {
        _assertOnQueue()
        enterCheckedOperation()
        defer { leaveCheckedOperation() }
        // Counted before the faults nothing else holds are evicted, so that
        // their snapshots are swept too.
        let released = registered.count
        evictUnreferencedFaults()
        do { // a scope, so that `all` lets the objects go before the sweep below
            let all = Set(registered.objects)
            for object in all {
                invalidate(object, notify: !object.isFault)
            }
            registered.removeAll()
            faultBatches.removeAll()
            tracker.removeAll()
            derivations.removeAll()
            tracker.pendingInvalidatedAll = all
        }
        processPendingChanges()
        persistentStoreCoordinator?.rowCache.sweep(releasedAbout: released)
    }
}
