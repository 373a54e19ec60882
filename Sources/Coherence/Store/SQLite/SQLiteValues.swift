import Foundation
internal import GRDB
internal import GRDBSQLite

// How store values are written to and read from SQLite columns.
//
// Booleans and integers are INTEGER; Double, Float and Date (seconds since
// 2001, as Core Data stores them) are REAL; String, URL and Decimal are TEXT
// (Decimal as its exact decimal text); Data, UUID (16 bytes) and Codable
// values (JSON) are BLOB; a to-one relationship is the destination's
// primary key.

extension AttributeType {
    /// The column type in `CREATE TABLE`.
    var sqlType: String {
        switch self {
        case .boolean, .integer16, .integer32, .integer64: "INTEGER"
        case .double, .float, .date: "REAL"
        case .string, .uri, .decimal: "TEXT"
        case .binaryData, .uuid, .codable: "BLOB"
        }
    }
}

extension StoreValue {
    /// The value bound to an SQL parameter. Object IDs become primary keys.
    var databaseValue: DatabaseValue {
        switch self {
        case .null, .toManyFault, .objectIDs: .null
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

    /// Reads an attribute value of `type` from a column.
    init(_ value: DatabaseValue, type: AttributeType) throws {
        switch (value.storage, type) {
        case (.null, _):
            self = .null
        case (.int64(let int), .boolean):
            self = .bool(int != 0)
        case (.int64(let int), .integer16), (.int64(let int), .integer32), (.int64(let int), .integer64):
            self = .integer(int)
        case (.double(let double), .double), (.double(let double), .float):
            self = .double(double)
        case (.int64(let int), .double), (.int64(let int), .float):
            self = .double(Double(int))
        case (.double(let seconds), .date):
            self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.int64(let seconds), .date):
            self = .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.string(let text), .string):
            self = .string(text)
        case (.string(let text), .uri):
            guard let url = URL(string: text) else { throw SQLiteValueError(value: value, type: type) }
            self = .url(url)
        case (.string(let text), .decimal):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw SQLiteValueError(value: value, type: type)
            }
            self = .decimal(decimal)
        case (.blob(let data), .binaryData), (.blob(let data), .codable):
            self = .data(data)
        case (.blob(let data), .uuid) where data.count == 16:
            let uuid = data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
            self = .uuid(UUID(uuid: uuid))
        default:
            throw SQLiteValueError(value: value, type: type)
        }
    }
}

extension StoreValue {
    /// Reads an attribute value of `type` from column `index` of the row
    /// `statement` stands on, straight from SQLite (no `Row`, no generic
    /// decoding: the fetch loop runs this for every column of every row).
    init(sqliteStatement statement: SQLiteStatement, index: CInt, type: AttributeType) throws {
        switch (sqlite3_column_type(statement, index), type) {
        case (SQLITE_NULL, _):
            self = .null
        case (SQLITE_INTEGER, .boolean):
            self = .bool(sqlite3_column_int64(statement, index) != 0)
        case (SQLITE_INTEGER, .integer16), (SQLITE_INTEGER, .integer32), (SQLITE_INTEGER, .integer64):
            self = .integer(sqlite3_column_int64(statement, index))
        case (SQLITE_FLOAT, .double), (SQLITE_FLOAT, .float), (SQLITE_INTEGER, .double), (SQLITE_INTEGER, .float):
            self = .double(sqlite3_column_double(statement, index))
        case (SQLITE_FLOAT, .date), (SQLITE_INTEGER, .date):
            self = .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, index)))
        case (SQLITE_TEXT, .string):
            // With its length, so that text holding NUL characters is read
            // whole (GRDB reads text as a C string).
            guard let bytes = sqlite3_column_text(statement, index) else { self = .string(""); return }
            let count = Int(sqlite3_column_bytes(statement, index))
            self = .string(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        default:
            // Text and blobs (and mismatches, which throw): through GRDB's value.
            try self.init(DatabaseValue(sqliteStatement: statement, index: index), type: type)
        }
    }
}

extension StoreValue {
    /// Binds the value to parameter `index` of `statement`, as
    /// ``databaseValue`` would be bound, without building it for the
    /// numbers, dates and keys that most columns hold.
    func bind(to statement: SQLiteStatement, at index: CInt) -> CInt {
        switch self {
        case .null, .toManyFault, .objectIDs: sqlite3_bind_null(statement, index)
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

extension StoreValue {
    /// The SQL placeholder and GRDB argument that bind this value whole, for
    /// statements bound through GRDB (predicates, batch updates): text
    /// holding a NUL character is bound as its UTF-8 bytes and turned back
    /// into text in SQL, since GRDB binds text as a C string, cut at the
    /// first NUL.
    var sqlArgument: (placeholder: String, value: DatabaseValue) {
        if case .string(let text) = self, text.utf8.contains(0) {
            return ("CAST(? AS TEXT)", Data(text.utf8).databaseValue)
        }
        return ("?", databaseValue)
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

extension StatementArguments {
    /// Positional arguments. GRDB's initializer for a sequence of a concrete
    /// type maps it with a key path, which unspecialized code instantiates on
    /// every call and applies through the key-path runtime (about a thousand
    /// instructions per value); a save binds every column of every row.
    init(values: [DatabaseValue]) {
        self.init(values.map { $0 as (any DatabaseValueConvertible)? })
    }

    /// Positional arguments of primary keys.
    init(keys: some Sequence<Int64>) {
        self.init(keys.map { $0 as (any DatabaseValueConvertible)? })
    }
}

/// A column holding a value that does not fit its attribute's type.
struct SQLiteValueError: Error, CustomStringConvertible {
    let value: DatabaseValue
    let type: AttributeType

    var description: String { "the column holds \(value), which is not a \(type) value" }
}
