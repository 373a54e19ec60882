import Foundation

/// The store option that turns persistent history on, Core Data's
/// `NSPersistentHistoryTrackingKey`, so that Core Data code ports unchanged:
///
/// ```swift
/// description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
/// ```
///
/// ``PersistentStoreDescription/persistentHistoryTracking`` is the same option
/// as a typed property.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorytrackingkey>
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

extension PersistentStoreDescription {
    /// Whether the store keeps persistent history: every save and every batch
    /// request writes one ``PersistentHistoryTransaction`` in its own database
    /// transaction, which ``PersistentHistoryChangeRequest`` reads. The
    /// option ``NSPersistentHistoryTrackingKey``; `false` by default. The
    /// SQLite and PostgreSQL stores keep history; the in-memory store does not
    /// (history requests on it throw ``PersistentHistoryError/notSupported(storeType:)``).
    ///
    /// Once a store keeps history, it keeps it for every writer, whether or
    /// not they ask for it, so that no other process misses a change.
    public var persistentHistoryTracking: Bool {
        get { (options[NSPersistentHistoryTrackingKey] as? NSNumber)?.boolValue ?? false }
        set { setOption(NSNumber(value: newValue), forKey: NSPersistentHistoryTrackingKey) }
    }
}

/// A store that keeps persistent history (the SQL stores): what the
/// coordinator asks of it.
package protocol PersistentHistoryStore: PersistentStore {
    /// Whether the store was loaded with history tracking on.
    var tracksPersistentHistory: Bool { get }
    /// Runs a history request.
    func executeHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult
    /// The token of the store's last transaction.
    func currentPersistentHistoryToken() throws -> PersistentHistoryToken
    /// A batch request, recorded in history under `author` and `contextName`.
    func execute(_ request: StoreBatchRequest, author: String?, contextName: String?) throws -> StoreBatchResult?
    /// The store's location, for ``NSPersistentStoreURLKey``.
    var locationURL: URL { get }
    /// Starts reporting the transactions other writers commit from now on
    /// (see `SQLStore.startWatchingRemoteChanges`); does nothing when the
    /// store is watched already.
    func startWatchingRemoteChanges(wantsTransactions: @escaping @Sendable () -> Bool,
                                    handler: @escaping @Sendable (RemoteChanges) -> Void) throws
    /// Stops reporting other writers' transactions.
    func stopWatchingRemoteChanges()
}
