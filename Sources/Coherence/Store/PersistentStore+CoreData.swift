import Foundation

/// Core Data's `NSStoreTypeKey`: the store's type in its metadata.
/// <https://developer.apple.com/documentation/coredata/nsstoretypekey>
public let NSStoreTypeKey = "NSStoreType"

extension PersistentStore {
    /// The store's location, as Core Data's `NSPersistentStore.url`: the
    /// SQLite file (`/dev/null` for one in memory), the PostgreSQL server,
    /// database and schema without the password; `nil` for the in-memory
    /// store.
    public var url: URL? {
        (self as? any PersistentHistoryStore)?.locationURL
    }

    /// The store's metadata, as Core Data's `NSPersistentStore.metadata`:
    /// its identifier under ``NSStoreUUIDKey`` and its type under
    /// ``NSStoreTypeKey``.
    /// <https://developer.apple.com/documentation/coredata/nspersistentstore/metadata>
    public var metadata: [String: Any] {
        [NSStoreUUIDKey: identifier, NSStoreTypeKey: type]
    }
}
