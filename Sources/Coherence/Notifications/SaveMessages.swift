import Foundation

extension ManagedObjectContext {
    /// ``ManagedObjectContext/willSaveObjectsNotification``, typed, as Core
    /// Data's `NSManagedObjectContext.WillSaveMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/willsavemessage).
    ///
    /// A `NotificationCenter.MainActorMessage`, posted on
    /// `NotificationCenter.default` by main-queue contexts at the start of
    /// every save, in the same moment as the notification: its observers may
    /// still change what is saved. As in Core Data there is no asynchronous
    /// form (an observer called later could not take part in the save); for
    /// a private-queue context, use ``ManagedObjectContext/addObserver(for:using:)``.
    public struct WillSaveMessage: ContextNotification {
        /// `willSaveObjectsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.willSaveObjectsNotification }
        /// The context about to save.
        public let context: ManagedObjectContext

        /// The message of a posted willSave notification, or `nil` for any
        /// other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            notification.context(named: name).map(Self.init(context:))
        }

        /// The willSave notification of `message`: no userInfo, as Core Data's.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context)
        }

        /// The context about to save.
        public var event: ManagedObjectContext { context }
    }

    /// ``ManagedObjectContext/didSaveObjectsNotification``, typed: the saved
    /// objects, as Core Data's `NSManagedObjectContext.DidSaveMessage`
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsavemessage).
    ///
    /// A `NotificationCenter.MainActorMessage`, posted on
    /// `NotificationCenter.default` by main-queue contexts after the store
    /// committed, in the same moment as the notification. A private-queue
    /// context's saves are announced asynchronously by
    /// ``DidSaveObjectIDsAsyncMessage``, which carries object IDs.
    public struct DidSaveMessage: ContextNotification {
        /// `didSaveObjectsNotification`, which this message corresponds to.
        public static var name: Notification.Name { ManagedObjectContext.didSaveObjectsNotification }
        /// The context that saved.
        public let context: ManagedObjectContext
        /// Objects inserted by this save; they already have permanent IDs.
        public let inserted: Set<ManagedObject>
        /// Objects updated by this save.
        public let updated: Set<ManagedObject>
        /// Objects deleted by this save.
        public let deleted: Set<ManagedObject>
        /// The same changes as object IDs, as ``DidSaveObjectIDsMessage``
        /// carries them: Coherence's `Sendable` summary.
        public let objectIDs: ObjectIDChanges

        /// The persistent history token of the transaction this save
        /// recorded, when the store keeps history
        /// (``PersistentStoreDescription/persistentHistoryTracking``); `nil`
        /// otherwise, and for a nested context's save into its parent. The
        /// notification carries it under ``NSPersistentHistoryTokenKey`` and
        /// Core Data's `newChangeToken`.
        public let historyToken: PersistentHistoryToken?
        /// Core Data's query generation token after the save. Always `nil`:
        /// Coherence's contexts are not pinned to query generations.
        public var queryGeneration: Never? { nil }

        init(context: ManagedObjectContext, inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
             objectIDs: ObjectIDChanges, historyToken: PersistentHistoryToken? = nil) {
            self.context = context
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
            self.objectIDs = objectIDs
            self.historyToken = historyToken
        }

        /// The message of a posted didSave notification, or `nil` for any
        /// other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            let inserted = notification.managedObjects(.insertedObjects), updated = notification.managedObjects(.updatedObjects)
            let deleted = notification.managedObjects(.deletedObjects)
            return Self(context: context, inserted: inserted, updated: updated, deleted: deleted,
                        objectIDs: ObjectIDChanges(inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                                                   deleted: Set(deleted.map(\.objectID))),
                        historyToken: notification.historyToken)
        }

        /// The didSave notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.userInfo)
        }

        var userInfo: [AnyHashable: Any] {
            var userInfo: [AnyHashable: Any] = [
                NotificationKey.insertedObjects.rawValue: inserted,
                NotificationKey.updatedObjects.rawValue: updated,
                NotificationKey.deletedObjects.rawValue: deleted,
            ]
            userInfo.addHistoryToken(historyToken)
            return userInfo
        }

        /// The userInfo of the didSaveObjectIDs notification that follows.
        var objectIDsUserInfo: [AnyHashable: Any] { objectIDs.savedUserInfo(historyToken: historyToken) }

        /// The saved object IDs.
        public var event: ObjectIDChanges { objectIDs }
    }
}
