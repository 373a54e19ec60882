/// The object IDs of one context notification: a `Sendable` summary that can
/// be handed to any queue or task, and what the async event sequences carry.
/// Resolve the IDs with ``ManagedObjectContext/object(with:)`` inside a
/// `perform` block of the context you want the objects in.
public struct ObjectIDChanges: Sendable, Hashable {
    public var inserted: Set<ManagedObjectID> = []
    public var updated: Set<ManagedObjectID> = []
    public var deleted: Set<ManagedObjectID> = []
    public var refreshed: Set<ManagedObjectID> = []
    public var invalidated: Set<ManagedObjectID> = []
    /// Whether every object of the context was invalidated (`reset()`).
    public var invalidatedAll: Bool = false

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
