import Foundation
internal import GRDB
internal import GRDBSQLite

/// The SQLite store's connections: a GRDB pool over one file in WAL mode,
/// so reads run beside a save that is writing, and SQLite lets one writer
/// at a time in, across processes too; or, for a store in memory (a
/// `/dev/null` URL), one GRDB queue.
///
/// Statements are prepared once per connection and kept (GRDB's statement
/// cache): the per-row statements of saves and faults, and each distinct
/// query a program runs, except statements with an `IN (…)` list, whose
/// length varies with the data and which are prepared each time (so the
/// cache does not grow with every length a server meets).
final class SQLiteConnections<Writer: DatabaseWriter>: SQLConnections {
    let pool: Writer

    init(pool: Writer) {
        self.pool = pool
    }

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        do {
            return try pool.read { db in try body(SQLiteDatabase(db: db)) }
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        do {
            return try pool.write { db in
                try Self.checkFileIsInPlace(db)
                return try body(SQLiteDatabase(db: db))
            }
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// Refuses to write once the database file was deleted or renamed (its
    /// directory removed) since it was opened: in WAL mode SQLite goes on
    /// writing into the unlinked file, so a save would return and be lost
    /// with the process (the I/O fault campaign found it). SQLite's own
    /// check, `SQLITE_FCNTL_HAS_MOVED` (<https://www.sqlite.org/c3ref/c_fcntl_begin_atomic_write.html>);
    /// a database in memory has no file and answers that it has not.
    private static func checkFileIsInPlace(_ db: Database) throws {
        var moved: Int32 = 0
        if sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK, moved != 0 {
            throw StoreError.sqlite(code: 1032, message: "the database file was moved or deleted while it was open", sql: nil)
        }
    }
}

/// One GRDB connection inside a transaction, as ``SQLDatabase``: values are
/// bound straight through SQLite's C API (`SQLiteValues.swift`), rows read
/// column by column without building GRDB rows.
struct SQLiteDatabase: SQLDatabase {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    /// The statement for `sql`: cached, unless it has an `IN (…)` list.
    private func statement(_ sql: String) throws -> Statement {
        sql.contains(" IN (") ? try db.makeStatement(sql: sql) : try db.cachedStatement(sql: sql)
    }

    /// Runs `body`, with SQLite's errors as ``StoreError``s, as
    /// ``SQLDatabase`` promises (so that the shared store can tell a
    /// uniqueness violation from other errors).
    private func mapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        try mapping {
            let statement = try statement(sql)
            try statement.withBindings(arguments) { try statement.execute() }
            return db.changesCount
        }
    }

    func executeMany(_ sql: String, count: Int, row: (Int, inout [StoreValue]) throws -> Void) throws {
        guard count > 0 else { return }
        try mapping {
            let statement = try statement(sql)
            var arguments: [StoreValue] = []
            for index in 0..<count {
                arguments.removeAll(keepingCapacity: true)
                try row(index, &arguments)
                try statement.withBindings(arguments) { try statement.execute() }
            }
        }
    }

    func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (any SQLRow) throws -> Void) throws {
        try forEachSQLiteRow(sql, arguments, body)
    }

    /// ``forEachRow(_:_:_:)`` with rows of their concrete type.
    func forEachSQLiteRow(_ sql: String, _ arguments: [StoreValue], _ body: (SQLiteRow) throws -> Void) throws {
        try mapping {
            let statement = try statement(sql)
            try statement.withBindings(arguments) {
                let rows = try Row.fetchCursor(statement)
                let row = SQLiteRow(statement: statement.sqliteStatement)
                while try rows.next() != nil {
                    try body(row)
                }
            }
        }
    }

    func tableExists(_ name: String) throws -> Bool {
        try mapping { try db.tableExists(name) }
    }

    func tableNames() throws -> [String] {
        try mapping { try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") }
    }

    func columnNames(_ table: String) throws -> [String] {
        try mapping { try db.columns(in: table).map(\.name) }
    }

    func indexNames(startingWith prefixes: [String]) throws -> [String] {
        try mapping {
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'").filter { name in
                prefixes.contains { name.hasPrefix($0) }
            }
        }
    }
}

/// The row an SQLite statement stands on.
struct SQLiteRow: SQLRow {
    let statement: SQLiteStatement

    @inline(__always)
    func columnType(_ index: Int) -> SQLColumnType {
        switch sqlite3_column_type(statement, CInt(index)) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        default: .blob
        }
    }

    @inline(__always)
    func int64(_ index: Int) -> Int64 {
        sqlite3_column_int64(statement, CInt(index))
    }

    @inline(__always)
    func double(_ index: Int) -> Double {
        sqlite3_column_double(statement, CInt(index))
    }

    /// The type and the value from one look-up of the column. SQLite calls
    /// the value `sqlite3_column_value` returns "unprotected": reading it is
    /// not thread-safe, which this read is not asked to be (a statement is
    /// stepped and read on its connection's queue only), and it stays valid
    /// until the statement steps again, long after this read.
    @inline(__always)
    func integer(_ index: Int) -> Int64? {
        let value = sqlite3_column_value(statement, CInt(index))
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { return nil }
        return sqlite3_value_int64(value)
    }

    /// With its length, so that text holding NUL characters is read whole.
    func string(_ index: Int) -> String {
        guard let bytes = sqlite3_column_text(statement, CInt(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, CInt(index)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func data(_ index: Int) -> Data {
        guard let bytes = sqlite3_column_blob(statement, CInt(index)) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, CInt(index))))
    }
}
