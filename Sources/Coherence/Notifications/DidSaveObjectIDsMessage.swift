import Foundation

extension ManagedObjectContext {
    /// ``ManagedObjectContext/didSaveObjectIDsNotification``, typed: the IDs
    /// of the saved objects, as Core Data's `NSManagedObjectContext.DidSaveObjectIDsMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsaveobjectidsmessage).
    ///
    /// A `NotificationCenter.MainActorMessage`, posted on
    /// `NotificationCenter.default` by main-queue contexts after their
    /// ``DidSaveMessage``, in the same moment as the notification. For
    /// private-queue contexts, observe ``DidSaveObjectIDsAsyncMessage``.
    public struct DidSaveObjectIDsMessage: ContextNotification {
        /// `didSaveObjectIDsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.didSaveObjectIDsNotification }
        /// The context that saved.
        public let context: ManagedObjectContext
        /// The saved object IDs, as Coherence's `Sendable` summary.
        public let objectIDs: ObjectIDChanges

        /// IDs of the objects inserted by this save.
        public var insertedIDs: Set<ManagedObjectID> { objectIDs.inserted }
        /// IDs of the objects updated by this save.
        public var updatedIDs: Set<ManagedObjectID> { objectIDs.updated }
        /// IDs of the objects deleted by this save.
        public var deletedIDs: Set<ManagedObjectID> { objectIDs.deleted }
        /// IDs of the objects invalidated by this save: always empty, since a
        /// Coherence save invalidates no object.
        public var invalidatedIDs: Set<ManagedObjectID> { objectIDs.invalidated }
        /// Core Data's persistent history token after the save. Always `nil`:
        /// Coherence keeps persistent history but does not attach its token
        /// to these messages; read it with `currentPersistentHistoryToken(fromStores:)`.
        public var historyToken: Never? { nil }

        init(context: ManagedObjectContext, objectIDs: ObjectIDChanges) {
            self.context = context
            self.objectIDs = objectIDs
        }

        /// The message of a posted didSaveObjectIDs notification, or `nil`
        /// for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            return Self(context: context, objectIDs: notification.savedObjectIDs)
        }

        /// The didSaveObjectIDs notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.objectIDs.savedUserInfo)
        }

        /// The saved object IDs.
        public var event: ObjectIDChanges { objectIDs }
    }

    /// ``DidSaveObjectIDsMessage`` for private-queue contexts, as Core Data's
    /// `NSManagedObjectContext.DidSaveObjectIDsAsyncMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsaveobjectidsasyncmessage).
    ///
    /// A `NotificationCenter.AsyncMessage`: a private-queue context posts it
    /// on `NotificationCenter.default` when it posts didSaveObjectIDs, and
    /// Foundation calls its observers asynchronously, on no particular queue,
    /// after the save returned:
    ///
    /// ```swift
    /// let token = NotificationCenter.default.addObserver(of: background, for: .didSaveObjectIDsAsync) { message in
    ///     await viewContext.perform { viewContext.mergeChanges(fromContextDidSave: message.objectIDs) }
    /// }
    /// ```
    public struct DidSaveObjectIDsAsyncMessage: ContextNotification, Sendable {
        /// `didSaveObjectIDsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.didSaveObjectIDsNotification }
        /// The context that saved. Use it only in its `perform` blocks.
        public let context: ManagedObjectContext
        /// The saved object IDs, as Coherence's `Sendable` summary.
        public let objectIDs: ObjectIDChanges

        /// IDs of the objects inserted by this save.
        public var insertedIDs: Set<ManagedObjectID> { objectIDs.inserted }
        /// IDs of the objects updated by this save.
        public var updatedIDs: Set<ManagedObjectID> { objectIDs.updated }
        /// IDs of the objects deleted by this save.
        public var deletedIDs: Set<ManagedObjectID> { objectIDs.deleted }
        /// IDs of the objects invalidated by this save: always empty, since a
        /// Coherence save invalidates no object.
        public var invalidatedIDs: Set<ManagedObjectID> { objectIDs.invalidated }
        /// Core Data's persistent history token after the save. Always `nil`:
        /// Coherence keeps persistent history but does not attach its token
        /// to these messages; read it with `currentPersistentHistoryToken(fromStores:)`.
        public var historyToken: Never? { nil }

        /// The message of a posted didSaveObjectIDs notification, or `nil`
        /// for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            return Self(context: context, objectIDs: notification.savedObjectIDs)
        }

        /// The didSaveObjectIDs notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.objectIDs.savedUserInfo)
        }

        /// The saved object IDs.
        public var event: ObjectIDChanges { objectIDs }
    }
}

extension Notification {
    /// The IDs of a didSaveObjectIDs notification.
    var savedObjectIDs: ObjectIDChanges {
        ObjectIDChanges(inserted: objectIDs(.insertedObjectIDs), updated: objectIDs(.updatedObjectIDs),
                        deleted: objectIDs(.deletedObjectIDs), invalidated: objectIDs(.invalidatedObjectIDs))
    }
}

extension ObjectIDChanges {
    /// The userInfo of a didSaveObjectIDs notification with these IDs.
    var savedUserInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: inserted,
            ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: updated,
            ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: deleted,
        ]
    }
}
