import Foundation

/// A migration's derived values are recomputed after the migration
/// commits, once the store exists (the recomputation names objects by the
/// store's identifier). A metadata marker written in the migration's own
/// transaction and removed with the recomputation makes an open killed
/// between the two finish the job at the next open, instead of leaving
/// derived values that no later open would recompute (the kill campaign's
/// migration kills check it).
extension SQLStore {
    /// The metadata key present from a migration's commit until its derived
    /// values are recomputed.
    static let derivedPendingKey = "derivedValuesPending"

    static func markDerivedPending(in db: any SQLDatabase) throws {
        try db.execute("INSERT INTO \(SQLSchema.metadataTable) (key, value) VALUES ('\(derivedPendingKey)', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                       [.string("1")])
    }

    static func derivedArePending(in db: any SQLDatabase) throws -> Bool {
        try db.string("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = '\(derivedPendingKey)'") != nil
    }

    /// Recomputes every derived value and removes the marker, in one
    /// transaction.
    func finishPendingDerivations() throws {
        try Self.retryingDeadlocks { try connections.write { db in
            try recomputeAllDerived(in: db)
            try db.execute("DELETE FROM \(SQLSchema.metadataTable) WHERE key = '\(Self.derivedPendingKey)'", [])
        } }
    }
}
