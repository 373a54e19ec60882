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
        /// The persistent history token of the transaction this save
        /// recorded, when the store keeps history; `nil` otherwise.
        public let historyToken: PersistentHistoryToken?

        init(context: ManagedObjectContext, objectIDs: ObjectIDChanges, historyToken: PersistentHistoryToken? = nil) {
            self.context = context
            self.objectIDs = objectIDs
            self.historyToken = historyToken
        }

        /// The message of a posted didSaveObjectIDs notification, or `nil`
        /// for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            return Self(context: context, objectIDs: notification.savedObjectIDs, historyToken: notification.historyToken)
        }

        /// The didSaveObjectIDs notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.objectIDs.savedUserInfo(historyToken: message.historyToken))
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
        /// The persistent history token of the transaction this save
        /// recorded, when the store keeps history; `nil` otherwise.
        public let historyToken: PersistentHistoryToken?

        /// The message of a posted didSaveObjectIDs notification, or `nil`
        /// for any other notification.
        public static func makeMessage(_ notification: Notification) -> Self? {
            guard let context = notification.context(named: name) else { return nil }
            return Self(context: context, objectIDs: notification.savedObjectIDs, historyToken: notification.historyToken)
        }

        /// The didSaveObjectIDs notification of `message`, as the context posts it.
        public static func makeNotification(_ message: Self) -> Notification {
            Notification(name: name, object: message.context, userInfo: message.objectIDs.savedUserInfo(historyToken: message.historyToken))
        }

        /// The saved object IDs.
        public var event: ObjectIDChanges { objectIDs }
    }
}

/// Core Data's didSave userInfo key of the save's persistent history token
/// (an `NSPersistentHistoryToken`); Coherence also puts it under
/// ``NSPersistentHistoryTokenKey``.
let newChangeTokenKey = "newChangeToken"

extension Dictionary where Key == AnyHashable, Value == Any {
    /// Adds a save's history token under both keys Core Data code reads.
    mutating func addHistoryToken(_ token: PersistentHistoryToken?) {
        guard let token else { return }
        self[newChangeTokenKey] = token
        self[NSPersistentHistoryTokenKey] = token
    }
}

extension Notification {
    /// The history token of a didSave or didSaveObjectIDs notification.
    var historyToken: PersistentHistoryToken? {
        (userInfo?[newChangeTokenKey] ?? userInfo?[NSPersistentHistoryTokenKey]) as? PersistentHistoryToken
    }

    /// The IDs of a didSaveObjectIDs notification.
    var savedObjectIDs: ObjectIDChanges {
        ObjectIDChanges(inserted: objectIDs(.insertedObjectIDs), updated: objectIDs(.updatedObjectIDs),
                        deleted: objectIDs(.deletedObjectIDs), invalidated: objectIDs(.invalidatedObjectIDs))
    }
}

extension ObjectIDChanges {
    /// The userInfo of a didSaveObjectIDs notification with these IDs and
    /// the save's history token.
    func savedUserInfo(historyToken: PersistentHistoryToken?) -> [AnyHashable: Any] {
        var userInfo = savedUserInfo
        userInfo.addHistoryToken(historyToken)
        return userInfo
    }

    /// The userInfo of a didSaveObjectIDs notification with these IDs.
    var savedUserInfo: [AnyHashable: Any] {
        [
            ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: inserted,
            ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: updated,
            ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: deleted,
        ]
    }
}
