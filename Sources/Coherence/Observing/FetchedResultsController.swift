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

/// One section of a ``FetchedResultsController``.
public struct FetchedResultsSectionInfo: CustomStringConvertible {
    /// The section's name: the value of the section key path ("" without one).
    public let name: String
    /// The objects of the section, in order.
    public let objects: [ManagedObject]
    /// The number of objects.
    public var numberOfObjects: Int { objects.count }

    /// The name and the number of objects, for logs.
    public var description: String { "\(name) (\(objects.count))" }
}

/// Receives a ``FetchedResultsController``'s changes, in Core Data's order:
/// will change, section changes, object changes (deletions at old index
/// paths, insertions at new ones, moves from old to new, updates at old),
/// did change. Every method has an empty default.
public protocol FetchedResultsControllerDelegate: AnyObject {
    func controllerWillChangeContent(_ controller: AnyObject)
    func controller(_ controller: AnyObject, didChange sectionInfo: FetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                    for type: FetchedResultsChangeType)
    func controller(_ controller: AnyObject, didChange object: ManagedObject, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    func controllerDidChangeContent(_ controller: AnyObject)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: AnyObject) {}
    public func controller(_ controller: AnyObject, didChange sectionInfo: FetchedResultsSectionInfo, atSectionIndex sectionIndex: Int,
                           for type: FetchedResultsChangeType) {}
    public func controller(_ controller: AnyObject, didChange object: ManagedObject, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {}
    public func controllerDidChangeContent(_ controller: AnyObject) {}
}

/// A `Sendable` picture of a controller's results, with the changes from the
/// previous picture, as ``FetchedResultsController/snapshots()`` delivers them.
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
