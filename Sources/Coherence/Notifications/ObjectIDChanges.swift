/// The object IDs of one context notification: a `Sendable` summary that can
/// be handed to any queue or task, and what the async event sequences carry.
/// Resolve the IDs with ``ManagedObjectContext/object(with:)`` inside a
/// `perform` block of the context you want the objects in.
public struct ObjectIDChanges: Sendable, Hashable {
    /// Inserted objects.
    public var inserted: Set<ManagedObjectID> = []
    /// Updated objects.
    public var updated: Set<ManagedObjectID> = []
    /// Deleted objects.
    public var deleted: Set<ManagedObjectID> = []
    /// Refreshed objects (merged updates of registered objects, `refresh`).
    public var refreshed: Set<ManagedObjectID> = []
    /// Objects that left the context (gone from the store, `reset()`).
    public var invalidated: Set<ManagedObjectID> = []
    /// Whether every object of the context was invalidated (`reset()`).
    public var invalidatedAll: Bool = false

    /// A summary of the given changes; empty by default.
    public init(inserted: Set<ManagedObjectID> = [], updated: Set<ManagedObjectID> = [], deleted: Set<ManagedObjectID> = [],
                refreshed: Set<ManagedObjectID> = [], invalidated: Set<ManagedObjectID> = [], invalidatedAll: Bool = false) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.refreshed = refreshed
        self.invalidated = invalidated
        self.invalidatedAll = invalidatedAll
    }

    /// Whether no object changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && !invalidatedAll
    }
}
