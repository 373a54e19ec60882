import Foundation
internal import GRDB

/// SQL collations the SQLite store registers on every connection: one per
/// ``StoreStringOrder``, each calling ``StoreStringOrder/compare(_:_:)``, so
/// `ORDER BY … COLLATE` sorts strings exactly as the `SortDescriptor` does in
/// memory (ties included: SQLite then orders by the primary key).
enum SQLiteCollations {
    /// The collation of each string order, by order.
    static let byOrder: [StoreStringOrder: DatabaseCollation] = Dictionary(
        uniqueKeysWithValues: StoreStringOrder.allCases.map { order in
            (order, DatabaseCollation(name(of: order)) { order.compare($0, $1) })
        }
    )

    /// `coherence_comparable`, `coherence_lexical`, …
    static func name(of order: StoreStringOrder) -> String {
        switch order {
        case .comparable: "coherence_comparable"
        case .lexical: "coherence_lexical"
        #if canImport(Darwin)
        case .localizedStandard: "coherence_localized_standard"
        case .localized: "coherence_localized"
        #endif
        }
    }

    static func register(in db: Database) {
        for collation in byOrder.values { db.add(collation: collation) }
    }
}
