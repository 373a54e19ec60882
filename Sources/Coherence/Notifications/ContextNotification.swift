import Foundation

/// A typed view of one kind of context notification.
///
/// Read a posted `Notification` with the matching type's initializer, observe
/// one context with ``ManagedObjectContext/addObserver(for:using:)``, or
/// iterate ``ManagedObjectContext/events(for:)`` from Swift concurrency.
public protocol ContextNotification {
    /// The `Sendable` summary the async sequences carry.
    associatedtype Event: Sendable
    /// The notification name.
    static var name: Notification.Name { get }
    /// The typed view, or `nil` if `notification` is of another kind.
    init?(_ notification: Notification)
    /// The `Sendable` summary of this notification.
    var event: Event { get }
}

/// ``ManagedObjectContext/didChangeObjectsNotification``, typed.
public struct ObjectsDidChange: ContextNotification {
    public static var name: Notification.Name { ManagedObjectContext.didChangeObjectsNotification }
    /// The context that posted the notification.
    public let context: ManagedObjectContext
    public let inserted: Set<ManagedObject>
    public let updated: Set<ManagedObject>
    public let deleted: Set<ManagedObject>
    /// Objects refreshed by `refresh(_:mergeChanges:)` or `refreshAllObjects()`.
    public let refreshed: Set<ManagedObject>
    /// Objects that no longer belong to the context.
    public let invalidated: Set<ManagedObject>
    /// The IDs of every object `reset()` invalidated; empty unless the
    /// context was reset. The notification carries them as Core Data does:
    /// an array of object IDs under `invalidatedAll` (`NSInvalidatedAllObjectsKey`).
    public let invalidatedAll: Set<ManagedObjectID>
    /// The objects behind ``invalidatedAll``, for Coherence's own observers,
    /// which receive the change as posted; empty in a view read from a
    /// `Notification`, which carries only the IDs.
    let invalidatedAllObjects: Set<ManagedObject>

    init(context: ManagedObjectContext, inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
         refreshed: Set<ManagedObject>, invalidated: Set<ManagedObject>, invalidatedAll: Set<ManagedObject>) {
        self.init(context: context, inserted: inserted, updated: updated, deleted: deleted, refreshed: refreshed,
                  invalidated: invalidated, invalidatedAll: Set(invalidatedAll.map(\.objectID)), invalidatedAllObjects: invalidatedAll)
    }

    private init(context: ManagedObjectContext, inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
                 refreshed: Set<ManagedObject>, invalidated: Set<ManagedObject>, invalidatedAll: Set<ManagedObjectID>,
                 invalidatedAllObjects: Set<ManagedObject>) {
        self.context = context
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.refreshed = refreshed
        self.invalidated = invalidated
        self.invalidatedAll = invalidatedAll
        self.invalidatedAllObjects = invalidatedAllObjects
    }

    public init?(_ notification: Notification) {
        guard notification.name == Self.name, let context = notification.object as? ManagedObjectContext else { return nil }
        let info = notification.userInfo ?? [:]
        func objects(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObject> {
            info[key.rawValue] as? Set<ManagedObject> ?? []
        }
        let allIDs = info[ManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue] as? [ManagedObjectID] ?? []
        self.init(context: context, inserted: objects(.insertedObjects), updated: objects(.updatedObjects),
                  deleted: objects(.deletedObjects), refreshed: objects(.refreshedObjects),
                  invalidated: objects(.invalidatedObjects), invalidatedAll: Set(allIDs), invalidatedAllObjects: [])
    }

    /// Whether nothing changed.
    var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && invalidatedAll.isEmpty
    }

    /// The notification's userInfo: only the non-empty sets, and for a
    /// reset the array of invalidated object IDs, as Core Data posts them.
    var userInfo: [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        let sets: [(ManagedObjectContext.NotificationKey, Set<ManagedObject>)] = [
            (.insertedObjects, inserted), (.updatedObjects, updated), (.deletedObjects, deleted),
            (.refreshedObjects, refreshed), (.invalidatedObjects, invalidated),
        ]
        for (key, objects) in sets where !objects.isEmpty { info[key.rawValue] = objects }
        if !invalidatedAll.isEmpty {
            info[ManagedObjectContext.NotificationKey.invalidatedAllObjects.rawValue] = Array(invalidatedAll)
        }
        return info
    }

    public var event: ObjectIDChanges {
        ObjectIDChanges(
            inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
            deleted: Set(deleted.map(\.objectID)), refreshed: Set(refreshed.map(\.objectID)),
            invalidated: Set(invalidated.map(\.objectID)).union(invalidatedAll), invalidatedAll: !invalidatedAll.isEmpty)
    }
}

/// ``ManagedObjectContext/willSaveObjectsNotification``, typed.
public struct ContextWillSave: ContextNotification {
    public static var name: Notification.Name { ManagedObjectContext.willSaveObjectsNotification }
    /// The context about to save.
    public let context: ManagedObjectContext

    public init?(_ notification: Notification) {
        guard notification.name == Self.name, let context = notification.object as? ManagedObjectContext else { return nil }
        self.context = context
    }

    /// The context about to save.
    public var event: ManagedObjectContext { context }
}

/// ``ManagedObjectContext/didSaveObjectsNotification``, typed.
public struct ContextDidSave: ContextNotification {
    public static var name: Notification.Name { ManagedObjectContext.didSaveObjectsNotification }
    /// The context that saved.
    public let context: ManagedObjectContext
    public let inserted: Set<ManagedObject>
    public let updated: Set<ManagedObject>
    public let deleted: Set<ManagedObject>
    /// The same changes as object IDs, as `didSaveObjectIDsNotification` carries them.
    public let objectIDs: ObjectIDChanges

    init(context: ManagedObjectContext, inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
         objectIDs: ObjectIDChanges) {
        self.context = context
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.objectIDs = objectIDs
    }

    public init?(_ notification: Notification) {
        guard notification.name == Self.name, let context = notification.object as? ManagedObjectContext else { return nil }
        let info = notification.userInfo ?? [:]
        func objects(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObject> {
            info[key.rawValue] as? Set<ManagedObject> ?? []
        }
        let inserted = objects(.insertedObjects), updated = objects(.updatedObjects), deleted = objects(.deletedObjects)
        self.init(context: context, inserted: inserted, updated: updated, deleted: deleted,
                  objectIDs: ObjectIDChanges(inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                                             deleted: Set(deleted.map(\.objectID))))
    }

    var userInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.NotificationKey.insertedObjects.rawValue: inserted,
            ManagedObjectContext.NotificationKey.updatedObjects.rawValue: updated,
            ManagedObjectContext.NotificationKey.deletedObjects.rawValue: deleted,
        ]
    }

    var objectIDsUserInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: objectIDs.inserted,
            ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: objectIDs.updated,
            ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: objectIDs.deleted,
        ]
    }

    public var event: ObjectIDChanges { objectIDs }
}

/// ``ManagedObjectContext/didMergeChangesObjectIDsNotification``, typed.
public struct ContextDidMergeChanges: ContextNotification {
    public static var name: Notification.Name { ManagedObjectContext.didMergeChangesObjectIDsNotification }
    /// The context that merged.
    public let context: ManagedObjectContext
    /// The merged object IDs: everything the save inserted, updated and
    /// deleted; and of those, the objects registered here that the merge
    /// refreshed (`refreshed`) or found gone from the store (`invalidated`).
    public let objectIDs: ObjectIDChanges

    init(context: ManagedObjectContext, objectIDs: ObjectIDChanges) {
        self.context = context
        self.objectIDs = objectIDs
    }

    public init?(_ notification: Notification) {
        guard notification.name == Self.name, let context = notification.object as? ManagedObjectContext else { return nil }
        let info = notification.userInfo ?? [:]
        func ids(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObjectID> {
            info[key.rawValue] as? Set<ManagedObjectID> ?? []
        }
        self.init(context: context, objectIDs: ObjectIDChanges(
            inserted: ids(.insertedObjectIDs), updated: ids(.updatedObjectIDs), deleted: ids(.deletedObjectIDs),
            refreshed: ids(.refreshedObjectIDs), invalidated: ids(.invalidatedObjectIDs)))
    }

    /// The IDs of the inserted, updated, deleted, refreshed and invalidated
    /// objects, as Core Data's didMergeChangesObjectIDs carries them.
    var userInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: objectIDs.inserted,
            ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: objectIDs.updated,
            ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: objectIDs.deleted,
            ManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue: objectIDs.refreshed,
            ManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue: objectIDs.invalidated,
        ]
    }

    /// The IDs of a didSaveObjectIDs notification.
    static func objectIDs(inSaveNotification notification: Notification) -> ObjectIDChanges? {
        guard let info = notification.userInfo else { return nil }
        func ids(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObjectID> {
            info[key.rawValue] as? Set<ManagedObjectID> ?? []
        }
        return ObjectIDChanges(inserted: ids(.insertedObjectIDs), updated: ids(.updatedObjectIDs), deleted: ids(.deletedObjectIDs))
    }

    public var event: ObjectIDChanges { objectIDs }
}
