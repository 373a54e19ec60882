import Foundation

/// Receives a fetched results controller's changes, with Core Data's
/// `NSFetchedResultsControllerDelegate` methods, in Core Data's order: will
/// change, section changes, object changes (deletions at old index paths,
/// insertions at new ones, moves from old to new, updates at old), did change.
///
/// Port Core Data code by renaming its types: `NSFetchedResultsController<NSFetchRequestResult>`
/// becomes ``AnyFetchedResultsController`` (every controller is one: see there
/// why it is not the generic ``FetchedResultsController``),
/// `NSFetchedResultsSectionInfo` ``FetchedResultsSectionInfo`` and
/// `NSFetchedResultsChangeType` ``FetchedResultsChangeType``. The changed
/// object arrives as `Any`, as in Core Data; cast it to your entity's class.
///
/// ```swift
/// extension ItemsViewController: FetchedResultsControllerDelegate {
///     func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
///         tableView.beginUpdates()
///     }
///     func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
///                     for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
///         switch type {
///         case .insert: tableView.insertRows(at: [newIndexPath!], with: .fade)
///         case .delete: tableView.deleteRows(at: [indexPath!], with: .fade)
///         case .update: configure(tableView.cellForRow(at: indexPath!)!, with: anObject as! FeedItem)
///         case .move: tableView.moveRow(at: indexPath!, to: newIndexPath!)
///         }
///     }
///     func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
///         tableView.endUpdates()
///     }
/// }
/// ```
///
/// As in Core Data, every method is optional: each has a default that does
/// nothing (or, for the index title, returns the controller's). A method
/// that is declared with other parameter types (a controller typed
/// `FetchedResultsController<FeedItem>`, an object typed `FeedItem`) is not
/// one of these methods and is never called. Declared in the extension that
/// adopts the protocol, as above, the compiler warns that it "nearly matches"
/// the requirement; declared in the class body, it cannot tell.
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// The controller is about to report changes (Core Data's
    /// `controllerWillChangeContent(_:)`).
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controllerwillchangecontent(_:)>
    func controllerWillChangeContent(_ controller: AnyFetchedResultsController)

    /// A section was inserted (`sectionIndex` in the new sections) or deleted
    /// (`sectionIndex` in the old ones; the info then has no objects).
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controller(_:didchange:atsectionindex:for:)>
    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: any FetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType)

    /// An object was inserted (at `newIndexPath`), deleted (from `indexPath`),
    /// moved (from `indexPath` to `newIndexPath`; it may have changed too) or
    /// updated (at `indexPath`; `newIndexPath` is `nil`). `anObject` is the
    /// managed object, of the controller's entity.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controller(_:didchange:at:for:newindexpath:)>
    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?)

    /// The controller has reported all the changes of one change notification.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controllerdidchangecontent(_:)>
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController)

    /// The index title of a section (``FetchedResultsSectionInfo/indexTitle``,
    /// ``AnyFetchedResultsController/sectionIndexTitles``). The default
    /// returns the controller's ``AnyFetchedResultsController/sectionIndexTitle(forSectionName:)``:
    /// the capitalized first letter.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controller(_:sectionindextitleforsectionname:)>
    func controller(_ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String?
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {}

    public func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: any FetchedResultsSectionInfo,
                           atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {}

    public func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {}

    public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {}

    public func controller(_ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String? {
        controller.sectionIndexTitle(forSectionName: sectionName)
    }
}
