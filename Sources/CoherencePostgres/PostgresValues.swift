import Coherence
import Foundation
import PostgresNIO

/// How store values are bound as PostgreSQL parameters, and how result cells
/// are read back: the same representation as the SQLite store's (see
/// `SQLDialect.columnType(_:)`).
enum PostgresValues {
    /// Appends `value` to `bindings`: NULL for `.null` and to-many values;
    /// `boolean`, `bigint`, `double precision` and `text` for the Swift
    /// types of those; a date as `double precision` seconds since 2001
    /// (`timeIntervalSinceReferenceDate`, as Core Data stores dates); data and
    /// UUIDs (their 16 bytes) as `bytea`; a URL as the text of its
    /// `absoluteString`, a decimal as the text of its `description`; an object
    /// ID as its primary key (`bigint`).
    /// Text is escaped as ``PostgresText`` describes (PostgreSQL text cannot
    /// hold U+0000).
    static func bind(_ value: StoreValue, to bindings: inout PostgresBindings, sql: String) throws {
        switch value {
        case .null, .toManyFault, .objectIDs, .orderedObjectIDs:
            bindings.appendNull()
        case .bool(let bool):
            bindings.append(bool)
        case .integer(let integer):
            bindings.append(integer)
        case .double(let double):
            bindings.append(double)
        case .string(let string):
            try bindText(string, to: &bindings, sql: sql)
        case .date(let date):
            bindings.append(date.timeIntervalSinceReferenceDate)
        case .data(let data):
            bindings.append(ByteBuffer(bytes: data))
        case .uuid(let uuid):
            bindings.append(ByteBuffer(bytes: withUnsafeBytes(of: uuid.uuid) { Array($0) }))
        case .url(let url):
            try bindText(url.absoluteString, to: &bindings, sql: sql)
        case .decimal(let decimal):
            bindings.append(decimal.description)
        case .objectID(let id):
            bindings.append(id.key)
        }
    }

    private static func bindText(_ string: String, to bindings: inout PostgresBindings, sql: String) throws {
        bindings.append(PostgresText.escaped(string))
    }
}

/// PostgreSQL text cannot hold U+0000 (NUL), which Swift strings and SQLite
/// can. Text is therefore stored with U+0000 written as U+0001 U+0001 and
/// U+0001 itself as U+0001 U+0002; every other string is stored as it is.
/// The escape keeps the order of UTF-8 bytes (NUL still sorts before every
/// other character, a string before its extensions), so ordering
/// comparisons and sorts agree with SQLite and the in-memory evaluation;
/// values bound to predicates are escaped the same way, so equality holds.
/// (A substring test for text starting with U+0002 may match inside an
/// escaped U+0001: control characters text rarely holds.)
enum PostgresText {
    private static let escape: Unicode.Scalar = "\u{1}"
    private static let escapedNUL: Unicode.Scalar = "\u{1}"
    private static let escapedEscape: Unicode.Scalar = "\u{2}"

    /// `string` as PostgreSQL keeps it.
    static func escaped(_ string: String) -> String {
        guard string.unicodeScalars.contains(where: { $0 == "\0" || $0 == escape }) else { return string }
        var result = String.UnicodeScalarView()
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\0": result.append(escape); result.append(escapedNUL)
            case escape: result.append(escape); result.append(escapedEscape)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// The string `stored` stands for.
    static func unescaped(_ stored: String) -> String {
        guard stored.unicodeScalars.contains(escape) else { return stored }
        var result = String.UnicodeScalarView()
        var pendingEscape = false
        for scalar in stored.unicodeScalars {
            if pendingEscape {
                result.append(scalar == escapedNUL ? "\0" : scalar == escapedEscape ? escape : scalar)
                pendingEscape = false
            } else if scalar == escape {
                pendingEscape = true
            } else {
                result.append(scalar)
            }
        }
        if pendingEscape { result.append(escape) }
        return String(result)
    }
}

/// One row of a PostgreSQL result, read column by column as ``SQLRow``
/// requires. Results arrive in PostgreSQL's binary format: booleans read as
/// integers 0 and 1, `smallint`/`integer`/`bigint` as integers,
/// `real`/`double precision`/`numeric` as reals, `text`/`varchar`/`name`
/// (and untyped literals) as text, `bytea` as blobs. An integer read as a
/// double converts; a real read as an integer truncates toward zero
/// (clamped to `Int64`'s range).
package struct PostgresSQLRow: SQLRow {
    private let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    package func columnType(_ index: Int) -> SQLColumnType {
        let cell = row[index]
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .bool, .int2, .int4, .int8: return .integer
        case .float4, .float8, .numeric: return .real
        case .bytea: return .blob
        default: return .text
        }
    }

    package func int64(_ index: Int) -> Int64 {
        let cell = row[index]
        guard var bytes = cell.bytes else { return 0 }
        guard cell.format == .binary else { return Self.text(bytes).flatMap { Int64($0) } ?? 0 }
        switch cell.dataType {
        case .bool: return bytes.readInteger(as: UInt8.self).map { $0 == 0 ? 0 : 1 } ?? 0
        case .int2: return bytes.readInteger(as: Int16.self).map(Int64.init) ?? 0
        case .int4: return bytes.readInteger(as: Int32.self).map(Int64.init) ?? 0
        case .int8: return bytes.readInteger(as: Int64.self) ?? 0
        case .float4, .float8, .numeric: return Self.truncating(double(index))
        default: return Self.text(bytes).flatMap { Int64($0) } ?? 0
        }
    }

    package func double(_ index: Int) -> Double {
        let cell = row[index]
        guard var bytes = cell.bytes else { return 0 }
        guard cell.format == .binary else { return Self.text(bytes).flatMap { Double($0) } ?? 0 }
        switch cell.dataType {
        case .bool, .int2, .int4, .int8: return Double(int64(index))
        case .float4: return bytes.readInteger(as: UInt32.self).map { Double(Float(bitPattern: $0)) } ?? 0
        case .float8: return bytes.readInteger(as: UInt64.self).map { Double(bitPattern: $0) } ?? 0
        case .numeric:
            guard let decimal = try? cell.decode(Decimal.self) else { return 0 }
            return NSDecimalNumber(decimal: decimal).doubleValue
        default: return Self.text(bytes).flatMap { Double($0) } ?? 0
        }
    }

    package func string(_ index: Int) -> String {
        let cell = row[index]
        guard let bytes = cell.bytes else { return "" }
        guard cell.format == .binary else { return Self.text(bytes) ?? "" }
        switch cell.dataType {
        case .bool, .int2, .int4, .int8: return String(int64(index))
        case .float4, .float8: return String(double(index))
        case .numeric: return (try? cell.decode(Decimal.self))?.description ?? ""
        default: return PostgresText.unescaped(Self.text(bytes) ?? "")
        }
    }

    package func data(_ index: Int) -> Data {
        let cell = row[index]
        guard let bytes = cell.bytes else { return Data() }
        switch (cell.format, cell.dataType) {
        case (.binary, .bool), (.binary, .int2), (.binary, .int4), (.binary, .int8),
             (.binary, .float4), (.binary, .float8), (.binary, .numeric):
            return Data(string(index).utf8)
        default:
            return Data(bytes.readableBytesView)
        }
    }

    private static func text(_ bytes: ByteBuffer) -> String? {
        String(buffer: bytes)
    }

    private static func truncating(_ double: Double) -> Int64 {
        if double.isNaN { return 0 }
        if double >= 9_223_372_036_854_775_808.0 { return .max }
        if double < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(double.rounded(.towardZero))
    }
}
