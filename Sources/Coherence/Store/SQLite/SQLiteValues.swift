import Foundation
internal import GRDB
internal import GRDBSQLite

// How store values are bound to SQLite's parameters, as `SQLValues.swift`
// describes: straight through SQLite's C API.

extension StoreValue {
    /// The value bound to an SQL parameter. Object IDs become primary keys.
    var databaseValue: DatabaseValue {
        switch self {
        case .null, .toManyFault, .objectIDs, .orderedObjectIDs: .null
        case .bool(let value): value.databaseValue
        case .integer(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .string(let value): value.databaseValue
        case .date(let value): value.timeIntervalSinceReferenceDate.databaseValue
        case .data(let value): value.databaseValue
        case .uuid(let value): withUnsafeBytes(of: value.uuid) { Data($0) }.databaseValue
        case .url(let value): value.absoluteString.databaseValue
        case .decimal(let value): value.description.databaseValue
        case .objectID(let id): id.key.databaseValue
        }
    }
}

extension StoreValue {
    /// Binds the value to parameter `index` of `statement`, as
    /// ``databaseValue`` would be bound, without building it for the
    /// numbers, dates and keys that most columns hold.
    func bind(to statement: SQLiteStatement, at index: CInt) -> CInt {
        switch self {
        case .null, .toManyFault, .objectIDs, .orderedObjectIDs: sqlite3_bind_null(statement, index)
        case .bool(let value): sqlite3_bind_int64(statement, index, value ? 1 : 0)
        case .integer(let value): sqlite3_bind_int64(statement, index, value)
        case .double(let value): sqlite3_bind_double(statement, index, value)
        case .date(let value): sqlite3_bind_double(statement, index, value.timeIntervalSinceReferenceDate)
        case .objectID(let id): sqlite3_bind_int64(statement, index, id.key)
        case .string(let text): Self.bindText(text, to: statement, at: index)
        default: databaseValue.bind(to: statement, at: index)
        }
    }

    /// Binds `text` with its length in bytes, so that NUL characters in it
    /// are stored too (GRDB binds strings as C strings, cut at the first NUL).
    private static func bindText(_ text: String, to statement: SQLiteStatement, at index: CInt) -> CInt {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                // An empty buffer may have no address; SQLite then binds NULL
                // unless given one, so bind the empty text itself.
                guard let start = chars.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, sqliteTransient) }
                return sqlite3_bind_text(statement, index, start, CInt(chars.count), sqliteTransient)
            }
        }
    }
}

/// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bound bytes at once.
private let sqliteTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

extension Statement {
    /// Binds `values` to the statement's parameters in order, straight
    /// through SQLite, and runs `body` (which steps the statement with no
    /// arguments of its own). GRDB's `execute(arguments:)` binds through
    /// generic code that costs about a thousand instructions per value, and a
    /// save binds every row.
    func withBindings<T>(_ values: [StoreValue], _ body: () throws -> T) throws -> T {
        setUncheckedArguments(StatementArguments())
        // Do not keep copies of the last row's strings and blobs in the
        // statement cache.
        defer { sqlite3_clear_bindings(sqliteStatement) }
        for (offset, value) in values.enumerated() {
            let code = value.bind(to: sqliteStatement, at: CInt(offset + 1))
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errstr(code)), sql: sql)
            }
        }
        return try body()
    }
}
