/// How a save resolves conflicts with changes someone else saved since the
/// objects were read (optimistic locking on each row's version), as Core
/// Data's merge policies do.
public enum MergePolicy: Sendable, Hashable {
    /// Refuse the save with a ``MergeError`` listing every conflict; nothing
    /// is saved. The default: no update is ever lost silently.
    case error
    /// Per property: where the store changed a property, the store's value
    /// wins; properties changed only here keep the object's value.
    case mergeByPropertyStoreTrump
    /// Per property: properties changed here keep the object's value; the
    /// others take the store's values.
    case mergeByPropertyObjectTrump
    /// The object's state replaces the store's entirely (an object deleted
    /// from the store is written back).
    case overwrite
    /// The object's changes are discarded in favor of the store's state (an
    /// object deleted from the store leaves the context).
    case rollback
}

/// One object whose row changed in the store after the context read it.
/// `Sendable`: it names the object by ID and holds values in store form.
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object being saved.
    public let objectID: ManagedObjectID
    /// Whether the save was deleting the object.
    public let isDeletion: Bool
    /// Its values now, by property name.
    public let objectSnapshot: [String: StoreValue]
    /// The committed values the context read, by property name.
    public let cachedSnapshot: [String: StoreValue]?
    /// The values in the store now, by property name; `nil` when the object
    /// was deleted from the store.
    public let persistedSnapshot: [String: StoreValue]?
    /// The row version in the store now (0 when deleted).
    public let newVersionNumber: Int64
    /// The row version the context read.
    public let oldVersionNumber: Int64

    /// The object in `context` (the saving one, on its queue).
    public func sourceObject(in context: ManagedObjectContext) -> ManagedObject {
        context.object(with: objectID)
    }

    public var description: String {
        let state = persistedSnapshot == nil ? "deleted from the store" : "saved elsewhere as version \(newVersionNumber)"
        return "\(objectID.entityName) \(objectID): read at version \(oldVersionNumber), \(state)"
    }
}

/// A save refused by ``MergePolicy/error`` (or a conflict the policy cannot
/// resolve): each conflict, with the object's ID and its snapshots. Nothing
/// was saved and the changes are still pending.
public struct MergeError: Error, Sendable, CustomStringConvertible {
    /// Each conflicting object, with its snapshots (Core Data's
    /// `NSPersistentStoreSaveConflictsErrorKey`).
    public let conflicts: [MergeConflict]

    public var description: String {
        "the save conflicts with changes saved elsewhere: " + conflicts.map(\.description).joined(separator: "; ")
    }
}

/// Thrown by a store's `save` when rows changed since the context read them;
/// the store changed nothing.
public struct StoreConflictError: Error, Sendable {
    /// One row that changed since the context read it.
    public struct Conflict: Sendable {
        /// The object whose row changed.
        public let objectID: ManagedObjectID
        /// The version the save expected.
        public let expectedVersion: Int64
        /// The row now, or `nil` if it is gone.
        public let current: Snapshot?

        /// A conflict on `objectID`, whose row the save expected at
        /// `expectedVersion` and found as `current`.
        public init(objectID: ManagedObjectID, expectedVersion: Int64, current: Snapshot?) {
            self.objectID = objectID
            self.expectedVersion = expectedVersion
            self.current = current
        }
    }

    /// Every conflicting row of the save.
    public let conflicts: [Conflict]

    /// An error listing `conflicts`.
    public init(conflicts: [Conflict]) {
        self.conflicts = conflicts
    }
}
