import Foundation

/// Which store a ``PersistentContainer`` or ``PersistentStoreCoordinator`` loads.
public struct PersistentStoreDescription: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of store Coherence provides.
    public enum Kind: Sendable, Hashable {
        /// Rows in memory, gone when the coordinator is.
        case inMemory
    }

    /// The kind of store.
    public var kind: Kind

    /// A store kept in memory.
    public static var inMemory: PersistentStoreDescription { PersistentStoreDescription(kind: .inMemory) }

    public var description: String {
        switch kind {
        case .inMemory: "in-memory store"
        }
    }
}
