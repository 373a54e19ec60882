import Foundation

extension ManagedObjectContext {
    /// Brings changes made outside these contexts (batch requests, another
    /// coordinator, another process) into live contexts, as Core Data's
    /// method of the same name.
    ///
    /// `changes` is a didSave userInfo or any dictionary with
    /// `inserted`/`updated`/`deleted` (or the `_objectIDs` keys), holding
    /// `ManagedObjectID`s, `ManagedObject`s or object URIs, as sets or arrays.
    /// Each context, on its own queue: registers inserted objects, refreshes
    /// updated ones (keeping local changes), removes deleted ones, and posts
    /// its own didChangeObjects (updates under `refreshed`).
    public static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        for context in contexts {
            let ids = context.objectIDChanges(from: changes)
            context.performAndWait { context.mergeRemoteChanges(ids) }
        }
    }

    /// ``mergeChanges(fromRemoteContextSave:into:)`` for object IDs, as a
    /// ``BatchResult`` or a didSave event carries them.
    public static func mergeChanges(fromRemoteContextSave changes: ObjectIDChanges, into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeRemoteChanges(changes) }
        }
    }

    /// Merges the changes of a didSave notification from another context of
    /// the same coordinator (``didSaveObjectsNotification`` or
    /// ``didSaveObjectIDsNotification``). Call it on this context's queue:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { note in
    ///     let changes = ManagedObjectContext.DidSaveMessage.makeMessage(note)?.objectIDs ?? ObjectIDChanges()
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: changes) }
    /// }
    /// ```
    ///
    /// Updated objects are refreshed (their unsaved changes here stay), and
    /// reported under `refreshed` even when they are faults, so fetched
    /// results and observers see updates to objects never loaded here.
    /// Inserted objects are registered and reported under `inserted`; deleted
    /// ones are reported under `deleted` and leave the context. The context
    /// posts its own didChangeObjects, then
    /// ``didMergeChangesObjectIDsNotification`` with the IDs of the merged
    /// insertions, updates and deletions, and of the objects it refreshed.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeChanges(fromContextDidSave: objectIDChanges(from: notification.userInfo ?? [:]))
    }

    /// ``mergeChanges(fromContextDidSave:)-(Notification)`` for the
    /// `Sendable` IDs of a save, as ``DidSaveMessage/objectIDs`` and the
    /// didSave event sequence carry them.
    public func mergeChanges(fromContextDidSave changes: ObjectIDChanges) {
        _assertOnQueue()
        mergeRemoteChanges(changes)
    }

    /// The object IDs in a change dictionary, resolving URIs through this
    /// context's coordinator.
    private func objectIDChanges(from changes: [AnyHashable: Any]) -> ObjectIDChanges {
        func ids(_ keys: ManagedObjectContext.NotificationKey...) -> Set<ManagedObjectID> {
            var result = Set<ManagedObjectID>()
            for key in keys {
                guard let value = changes[key.rawValue] else { continue }
                let items: [Any] = (value as? any Sequence).map { Array($0) } ?? [value]
                for item in items {
                    switch item {
                    case let id as ManagedObjectID: result.insert(id)
                    case let object as ManagedObject: result.insert(object.objectID)
                    case let url as URL:
                        if let id = persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) { result.insert(id) }
                    default: break
                    }
                }
            }
            return result
        }
        return ObjectIDChanges(inserted: ids(.insertedObjects, .insertedObjectIDs),
                               updated: ids(.updatedObjects, .updatedObjectIDs),
                               deleted: ids(.deletedObjects, .deletedObjectIDs))
    }

    /// Applies committed changes made elsewhere, then announces them: at
    /// once, or, with a `budget`, in chunks that each keep the queue busy for
    /// about that long, post one didChangeObjects and didMergeChangesObjectIDs,
    /// and leave the rest to a later turn of the queue. Work of successive
    /// saves is applied in order: a budgeted merge still in progress takes
    /// the new work after its own, and a merge without a budget finishes
    /// everything pending first.
    func mergeRemoteChanges(_ changes: ObjectIDChanges, budget: Duration? = nil) {
        _assertOnQueue()
        enterCheckedOperation()
        defer { leaveCheckedOperation() }
        coordinator.rowCache.commit(changed: changes.updated.union(changes.deleted), saved: [])
        let inProgress = !mergeBacklog.isEmpty
        mergeBacklog += changes.deleted.map { MergeWork(kind: .deleted, id: $0) }
            + changes.updated.subtracting(changes.deleted).map { MergeWork(kind: .updated, id: $0) }
            + changes.inserted.map { MergeWork(kind: .inserted, id: $0) }
        // A chunk of the merge in progress is already scheduled.
        if inProgress, budget != nil { return }
        mergeChunk(budget: budget)
    }

    /// How many objects the first chunk of a budgeted merge takes.
    static var calibrationChunk: Int { 64 }


    /// Merges `work` on this queue. With a budget, a chunk stops when its
    /// merging plus the expected cost of announcing it (processing, the
    /// notification and its observers, measured per object on the previous
    /// chunk) reaches the budget; the rest goes on in a later turn of the
    /// queue. The first chunk takes at most ``calibrationChunk`` objects
    /// (and stops at the budget) to learn that cost.
    private func mergeChunk(budget: Duration?, announcingCostPerObject: Duration? = nil) {
        guard !mergeBacklog.isEmpty else { return } // drained by a merge without a budget
        // An earlier merge's deletions are processed first, as the next
        // processPendingChanges would.
        if !mergedDeletions.isEmpty { finishMergedDeletions() }
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var merged = ObjectIDChanges()
        var gone: [ManagedObject] = []
        var latest: [ManagedObjectID: Snapshot?] = [:]
        var asked: Set<ManagedObjectID> = []
        var inserted: [ManagedObjectID] = []
        while let work = mergeBacklog.popFirst() {
            let id = work.id
            switch work.kind {
            case .deleted:
                merged.deleted.insert(id)
                guard !forgetIfUnreferenced(id), let object = registered[id] else { break }
                // Apple: the merge "invokes delete(_:) on those which have
                // been deleted": the object is announced as deleted and stays
                // in deletedObjects until the next processPendingChanges or
                // save (see finishMergedDeletions). Its delete rules already
                // ran where it was deleted.
                tracker.inserted.remove(object)
                object._clearTracking()
                object._flags.deleted()
                tracker.deleted.insert(object)
                tracker.pendingDeleted.insert(object)
                gone.append(object)
            case .updated:
                merged.updated.insert(id)
                guard !forgetIfUnreferenced(id), let object = registered[id] else { break }
                if object.isFault {
                    object._snapshot = nil
                    tracker.pendingRefreshed.insert(object)
                    derivationTouched(object)
                    derivationStale(object)
                    object._observationChanged()
                    merged.refreshed.insert(id)
                } else {
                    if !asked.contains(id) { (asked, latest) = latestSnapshots(startingWith: id) }
                    // A read error leaves the object as it is.
                    guard let snapshot = latest[id] else { break }
                    refresh(object, mergeChanges: true, latest: snapshot, keepingTransientValues: true)
                    if tracker.pendingInvalidated.contains(object) {
                        merged.invalidated.insert(id)
                    } else if tracker.pendingRefreshed.contains(object) {
                        merged.refreshed.insert(id)
                    }
                }
            case .inserted:
                merged.inserted.insert(id)
                guard registered[id] == nil, coordinator.managedObjectModel.entity(for: id.objectClass) != nil else { break }
                inserted.append(id)
            }
            count += 1
            if let budget {
                guard let perObject = announcingCostPerObject else {
                    if count >= Self.calibrationChunk || clock.now - start >= budget { break }
                    continue
                }
                if clock.now - start + perObject * count >= budget { break }
            }
        }
        registerMergedInsertions(inserted)
        let announcing = clock.now
        // Recorded before they are announced: a save or rollback in an
        // observer of the announcement already knows them.
        mergedDeletions += gone
        processPendingChanges(finishingMergedDeletions: false)
        post(name: ManagedObjectContext.didMergeChangesObjectIDsNotification,
             userInfo: DidMergeChangesMessage(context: self, objectIDs: merged).userInfo)
        if !mergeBacklog.isEmpty {
            let perObject = (clock.now - announcing) / max(count, 1)
            perform { self.mergeChunk(budget: budget, announcingCostPerObject: perObject) }
        }
    }
}

extension ManagedObjectContext {
    /// Registers the objects a merge inserts, with their committed values
    /// (from the row cache when the save was this coordinator's, else one
    /// query per store), so that observers reading them read nothing more;
    /// a nested context registers faults.
    /// An object already gone from the store (a later save deleted it; a
    /// merge of history runs after the fact) is left out, rather than
    /// registered as a fault that could never fire. If the read fails, the
    /// objects are registered as faults, as before.
    private func registerMergedInsertions(_ ids: [ManagedObjectID]) {
        guard !ids.isEmpty else { return }
        // Only from the coordinator: a nested context would wait for its
        // parent's queue, which may be waiting for this one.
        let found = source is PersistentStoreCoordinator
            ? try? Dictionary(source.snapshots(for: ids).map { ($0.objectID, $0) }) { first, _ in first } : nil
        for id in ids where registered[id] == nil {
            guard let found else {
                tracker.pendingInserted.insert(object(with: id))
                continue
            }
            // Still reported as merged (didMergeChangesObjectIDs lists what the save did).
            guard let snapshot = found[id] else { continue }
            tracker.pendingInserted.insert(registerFault(id, snapshot: snapshot))
        }
    }

    /// Lets go of the object registered under `id` when nothing outside the
    /// context holds it (no code, no change record), instead of announcing
    /// a merged change to it: Core Data's context holds its objects weakly
    /// (``retainsRegisteredObjects`` off), so an object no code holds is
    /// gone, and a later change to it is not announced. Returns whether it
    /// was let go. Called before the merge takes its own reference.
    /// Objects of entities with derived attributes, or that feed one, stay:
    /// the derivations account for them.
    private func forgetIfUnreferenced(_ id: ManagedObjectID) -> Bool {
        guard let entity = coordinator.managedObjectModel.entity(for: id.objectClass),
              entity.derivations.isEmpty, entity.dependentDerivations.isEmpty,
              let evicted = registered.evictIfUnreferenced(id) else { return false }
        forgetEvicted([evicted])
        return true
    }

    /// Takes the objects a merge deleted out of the context: they stayed in
    /// ``deletedObjects`` (and registered) from the merge's announcement to
    /// the next ``processPendingChanges()`` or save, as after Core Data's
    /// `delete(_:)`. They are already announced; their rows are gone.
    func finishMergedDeletions() {
        let objects = mergedDeletions
        mergedDeletions = []
        for object in objects where object._belongs(to: self) && object.isDeleted {
            tracker.deleted.remove(object)
            tracker.pendingDeleted.remove(object)
            invalidate(object, notify: !object.isFault)
        }
    }

    /// How many loaded objects of a merge read their latest values in one
    /// store query.
    static var mergeReadAhead: Int { 500 }

    /// The latest snapshots of `id` and of the loaded objects of the next
    /// updates in the merge backlog (up to ``mergeReadAhead``), read in one
    /// go, with the IDs asked for: objects no longer in the store map to
    /// `nil`, objects that could not be read are missing.
    private func latestSnapshots(startingWith id: ManagedObjectID) -> (asked: Set<ManagedObjectID>, latest: [ManagedObjectID: Snapshot?]) {
        var ids = [id]
        for work in mergeBacklog {
            guard ids.count < Self.mergeReadAhead else { break }
            guard work.kind == .updated, let object = registered[work.id], !object.isFault else { continue }
            ids.append(work.id)
        }
        return (Set(ids), source.latestSnapshots(for: ids))
    }
}

/// One object of a merge: what happened to it elsewhere.
struct MergeWork: Sendable {
    enum Kind: Sendable {
        case deleted, updated, inserted
    }

    let kind: Kind
    let id: ManagedObjectID
}
