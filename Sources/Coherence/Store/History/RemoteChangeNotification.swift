import Foundation

/// The store option that makes a coordinator post
/// `Notification.Name.NSPersistentStoreRemoteChange` for every commit to
/// the store, Core Data's key, so that Core Data code ports
/// unchanged:
///
/// ```swift
/// description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
/// ```
///
/// ``PersistentStoreDescription/postsRemoteChangeNotifications`` is the
/// same option as a typed property.
/// <https://developer.apple.com/documentation/coredata/nspersistentstoreremotechangenotificationpostoptionkey>
public let NSPersistentStoreRemoteChangeNotificationPostOptionKey = "NSPersistentStoreRemoteChangeNotificationOptionKey"

/// The userInfo key of a remote-change notification's store identifier
/// (a `String`), as Core Data's.
/// <https://developer.apple.com/documentation/coredata/nsstoreuuidkey>
public let NSStoreUUIDKey = "NSStoreUUID"

/// The userInfo key of a remote-change notification's store URL (a `URL`:
/// the SQLite file; for PostgreSQL, the server, database and schema
/// without the password), as Core Data's.
/// <https://developer.apple.com/documentation/coredata/nspersistentstoreurlkey>
public let NSPersistentStoreURLKey = "storeURL"

/// The userInfo key of a remote-change notification's history token (a
/// ``PersistentHistoryToken``: the last transaction committed to the
/// store), as Core Data's.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorytokenkey>
public let NSPersistentHistoryTokenKey = "historyToken"

extension Notification.Name {
    /// Posted by a ``PersistentStoreCoordinator`` (the notification's
    /// object) after a save or batch request committed to one of its stores,
    /// "for every write to the store, including writes by other processes",
    /// as Apple documents: this coordinator's own saves, another coordinator
    /// in this process, another process on the same SQLite file, another
    /// process or machine on the same PostgreSQL database. userInfo holds
    /// ``NSStoreUUIDKey``, ``NSPersistentStoreURLKey`` and
    /// ``NSPersistentHistoryTokenKey``.
    ///
    /// Posted only for stores loaded with
    /// ``PersistentStoreDescription/postsRemoteChangeNotifications``, on a
    /// private thread, as Core Data posts it: move to your context's queue
    /// before doing any work. Several transactions committed in quick
    /// succession may be announced by one notification, whose token is the
    /// last one's; fetch the history after the last token you processed to
    /// get them all.
    ///
    /// ``ManagedObjectContext/automaticallyMergesRemoteChanges`` merges only
    /// other writers' transactions: the coordinator's own saves reach its
    /// contexts through didSave, and are not merged twice.
    /// <https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstoreremotechange>
    public static let NSPersistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

extension PersistentStoreDescription {
    /// Whether the coordinator posts `NSPersistentStoreRemoteChange` for
    /// every commit to the store (its own saves and other writers'): the option
    /// ``NSPersistentStoreRemoteChangeNotificationPostOptionKey``; `false` by
    /// default. Coherence learns who saved what from the store's persistent
    /// history, so this option turns history tracking on too (Core Data can
    /// post without history, with no token).
    ///
    /// How a commit is noticed: for SQLite, an inotify watch on the
    /// database's directory (its file and `-wal` file), confirmed with
    /// `PRAGMA data_version` (on systems without inotify, `data_version` is
    /// checked every 100 ms); for PostgreSQL, `LISTEN` on one connection per
    /// store, which every save's `NOTIFY` reaches when it commits.
    public var postsRemoteChangeNotifications: Bool {
        get { (options[NSPersistentStoreRemoteChangeNotificationPostOptionKey] as? NSNumber)?.boolValue ?? false }
        set { setOption(NSNumber(value: newValue), forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey) }
    }

    /// Whether the store must keep persistent history: asked for, or needed
    /// by remote-change notifications.
    package var keepsPersistentHistory: Bool {
        persistentHistoryTracking || postsRemoteChangeNotifications
    }
}
