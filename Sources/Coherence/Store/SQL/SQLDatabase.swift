import Foundation

/// The SQL dialects Coherence's SQL stores speak. The store logic (schema,
/// saves, fetches, predicates, batch requests, migrations) is written once,
/// in the SQL both dialects share; what differs is asked of the dialect,
/// here and nowhere else.
package enum SQLDialect: Sendable, Hashable {
    case sqlite
    case postgres

    /// The column type of an attribute. Both dialects keep the same
    /// representation (see `SQLValues.swift`), so that the same SQL reads and
    /// compares them alike: integers, dates (seconds since 2001, as Core Data
    /// stores them) and doubles as numbers, strings, URLs and decimals as text,
    /// data, UUIDs (16 bytes) and Codable values (JSON) as bytes. Booleans are
    /// PostgreSQL's `boolean`, which SQL conditions require there. PostgreSQL
    /// text columns use the `C` collation, so that `<`, `MIN` and `MAX`
    /// compare bytes, as SQLite does, whatever the server's locale.
    package func columnType(_ type: AttributeType) -> String {
        switch (self, type) {
        case (.sqlite, .boolean), (.sqlite, .integer16), (.sqlite, .integer32), (.sqlite, .integer64): "INTEGER"
        case (.sqlite, .double), (.sqlite, .float), (.sqlite, .date): "REAL"
        case (.sqlite, .string), (.sqlite, .uri), (.sqlite, .decimal): "TEXT"
        case (.sqlite, .binaryData), (.sqlite, .uuid), (.sqlite, .codable): "BLOB"
        case (.postgres, .boolean): "BOOLEAN"
        case (.postgres, .integer16), (.postgres, .integer32), (.postgres, .integer64): "BIGINT"
        case (.postgres, .double), (.postgres, .float), (.postgres, .date): "DOUBLE PRECISION"
        case (.postgres, .string), (.postgres, .uri), (.postgres, .decimal): "TEXT COLLATE \"C\""
        case (.postgres, .binaryData), (.postgres, .uuid), (.postgres, .codable): "BYTEA"
        }
    }

    /// The column type of primary keys, versions and to-one relationships.
    package var keyType: String {
        switch self {
        case .sqlite: "INTEGER"
        case .postgres: "BIGINT"
        }
    }

    /// A condition true when `lhs` and `rhs` are equal or both NULL.
    package func isSame(_ lhs: String, _ rhs: String) -> String {
        switch self {
        case .sqlite: return "(\(lhs) IS \(rhs))"
        case .postgres:
            // PostgreSQL's index scans do not serve IS NOT DISTINCT FROM;
            // against a bound value (never NULL) `=` means the same.
            if let (column, _) = Self.columnAndParameter(lhs, rhs) { return "(\(column) IS NOT NULL AND \(column) = ?)" }
            return "(\(lhs) IS NOT DISTINCT FROM \(rhs))"
        }
    }

    /// A condition true when `lhs` and `rhs` differ, NULL counting as a value.
    package func isNotSame(_ lhs: String, _ rhs: String) -> String {
        switch self {
        case .sqlite: return "(\(lhs) IS NOT \(rhs))"
        case .postgres:
            if let (column, _) = Self.columnAndParameter(lhs, rhs) { return "(\(column) IS NULL OR \(column) <> ?)" }
            return "(\(lhs) IS DISTINCT FROM \(rhs))"
        }
    }

    /// When one side is a single bound parameter (`?`, never NULL: NULL is
    /// written as such) and the other has no parameter of its own (so that
    /// writing it twice keeps the parameters in order): the other side.
    private static func columnAndParameter(_ lhs: String, _ rhs: String) -> (String, String)? {
        if rhs == "?", !lhs.contains("?") { return (lhs, rhs) }
        if lhs == "?", !rhs.contains("?") { return (rhs, lhs) }
        return nil
    }

    /// An expression ordering a text column as `strings` orders strings, for
    /// `ORDER BY` and fetch indexes (one spelling for both, since a sort can
    /// walk an index only if they order alike). SQLite calls the Swift
    /// comparison itself through a collation (`SQLiteCollations`);
    /// PostgreSQL compares the canonical composition's bytes, which is
    /// `String`'s `<` (Unicode canonical equivalence, then scalar values).
    package func ordered(_ column: String, _ strings: StoreStringOrder) -> String {
        switch self {
        case .sqlite: "\(column) COLLATE \(SQLiteCollations.name(of: strings))"
        case .postgres: "(normalize(\(column), NFC)) COLLATE \"C\""
        }
    }

    /// The `ORDER BY` direction that puts NULL where `SortDescriptor`
    /// puts `nil`: first in a forward sort, last in a reverse one. SQLite
    /// orders NULL as the smallest value; PostgreSQL as the largest, so it
    /// is told (the typed-predicate campaign found PostgreSQL fetches
    /// listing `nil` last).
    package func direction(ascending: Bool) -> String {
        switch self {
        case .sqlite: ascending ? "ASC" : "DESC"
        case .postgres: ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        }
    }

    /// Whether ``ordered(_:_:)`` orders strings exactly as `strings` does.
    /// PostgreSQL reproduces `String`'s `<` only: on Linux `.lexical` is that
    /// order too; on Apple platforms the localized orders are not, and the
    /// context sorts by them in memory.
    package func canOrder(_ strings: StoreStringOrder) -> Bool {
        guard self == .postgres else { return true }
        #if canImport(Darwin)
        return strings == .comparable
        #else
        return true
        #endif
    }

    /// The type of the metadata table's values: SQLite keeps text and bytes
    /// in one column; PostgreSQL keeps text (the model's JSON is UTF-8).
    package var metadataValueType: String {
        switch self {
        case .sqlite: "BLOB"
        case .postgres: "TEXT"
        }
    }

    /// The name of an index as the database keeps it: PostgreSQL cuts
    /// identifiers at 63 bytes, so a longer name is shortened to a prefix and
    /// a hash of the whole, which stays unique and is found again by the same
    /// name.
    package func indexName(_ name: String) -> String {
        guard self == .postgres, name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        var prefix = ""
        for character in name where prefix.utf8.count + character.utf8.count <= 46 { prefix.append(character) }
        return prefix + "#" + String(hash, radix: 16)
    }

    /// Rebuilds what depends on this process's string order, if needed
    /// (SQLite's collation indexes; PostgreSQL's order is its own).
    package func reindexIfTheOrderChanged(in db: any SQLDatabase) throws {
        if self == .sqlite { try SQLiteCollations.reindexIfTheOrderChanged(in: db) }
    }

    /// `SUM(column)`, an integer for integer columns in both dialects
    /// (PostgreSQL sums integers as `numeric`).
    package func sum(_ column: String, isDouble: Bool) -> String {
        self == .postgres && !isDouble ? "CAST(SUM(\(column)) AS BIGINT)" : "SUM(\(column))"
    }

    /// Where `part` first occurs in `text`, counted in characters from 1;
    /// 0 when it does not.
    package func position(of part: String, in text: String) -> String {
        switch self {
        case .sqlite: "instr(\(text), \(part))"
        case .postgres: "strpos(\(text), \(part))"
        }
    }

    /// `LIMIT ? OFFSET ?`'s limit for "no limit".
    package var noLimit: Int64 {
        switch self {
        case .sqlite: -1
        case .postgres: Int64.max
        }
    }
}

/// How a column value was stored, as a row reports it.
package enum SQLColumnType: Sendable {
    case null, integer, real, text, blob
}

/// One row of a query's result, read column by column (from 0). Booleans
/// read as integers 0 and 1 in every dialect.
package protocol SQLRow {
    /// How column `index` is stored.
    func columnType(_ index: Int) -> SQLColumnType
    /// Column `index` as an integer (0 for NULL).
    func int64(_ index: Int) -> Int64
    /// Column `index` as a double (0 for NULL).
    func double(_ index: Int) -> Double
    /// Column `index` as text, whole (NUL characters included).
    func string(_ index: Int) -> String
    /// Column `index` as bytes.
    func data(_ index: Int) -> Data
    /// Column `index`'s integer, or `nil` when it holds something else
    /// (NULL included): the common column of a fetched row, read in one
    /// look-up where the database allows.
    func integer(_ index: Int) -> Int64?
}

extension SQLRow {
    package func integer(_ index: Int) -> Int64? {
        columnType(index) == .integer ? int64(index) : nil
    }
}

/// A connection of an SQL store, inside one transaction (a read or a
/// write). Statements use `?` for their parameters, in order; arguments are
/// store values, bound as `SQLValues.swift` describes (an object ID as its
/// primary key). Every error is a ``StoreError``.
package protocol SQLDatabase {
    /// The dialect the statements must be written in.
    var dialect: SQLDialect { get }
    /// Runs one statement; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int
    /// Runs one statement `count` times, in as few round trips as the
    /// database allows. `row(i, &arguments)` appends the arguments of the
    /// i-th run to `arguments`, a buffer the database empties and reuses: a
    /// large batch holds one run's arguments at a time (or, where several
    /// runs go to the server as one statement, those runs'), not an array
    /// per run.
    func executeMany(_ sql: String, count: Int, row: (Int, inout [StoreValue]) throws -> Void) throws
    /// Runs a query and calls `body` with each row, in order. A row is valid
    /// only during its call.
    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (any SQLRow) throws -> Void) throws
    /// Whether the store's tables include `name` (unquoted).
    func tableExists(_ name: String) throws -> Bool
    /// The names of every table where the store keeps its tables (the
    /// SQLite file; the PostgreSQL schema).
    func tableNames() throws -> [String]
    /// The column names of the table `name` (unquoted), in order.
    func columnNames(_ table: String) throws -> [String]
    /// The names of the store's indexes that start with one of `prefixes`.
    func indexNames(startingWith prefixes: [String]) throws -> [String]
}

extension SQLDatabase {
    /// Runs one statement once per element of `rows` (each one run's
    /// arguments); see ``executeMany(_:count:row:)``.
    package func executeMany(_ sql: String, _ rows: [[StoreValue]]) throws {
        try executeMany(sql, count: rows.count) { index, arguments in arguments += rows[index] }
    }

    /// The first column of every row, as integers.
    package func int64s(_ sql: String, _ arguments: [StoreValue] = []) throws -> [Int64] {
        var values: [Int64] = []
        try forEachRow(sql, arguments) { values.append($0.int64(0)) }
        return values
    }

    /// The first column of the first row whose first column is not NULL, as
    /// an integer; `nil` for none.
    package func int64(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int64? {
        var value: Int64?
        try forEachRow(sql, arguments) { row in
            if value == nil, row.columnType(0) != .null { value = row.int64(0) }
        }
        return value
    }

    /// The first column of the first row whose first column is not NULL, as
    /// text; `nil` for none.
    package func string(_ sql: String, _ arguments: [StoreValue] = []) throws -> String? {
        var value: String?
        try forEachRow(sql, arguments) { row in
            if value == nil, row.columnType(0) != .null { value = row.string(0) }
        }
        return value
    }

    /// The first column of every row, as text (NULLs left out).
    package func strings(_ sql: String, _ arguments: [StoreValue] = []) throws -> [String] {
        var values: [String] = []
        try forEachRow(sql, arguments) { row in
            if row.columnType(0) != .null { values.append(row.string(0)) }
        }
        return values
    }
}

/// The connections of one SQL store: reads that run beside each other, and
/// writes, each a transaction. May be used from any thread; a call blocks
/// its thread until the transaction ends.
package protocol SQLConnections: Sendable {
    /// Runs `body` in a read transaction, which sees one committed state.
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// Runs `body` in a write transaction: committed when `body` returns,
    /// rolled back when it throws (the error is rethrown). SQLite runs one
    /// write at a time; PostgreSQL runs writes beside each other (row locks
    /// and version checks keep them apart).
    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// Runs `body` in a write transaction that no other exclusive write of
    /// the store runs beside, across processes too: opening and migrating
    /// a store.
    func writeExclusively<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
}

extension SQLConnections {
    /// A database with one writer: every write is exclusive.
    package func writeExclusively<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try write(body)
    }
}
