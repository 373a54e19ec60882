/// A context's record of what changed: since the last save (what the next
/// save writes) and since the last didChangeObjects notification (what the
/// next one announces). Confined to the context's queue.
struct ChangeTracker {
    // MARK: Since the last save

    /// Inserted objects that are not deleted.
    var inserted: Set<ManagedObject> = []
    /// Saved objects marked for deletion.
    var deleted: Set<ManagedObject> = []
    /// Inserted objects that were deleted again: never written to the store.
    var discarded: Set<ManagedObject> = []
    /// Objects with property writes (their tracking's `changed` mask is not
    /// empty), each listed once, in the order of their first write; whether
    /// they really differ from their snapshot is decided when asked. The list
    /// may also hold stale entries: objects whose record was cleared
    /// (refreshed, deleted by a merge) stay until the list is cleared or
    /// compacted (``compactChanged()``). Read the members with
    /// ``changedObjects`` or ``hasChangedObject(where:)``.
    private(set) var changed: [ManagedObject] = []

    // MARK: Since the last didChangeObjects notification

    var pendingInserted: Set<ManagedObject> = []
    var pendingDeleted: Set<ManagedObject> = []
    /// The first write of each property since the last notification, with
    /// the property's store value before it (`nil`: it had no value): the
    /// object is announced as updated if a value differs from it. An entry
    /// stands only while its property is in the object's `pending` mask and
    /// no later entry exists for it (a record cleared and written again logs
    /// anew), so the log is read newest first.
    var pendingWrites: [PendingWrite] = []
    var pendingRefreshed: Set<ManagedObject> = []
    var pendingInvalidated: Set<ManagedObject> = []
    var pendingInvalidatedAll: Set<ManagedObject> = []
    /// Deleted objects whose delete rules have not been applied yet.
    var deletionsToPropagate: [ManagedObject] = []

    // MARK: For nested contexts

    /// Permanent IDs this context's save gave to objects its children may
    /// still know by temporary IDs, with how many children have yet to learn
    /// them. Children learn asynchronously; until then, what they send up is
    /// translated here.
    var unlearnedPermanentIDs: [(mapping: [ManagedObjectID: ManagedObjectID], children: Int)] = []

    /// `id`, or the permanent ID a child may not have learned yet.
    func translated(_ id: ManagedObjectID) -> ManagedObjectID {
        guard id.isTemporaryID else { return id }
        for batch in unlearnedPermanentIDs {
            if let permanent = batch.mapping[id] { return permanent }
        }
        return id
    }

    // MARK: Listing objects without hashing them

    /// Lists `object` in ``changed`` unless it is listed. **Complexity:** O(1).
    mutating func noteChanged(_ object: ManagedObject) {
        guard !object._listed.contains(.changed) else { return }
        object._flags.listed(.changed, true)
        changed.append(object)
    }

    /// Empties ``changed``; the objects' records are left as they are.
    mutating func clearChanged() {
        for object in changed { object._flags.listed(.changed, false) }
        changed = []
    }

    /// The objects with property writes since the last save.
    var changedObjects: [ManagedObject] {
        changed.filter(\._hasChangedProperties)
    }

    /// Whether an object with property writes since the last save satisfies
    /// `predicate`, without building ``changedObjects``.
    func hasChangedObject(where predicate: (ManagedObject) -> Bool) -> Bool {
        changed.contains { $0._hasChangedProperties && predicate($0) }
    }

    /// Drops the listed objects whose record was cleared (refreshed into
    /// faults, invalidated), so that the list no longer holds them.
    mutating func compactChanged() {
        changed.removeAll { object in
            guard !object._hasChangedProperties else { return false }
            object._flags.listed(.changed, false)
            return true
        }
    }

    /// Makes the objects' list membership agree with the lists again, after
    /// this tracker replaced `previous` (a save restoring its checkpoint).
    func relist(replacing previous: ChangeTracker) {
        for object in previous.changed { object._flags.listed(.changed, false) }
        for object in changed { object._flags.listed(.changed, true) }
    }

    var hasPendingNotification: Bool {
        !pendingInserted.isEmpty || !pendingDeleted.isEmpty || !pendingWrites.isEmpty
            || !pendingRefreshed.isEmpty || !pendingInvalidated.isEmpty || !pendingInvalidatedAll.isEmpty
            || !deletionsToPropagate.isEmpty
    }

    /// Forgets every object; used by `reset()`.
    mutating func removeAll() {
        clearChanged()
        self = ChangeTracker()
    }
}

/// One entry of ``ChangeTracker/pendingWrites``.
struct PendingWrite {
    let object: ManagedObject
    let index: Int
    /// The property's store value before the write; `nil` when it had none.
    let before: StoreValue?
}
