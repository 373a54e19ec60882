import Foundation

// How store values are kept in SQL columns, the same in every dialect so
// that one SQL text reads, compares and orders them alike:
//
// - integers as 64-bit integers; booleans as integers 0 and 1 in SQLite and
//   as `boolean` in PostgreSQL (both read back through ``SQLRow`` as 0 and 1);
// - Double, Float and Date (seconds since 2001, as Core Data stores them) as
//   64-bit floating point;
// - String, URL (its absolute string) and Decimal (its exact decimal text)
//   as text;
// - Data, UUID (its 16 bytes) and Codable values (JSON) as bytes;
// - a to-one relationship as the destination's primary key.

extension StoreValue {
    /// Reads an attribute value of `type` from column `index` of `row`.
    /// - Throws: ``SQLValueError`` when the column holds something else.
    init<Row: SQLRow>(row: Row, index: Int, type: AttributeType) throws {
        switch (row.columnType(index), type) {
        case (.null, _):
            self = .null
        case (.integer, .boolean):
            self = .bool(row.int64(index) != 0)
        case (.integer, .integer16), (.integer, .integer32), (.integer, .integer64):
            self = .integer(row.int64(index))
        case (.real, .double), (.real, .float), (.integer, .double), (.integer, .float):
            self = .double(row.double(index))
        case (.real, .date), (.integer, .date):
            self = .date(Date(timeIntervalSinceReferenceDate: row.double(index)))
        case (.text, .string):
            self = .string(row.string(index))
        case (.text, .uri):
            let text = row.string(index)
            guard let url = URL(string: text) else { throw SQLValueError(found: "the text \(text.debugDescription)", type: type) }
            self = .url(url)
        case (.text, .decimal):
            let text = row.string(index)
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw SQLValueError(found: "the text \(text.debugDescription)", type: type)
            }
            self = .decimal(decimal)
        case (.blob, .binaryData), (.blob, .codable):
            self = .data(row.data(index))
        case (.blob, .uuid):
            let data = row.data(index)
            guard data.count == 16 else { throw SQLValueError(found: "\(data.count) bytes", type: type) }
            self = .uuid(UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }))
        case (let stored, _):
            throw SQLValueError(found: "a value of storage class \(stored)", type: type)
        }
    }
}

/// A column holding a value that does not fit its attribute's type.
struct SQLValueError: Error, CustomStringConvertible {
    /// What the column holds.
    let found: String
    let type: AttributeType

    var description: String { "the column holds \(found), which is not a \(type) value" }
}
