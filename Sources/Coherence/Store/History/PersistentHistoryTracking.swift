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
    /// Every coordinator that writes to a store should turn it on: saves of a
    /// coordinator that loaded the store without it write no history.
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
}
