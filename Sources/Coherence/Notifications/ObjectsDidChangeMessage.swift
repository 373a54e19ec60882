import Foundation

extension ManagedObjectContext {
    /// ``ManagedObjectContext/didChangeObjectsNotification``, typed: the
    /// objects a context inserted, updated, deleted, refreshed or invalidated
    /// since its last one, as Core Data's `NSManagedObjectContext.ObjectsDidChangeMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/objectsdidchangemessage).
    ///
    /// A `NotificationCenter.MainActorMessage`. A main-queue context posts it
    /// on `NotificationCenter.default` in the same moment as the
    /// notification, on the main actor, so that Core Data's code ports:
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: viewContext, for: .objectsDidChange) { message in
    ///     reload(message.updated)
    /// }
    /// ```
    ///
    /// As in Core Data, only main-queue contexts post it: there is no
    /// asynchronous form, since it carries the objects themselves. For any
    /// context (private-queue ones included), observe it with
    /// ``ManagedObjectContext/addObserver(for:using:)``, which calls the
    /// handler on the context's queue, or read a posted notification with
    /// ``makeMessage(_:)``.
    public struct ObjectsDidChangeMessage: ContextNotification {
        /// `didChangeObjectsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.didChangeObjectsNotification }
        /// The context that posted the message.
        public let context: ManagedObjectContext
        /// Objects that were inserted.
        public let inserted: Set<ManagedObject>
        /// Objects that were updated.
        public let updated: Set<ManagedObject>
        /// Objects that were deleted.
        public let deleted: Set<ManagedObject>
        /// Objects refreshed by `refresh(_:mergeChanges:)`, `refreshAllObjects()` or a merge.
        public let refreshed: Set<ManagedObject>
        /// Objects that no longer belong to the context.
        public let invalidated: Set<ManagedObject>
        /// The IDs of every object `reset()` invalidated; empty unless the
        /// context was reset. The notification carries them as Core Data
        /// does: an array of object IDs under `invalidatedAll`
        /// (`NSInvalidatedAllObjectsKey`). Coherence's addition to Core
        /// Data's message, which has only ``invalidatedAll``.
        public let invalidatedAllIDs: Set<ManagedObjectID>
        /// The objects behind ``invalidatedAllIDs``, for Coherence's own
        /// observers, which receive the change as posted; empty in a message
        /// made from a `Notification`, which carries only the IDs.
        let invalidatedAllObjects: Set<ManagedObject>

        /// `true` if all objects in the context were invalidated (by
        /// `reset()`), `nil` otherwise, as Core Data's `invalidatedAll`.
        public var invalidatedAll: Bool? { invalidatedAllIDs.isEmpty ? nil : true }

        init(context: ManagedObjectContext, inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
             refreshed: Set<ManagedObject>, invalidated: Set<ManagedObject>, invalidatedAll: Set<ManagedObject>) {
            self.init(context: context, inserted: inserted, updated: updated, deleted: deleted, refreshed: refreshed,
                      invalidated: invalidated, invalidatedAllIDs: Set(invalidatedAll.map(\.objectID)), invalidatedAllObjects: invalidatedAll)
        }

        private init(context: ManagedObjectContext, inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
                     refreshed: Set<ManagedObject>, invalidated: Set<ManagedObject>, invalidatedAllIDs: Set<ManagedObjectID>,
                     invalidatedAllObjects: Set<ManagedObject>) {
            self.context = context
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
            self.refreshed = refreshed
            self.invalidated = invalidated
            self.invalidatedAllIDs = invalidatedAllIDs
            self.invalidatedAllObjects = invalidatedAllObjects
        }

        /// The message of a posted didChangeObjects notification, or `nil`
        /// for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            let allIDs = notification.userInfo?[NotificationKey.invalidatedAllObjects.rawValue] as? [ManagedObjectID] ?? []
            return Self(context: context, inserted: notification.managedObjects(.insertedObjects),
                        updated: notification.managedObjects(.updatedObjects), deleted: notification.managedObjects(.deletedObjects),
                        refreshed: notification.managedObjects(.refreshedObjects), invalidated: notification.managedObjects(.invalidatedObjects),
                        invalidatedAllIDs: Set(allIDs), invalidatedAllObjects: [])
        }

        /// The didChangeObjects notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.userInfo)
        }

        /// Whether nothing changed.
        var isEmpty: Bool {
            inserted.isEmpty && updated.isEmpty && deleted.isEmpty && refreshed.isEmpty && invalidated.isEmpty && invalidatedAllIDs.isEmpty
        }

        /// The notification's userInfo: only the non-empty sets, and for a
        /// reset the array of invalidated object IDs, as Core Data posts them.
        var userInfo: [AnyHashable: Any] {
            var info: [AnyHashable: Any] = [:]
            let sets: [(NotificationKey, Set<ManagedObject>)] = [
                (.insertedObjects, inserted), (.updatedObjects, updated), (.deletedObjects, deleted),
                (.refreshedObjects, refreshed), (.invalidatedObjects, invalidated),
            ]
            for (key, objects) in sets where !objects.isEmpty { info[key.rawValue] = objects }
            if !invalidatedAllIDs.isEmpty {
                info[NotificationKey.invalidatedAllObjects.rawValue] = Array(invalidatedAllIDs)
            }
            return info
        }

        /// The same changes as object IDs.
        public var event: ObjectIDChanges {
            ObjectIDChanges(
                inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                deleted: Set(deleted.map(\.objectID)), refreshed: Set(refreshed.map(\.objectID)),
                invalidated: Set(invalidated.map(\.objectID)).union(invalidatedAllIDs), invalidatedAll: !invalidatedAllIDs.isEmpty)
        }
    }
}
