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
