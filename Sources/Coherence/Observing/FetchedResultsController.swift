import Foundation

/// The kind of change a ``FetchedResultsController`` reports.
public enum FetchedResultsChangeType: Sendable, Hashable {
    /// The object (or section) entered the results.
    case insert
    /// The object (or section) left the results.
    case delete
    /// The object's position changed; it may have changed too.
    case move
    /// The object changed in place.
    case update
}

/// A `Sendable` picture of a controller's results, with the changes from the
/// previous picture, as ``AnyFetchedResultsController/snapshots()`` delivers them.
public struct FetchedResultsSnapshot: Sendable, Hashable {
    /// One section, by object ID.
    public struct Section: Sendable, Hashable {
        /// The section's name ("" without a section key path).
        public let name: String
        /// The section's objects, in order.
        public let objectIDs: [ManagedObjectID]
    }

    /// One reported change, by object ID and index paths.
    public struct Change: Sendable, Hashable {
        /// The changed object.
        public let objectID: ManagedObjectID
        /// What happened to it.
        public let type: FetchedResultsChangeType
        /// Where it was (deletions, moves, updates).
        public let indexPath: IndexPath?
        /// Where it is now (insertions, moves).
        public let newIndexPath: IndexPath?
    }

    /// One reported section change.
    public struct SectionChange: Sendable, Hashable {
        /// The section's name.
        public let name: String
        /// `.insert` or `.delete`.
        public let type: FetchedResultsChangeType
        /// The section's index: in the new sections for an insertion, the old
        /// ones for a deletion.
        public let index: Int
    }

    /// The sections, in order.
    public let sections: [Section]
    /// The changes from the previous snapshot (empty for the first).
    public let sectionChanges: [SectionChange]
    /// The object changes from the previous snapshot, in delegate order.
    public let changes: [Change]
}

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// `[section, item]`, as UIKit's initializer of the same name builds it.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }
}
#endif

extension IndexPath {
    /// The section of a two-element index path.
    public var sectionIndex: Int { self[0] }
    /// The item of a two-element index path.
    public var itemIndex: Int { self[1] }
}
