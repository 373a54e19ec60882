import Foundation

extension ManagedObjectContext {
    /// Posted by ``processPendingChanges()`` when registered objects were
    /// inserted, updated, deleted, refreshed or invalidated since the last
    /// one, including changes that are never saved. The object is the
    /// context; userInfo holds `Set<ManagedObject>`s under the non-empty
    /// ``NotificationKey``s among `inserted`, `updated`, `deleted`,
    /// `refreshed` and `invalidated`; after ``reset()``, an array of the
    /// invalidated objects' `ManagedObjectID`s under `invalidatedAll`, as
    /// Core Data posts it.
    public static let didChangeObjectsNotification = Notification.Name("NSManagedObjectContextObjectsDidChangeNotification")

    /// Posted at the start of every ``save()``, before validation, also when
    /// there is nothing to save (as Core Data does). No userInfo. Changes
    /// made by observers (inserting objects, say) are saved too.
    public static let willSaveObjectsNotification = Notification.Name("NSManagedObjectContextWillSaveNotification")

    /// Posted after the store committed a save. userInfo holds the saved
    /// objects as `Set<ManagedObject>` under `inserted`, `updated` and
    /// `deleted`; inserted objects already have permanent IDs. A save with
    /// nothing to save posts it too, with empty sets.
    public static let didSaveObjectsNotification = Notification.Name("NSManagedObjectContextDidSaveNotification")

    /// Posted after ``didSaveObjectsNotification`` with the same changes as
    /// `Set<ManagedObjectID>` under `inserted_objectIDs`,
    /// `updated_objectIDs` and `deleted_objectIDs`: safe to hand to any
    /// queue. Posted for every didSave, with empty sets when nothing was saved.
    public static let didSaveObjectIDsNotification = Notification.Name("NSManagedObjectContextDidSaveObjectIDsNotification")

    /// Posted by a context after it merged changes saved elsewhere
    /// (``mergeChanges(fromContextDidSave:)-(Notification)``, automatic merges,
    /// ``mergeChanges(fromRemoteContextSave:into:)-(ObjectIDChanges,_)``), after its own
    /// didChangeObjects, with `Set<ManagedObjectID>`s under
    /// `inserted_objectIDs`, `updated_objectIDs` and `deleted_objectIDs` (what
    /// was merged), `refreshed_objectIDs` (the merged updates of objects
    /// registered here, which its didChangeObjects reports as refreshed) and
    /// `invalidated_objectIDs` (registered objects the merge found gone from
    /// the store), as Core Data's does.
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NSManagedObjectContextDidMergeChangesObjectIDsNotification")

    /// The userInfo keys of context notifications, with Core Data's raw values.
    public enum NotificationKey: String, Sendable, CaseIterable {
        /// `Set<ManagedObject>` of inserted objects; Core Data's `NSInsertedObjectsKey`.
        case insertedObjects = "inserted"
        /// `Set<ManagedObject>` of updated objects; `NSUpdatedObjectsKey`.
        case updatedObjects = "updated"
        /// `Set<ManagedObject>` of deleted objects; `NSDeletedObjectsKey`.
        case deletedObjects = "deleted"
        /// `Set<ManagedObject>` of refreshed objects; `NSRefreshedObjectsKey`.
        case refreshedObjects = "refreshed"
        /// `Set<ManagedObject>` of objects no longer valid in the context; `NSInvalidatedObjectsKey`.
        case invalidatedObjects = "invalidated"
        /// `[ManagedObjectID]` of every object invalidated by `reset()`; `NSInvalidatedAllObjectsKey`.
        case invalidatedAllObjects = "invalidatedAll"
        /// `Set<ManagedObjectID>` of inserted objects (didSaveObjectIDs, didMergeChangesObjectIDs).
        case insertedObjectIDs = "inserted_objectIDs"
        /// `Set<ManagedObjectID>` of updated objects.
        case updatedObjectIDs = "updated_objectIDs"
        /// `Set<ManagedObjectID>` of deleted objects.
        case deletedObjectIDs = "deleted_objectIDs"
        /// `Set<ManagedObjectID>` of refreshed objects (didMergeChangesObjectIDs).
        case refreshedObjectIDs = "refreshed_objectIDs"
        /// `Set<ManagedObjectID>` of invalidated objects (didMergeChangesObjectIDs).
        case invalidatedObjectIDs = "invalidated_objectIDs"
    }
}

// Core Data's spellings, so that ported code compiles unchanged.
extension Notification.Name {
    /// Core Data's name for ``ManagedObjectContext/didChangeObjectsNotification``.
    public static let NSManagedObjectContextObjectsDidChange = ManagedObjectContext.didChangeObjectsNotification
    /// Core Data's name for ``ManagedObjectContext/willSaveObjectsNotification``.
    public static let NSManagedObjectContextWillSave = ManagedObjectContext.willSaveObjectsNotification
    /// Core Data's name for ``ManagedObjectContext/didSaveObjectsNotification``.
    public static let NSManagedObjectContextDidSave = ManagedObjectContext.didSaveObjectsNotification
    /// Core Data's name for ``ManagedObjectContext/didSaveObjectIDsNotification``.
    public static let NSManagedObjectContextDidSaveObjectIDs = ManagedObjectContext.didSaveObjectIDsNotification
    /// Core Data's name for ``ManagedObjectContext/didMergeChangesObjectIDsNotification``.
    public static let NSManagedObjectContextDidMergeChangesObjectIDs = ManagedObjectContext.didMergeChangesObjectIDsNotification
}

/// Core Data's key for inserted objects: `"inserted"`.
public let NSInsertedObjectsKey = ManagedObjectContext.NotificationKey.insertedObjects.rawValue
/// Core Data's key for updated objects: `"updated"`.
public let NSUpdatedObjectsKey = ManagedObjectContext.NotificationKey.updatedObjects.rawValue
/// Core Data's key for deleted objects: `"deleted"`.
public let NSDeletedObjectsKey = ManagedObjectContext.NotificationKey.deletedObjects.rawValue
/// Core Data's key for refreshed objects: `"refreshed"`.
public let NSRefreshedObjectsKey = ManagedObjectContext.NotificationKey.refreshedObjects.rawValue
/// Core Data's key for invalidated objects: `"invalidated"`.
public let NSInvalidatedObjectsKey = ManagedObjectContext.NotificationKey.invalidatedObjects.rawValue
/// Core Data's key for the objects invalidated by `reset()`: `"invalidatedAll"`.
/// Its value is an array of their `ManagedObjectID`s.
public let NSInvalidatedAllObjectsKey = ManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue
