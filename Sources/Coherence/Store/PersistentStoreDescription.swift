import Foundation

/// Which store a ``PersistentContainer`` or ``PersistentStoreCoordinator`` loads.
public struct PersistentStoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of store Coherence provides.
    public enum Kind: Sendable, Hashable {
        /// An SQLite file (``SQLiteStore``): the default.
        case sqlite(URL)
        /// Rows in memory (``InMemoryStore``), gone when the coordinator is.
        case inMemory
    }

    /// The kind of store.
    public var kind: Kind

    public init(kind: Kind) {
        self.kind = kind
    }

    /// An SQLite store in the file at `url` (created if missing).
    public static func sqlite(_ url: URL) -> PersistentStoreDescription { PersistentStoreDescription(kind: .sqlite(url)) }

    /// A store kept in memory.
    public static var inMemory: PersistentStoreDescription { PersistentStoreDescription(kind: .inMemory) }

    /// The file of an SQLite store, `nil` for an in-memory one.
    public var url: URL? {
        if case .sqlite(let url) = kind { return url }
        return nil
    }

    public var description: String {
        switch kind {
        case .sqlite(let url): "SQLite store at \(url.path)"
        case .inMemory: "in-memory store"
        }
    }
}
