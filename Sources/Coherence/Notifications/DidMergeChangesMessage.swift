import Foundation

extension ManagedObjectContext {
    /// ``ManagedObjectContext/didMergeChangesObjectIDsNotification``, typed:
    /// what a main-queue context merged from a save elsewhere, as Core Data's
    /// `NSManagedObjectContext.DidMergeChangesMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didmergechangesmessage).
    ///
    /// A `NotificationCenter.MainActorMessage`, posted on
    /// `NotificationCenter.default` by main-queue contexts after the merge's
    /// didChangeObjects, in the same moment as the notification. For
    /// private-queue contexts, observe ``DidMergeChangesAsyncMessage``.
    public struct DidMergeChangesMessage: ContextNotification {
        /// `didMergeChangesObjectIDsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.didMergeChangesObjectIDsNotification }
        /// The context that merged.
        public let context: ManagedObjectContext
        /// The merged object IDs: everything the save inserted, updated and
        /// deleted; and of those, the objects registered here that the merge
        /// refreshed (`refreshed`) or found gone from the store (`invalidated`).
        public let objectIDs: ObjectIDChanges

        /// IDs of the objects inserted by the merged save.
        public var insertedIDs: Set<ManagedObjectID> { objectIDs.inserted }
        /// IDs of the objects updated by the merged save.
        public var updatedIDs: Set<ManagedObjectID> { objectIDs.updated }
        /// IDs of the objects deleted by the merged save.
        public var deletedIDs: Set<ManagedObjectID> { objectIDs.deleted }
        /// IDs of the objects registered here that the merge refreshed.
        public var refreshedIDs: Set<ManagedObjectID> { objectIDs.refreshed }
        /// IDs of the objects registered here that the merge found gone from the store.
        public var invalidatedIDs: Set<ManagedObjectID> { objectIDs.invalidated }
        /// Core Data's persistent history token of the merged changes. Always
        /// `nil`: Coherence keeps persistent history but does not attach its
        /// token to these messages.
        public var historyToken: Never? { nil }

        init(context: ManagedObjectContext, objectIDs: ObjectIDChanges) {
            self.context = context
            self.objectIDs = objectIDs
        }

        /// The message of a posted didMergeChangesObjectIDs notification, or
        /// `nil` for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            return Self(context: context, objectIDs: notification.mergedObjectIDs)
        }

        /// The didMergeChangesObjectIDs notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.objectIDs.mergedUserInfo)
        }

        /// The IDs of the inserted, updated, deleted, refreshed and invalidated
        /// objects, as Core Data's didMergeChangesObjectIDs carries them.
        var userInfo: [AnyHashable: Any] { objectIDs.mergedUserInfo }

        /// The merged object IDs.
        public var event: ObjectIDChanges { objectIDs }
    }

    /// ``DidMergeChangesMessage`` for private-queue contexts, as Core Data's
    /// `NSManagedObjectContext.DidMergeChangesAsyncMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didmergechangesasyncmessage).
    ///
    /// A `NotificationCenter.AsyncMessage`: a private-queue context posts it
    /// on `NotificationCenter.default` when it posts didMergeChangesObjectIDs,
    /// and Foundation calls its observers asynchronously, on no particular
    /// queue, after the merge.
    public struct DidMergeChangesAsyncMessage: ContextNotification, Sendable {
        /// `didMergeChangesObjectIDsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.didMergeChangesObjectIDsNotification }
        /// The context that merged. Use it only in its `perform` blocks.
        public let context: ManagedObjectContext
        /// The merged object IDs, as in ``DidMergeChangesMessage/objectIDs``.
        public let objectIDs: ObjectIDChanges

        /// IDs of the objects inserted by the merged save.
        public var insertedIDs: Set<ManagedObjectID> { objectIDs.inserted }
        /// IDs of the objects updated by the merged save.
        public var updatedIDs: Set<ManagedObjectID> { objectIDs.updated }
        /// IDs of the objects deleted by the merged save.
        public var deletedIDs: Set<ManagedObjectID> { objectIDs.deleted }
        /// IDs of the objects registered in the context that the merge refreshed.
        public var refreshedIDs: Set<ManagedObjectID> { objectIDs.refreshed }
        /// IDs of the objects registered in the context that the merge found gone from the store.
        public var invalidatedIDs: Set<ManagedObjectID> { objectIDs.invalidated }
        /// Core Data's persistent history token of the merged changes. Always
        /// `nil`: Coherence keeps persistent history but does not attach its
        /// token to these messages.
        public var historyToken: Never? { nil }

        /// The message of a posted didMergeChangesObjectIDs notification, or
        /// `nil` for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            return Self(context: context, objectIDs: notification.mergedObjectIDs)
        }

        /// The didMergeChangesObjectIDs notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.objectIDs.mergedUserInfo)
        }

        /// The merged object IDs.
        public var event: ObjectIDChanges { objectIDs }
    }
}

extension Notification {
    /// The IDs of a didMergeChangesObjectIDs notification.
    var mergedObjectIDs: ObjectIDChanges {
        ObjectIDChanges(inserted: objectIDs(.insertedObjectIDs), updated: objectIDs(.updatedObjectIDs), deleted: objectIDs(.deletedObjectIDs),
                        refreshed: objectIDs(.refreshedObjectIDs), invalidated: objectIDs(.invalidatedObjectIDs))
    }
}

extension ObjectIDChanges {
    /// The userInfo of a didMergeChangesObjectIDs notification with these IDs.
    var mergedUserInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: inserted,
            ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: updated,
            ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: deleted,
            ManagedObjectContext.NotificationKey.refreshedObjectIDs.rawValue: refreshed,
            ManagedObjectContext.NotificationKey.invalidatedObjectIDs.rawValue: invalidated,
        ]
    }
}
