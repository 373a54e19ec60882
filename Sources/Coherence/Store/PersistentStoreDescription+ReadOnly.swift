import Foundation

/// Core Data's option that opens a store read-only
/// (`NSReadOnlyPersistentStoreOption`); with
/// ``PersistentStoreDescription/isReadOnly``.
/// <https://developer.apple.com/documentation/coredata/nsreadonlypersistentstoreoption>
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"

extension PersistentStoreDescription {
    /// Whether the store is opened read-only, as Core Data's `isReadOnly`
    /// (``NSReadOnlyPersistentStoreOption``; `false` by default). An SQLite
    /// store then opens an existing file without writing to it (so a file
    /// on a read-only file system or without write permission opens), with
    /// no migration (a file saved with another model is refused with
    /// ``StoreError/incompatibleModel(reason:)``), and every save, batch
    /// request or history deletion throws ``StoreError/readOnlyStore(path:reason:)``.
    /// A missing file throws the same error: there is nothing to read.
    /// <https://developer.apple.com/documentation/coredata/nspersistentstoredescription/isreadonly>
    public var isReadOnly: Bool {
        get { (options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue ?? false }
        set { setOption(NSNumber(value: newValue), forKey: NSReadOnlyPersistentStoreOption) }
    }
}

/// The connections of a store opened read-only: reads go to `base`, every
/// write throws ``StoreError/readOnlyStore(path:reason:)``.
struct ReadOnlyConnections: SQLConnections {
    let base: any SQLConnections
    let location: String

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try base.read(body)
    }

    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        throw StoreError.readOnlyStore(path: location, reason: "it was opened read-only (NSReadOnlyPersistentStoreOption), so nothing can be saved")
    }
}
