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
    /// Objects with property writes; whether they really differ from their
    /// snapshot is decided when asked.
    var changed: Set<ManagedObject> = []

    // MARK: Since the last didChangeObjects notification

    var pendingInserted: Set<ManagedObject> = []
    var pendingDeleted: Set<ManagedObject> = []
    /// Objects with property writes; announced as updated if a value differs
    /// from what the last notification saw.
    var pendingTouched: Set<ManagedObject> = []
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

    var hasPendingNotification: Bool {
        !pendingInserted.isEmpty || !pendingDeleted.isEmpty || !pendingTouched.isEmpty
            || !pendingRefreshed.isEmpty || !pendingInvalidated.isEmpty || !pendingInvalidatedAll.isEmpty
            || !deletionsToPropagate.isEmpty
    }

    /// Forgets every object; used by `reset()`.
    mutating func removeAll() {
        self = ChangeTracker()
    }
}
