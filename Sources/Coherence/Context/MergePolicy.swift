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
    /// Objects whose rows changed in the store since they were read.
    public let conflicts: [MergeConflict]
    /// Uniqueness constraints the save would break
    /// (``ManagedObject/uniquenessConstraints``), Core Data's constraint
    /// conflicts.
    public let constraintConflicts: [ConstraintConflict]

    /// An error listing optimistic-locking `conflicts` and
    /// `constraintConflicts`.
    public init(conflicts: [MergeConflict], constraintConflicts: [ConstraintConflict] = []) {
        self.conflicts = conflicts
        self.constraintConflicts = constraintConflicts
    }

    public var description: String {
        var parts: [String] = []
        if !conflicts.isEmpty {
            parts.append("the save conflicts with changes saved elsewhere: " + conflicts.map(\.description).joined(separator: "; "))
        }
        if !constraintConflicts.isEmpty {
            parts.append("the save breaks uniqueness constraints: " + constraintConflicts.map(\.description).joined(separator: "; "))
        }
        return parts.joined(separator: "; ")
    }
}

/// Objects that share the values of a uniqueness constraint, with each other
/// or with a stored object: Core Data's `NSConstraintConflict`, naming
/// objects by ID so that it is `Sendable`.
/// <https://developer.apple.com/documentation/coredata/nsconstraintconflict>
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The constrained attributes.
    public let constraint: [String]
    /// Their shared values, by attribute name.
    public let constraintValues: [String: StoreValue]
    /// The stored object that has the values, if any.
    public let databaseObjectID: ManagedObjectID?
    /// The stored object's values by property name, if there is one.
    public let databaseSnapshot: [String: StoreValue]?
    /// The objects of the save that have the values.
    public let conflictingObjectIDs: [ManagedObjectID]

    /// The conflicting objects in `context` (the saving one, on its queue).
    public func conflictingObjects(in context: ManagedObjectContext) -> [ManagedObject] {
        conflictingObjectIDs.map { context.object(with: $0) }
    }

    public var description: String {
        let values = constraint.map { "\($0) = \(constraintValues[$0].map { "\($0)" } ?? "nil")" }.joined(separator: ", ")
        let objects = conflictingObjectIDs.map(\.description).joined(separator: ", ")
        let stored = databaseObjectID.map { ", as does the stored \($0)" } ?? ""
        return "\(entityName) (\(values)) is shared by \(objects)\(stored)"
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
