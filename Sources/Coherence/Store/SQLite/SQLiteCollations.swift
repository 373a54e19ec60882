import Foundation
internal import GRDB
internal import GRDBSQLite

/// SQL collations the SQLite store registers on every connection: one per
/// ``StoreStringOrder``, each calling ``StoreStringOrder/compare(_:_:)``, so
/// `ORDER BY … COLLATE` sorts strings exactly as the `SortDescriptor` does in
/// memory (ties included: SQLite then orders by the primary key).
///
/// One shortcut, for speed: two ASCII strings under an order that compares
/// them by their bytes (``StoreStringOrder/ordersASCIIByBytes``) are compared
/// with `memcmp`, which is what Swift's `String` comparison itself does for
/// them; any other pair becomes two `String`s compared by the order.
enum SQLiteCollations {
    /// The orders, by position: a collation's context is its order's
    /// position plus one.
    private static let orders = StoreStringOrder.allCases

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
        for (position, order) in orders.enumerated() {
            let code = sqlite3_create_collation_v2(
                db.sqliteConnection, name(of: order), SQLITE_UTF8, UnsafeMutableRawPointer(bitPattern: position + 1), compare, nil)
            require(code == SQLITE_OK, "Coherence: SQLite refused the collation \(name(of: order)) (code \(code))")
        }
    }

    /// The collations' comparison (SQLite's `xCompare`): the order in
    /// `context`, two UTF-8 strings that are not NUL-terminated.
    private static let compare: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
        context, count1, bytes1, count2, bytes2 in
        let order = orders[Int(bitPattern: context) - 1]
        let lhs = UnsafeRawBufferPointer(start: bytes1, count: Int(count1))
        let rhs = UnsafeRawBufferPointer(start: bytes2, count: Int(count2))
        if order.ordersASCIIByBytes, isASCII(lhs), isASCII(rhs) {
            let common = min(lhs.count, rhs.count)
            let bytes = common == 0 ? 0 : memcmp(lhs.baseAddress!, rhs.baseAddress!, common)
            if bytes != 0 { return bytes < 0 ? -1 : 1 }
            return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
        }
        let result = order.compare(String(decoding: lhs, as: UTF8.self), String(decoding: rhs, as: UTF8.self))
        return Int32(result.rawValue)
    }

    /// Strings whose order would move if `String`'s comparison changed:
    /// combining marks, compatibility forms, case, digits, emoji, Hangul.
    private static let probes = [
        "a", "B", "e\u{301}", "é", "ﬀ", "ff", "Å", "A\u{30A}", "ǅ", "Ǆ", "item 10", "item 2", "ß", "ss",
        "\u{1F600}", "\u{1F1EB}\u{1F1F7}", "한", "\u{1112}\u{1161}\u{11AB}", "ﾊ", "ハ", "",
    ]

    /// Scalars assigned in successive Unicode versions (13 to 16): which of
    /// them this Swift knows tells its Unicode version, and with it the
    /// normalization data its string comparison uses.
    private static let unicodeVersionProbes: [UInt32] = [0x1FAD7, 0x1FAE8, 0x1F7F0, 0x1FAE9, 0x1CC00]

    /// What an index on a string column built now relies on: the order of
    /// the probes under `String`'s `Comparable` order (the only order fetch
    /// indexes use; the localized ones follow the user's locale), and the
    /// Unicode version. Computed once per process.
    private static let fingerprint: String = {
        let order = probes.sorted { StoreStringOrder.comparable.compare($0, $1) == .orderedAscending }
        let known = unicodeVersionProbes.map { Unicode.Scalar($0)?.properties.age == nil ? "0" : "1" }
        return order.joined(separator: "\u{1}") + "\u{2}" + known.joined()
    }()

    /// Rebuilds the fetch indexes on strings when the order they were built
    /// in is no longer this process's (the store was last opened by a Swift
    /// whose string comparison differed): an index must follow its
    /// collation exactly, or sorted reads through it go wrong. Remembers the
    /// order in the store's metadata.
    static func reindexIfTheOrderChanged(in db: any SQLDatabase) throws {
        let current = fingerprint
        let stored = try db.string("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = 'collationOrder'")
        guard stored != current else { return }
        if stored != nil {
            try db.execute("REINDEX \(name(of: .comparable))", [])
        }
        try db.execute("INSERT OR REPLACE INTO \(SQLSchema.metadataTable) (key, value) VALUES ('collationOrder', ?)", [.string(current)])
    }

    /// Whether no byte has its high bit set, eight bytes at a time.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var bits: UInt64 = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            bits |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bits |= UInt64(bytes[offset])
            offset += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }
}
