/// The kind of a persistent store, as Core Data's `NSPersistentStore.StoreType`
/// names it; its raw value is the type string of Core Data's older API
/// (``SQLiteStoreType``, ``InMemoryStoreType``) and of ``PersistentStore/type``.
///
/// ```swift
/// try coordinator.addPersistentStore(type: .sqlite, at: url)
/// ```
public struct PersistentStoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type string, such as `"SQLite"`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An SQLite file (``SQLiteStore``).
    public static let sqlite = PersistentStoreType(rawValue: "SQLite")
    /// Rows in memory (``InMemoryStore``), gone with the coordinator.
    public static let inMemory = PersistentStoreType(rawValue: "InMemory")

    public var description: String { rawValue }
}

extension PersistentStore {
    /// Core Data's spelling of ``PersistentStoreType``:
    /// `PersistentStore.StoreType.sqlite` as `NSPersistentStore.StoreType.sqlite`.
    public typealias StoreType = PersistentStoreType
}

/// The type string of an SQLite store, for ``PersistentStoreDescription/type``
/// (Core Data's `NSSQLiteStoreType`).
public let SQLiteStoreType = PersistentStoreType.sqlite.rawValue

/// The type string of an in-memory store, for ``PersistentStoreDescription/type``
/// (Core Data's `NSInMemoryStoreType`).
public let InMemoryStoreType = PersistentStoreType.inMemory.rawValue
