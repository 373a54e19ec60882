import GRDB

/// The item as a GRDB record: a `Codable` struct, read and written by GRDB's
/// `FetchableRecord` and `PersistableRecord`, as GRDB's documentation
/// recommends. Its table is the one Coherence writes (`Item`, primary key
/// `Z_PK`; the fetch ignores the `Z_OPT` column).
package struct ItemRecord: Codable, FetchableRecord, PersistableRecord {
    package static let databaseTableName = "Item"

    var id: Int64?
    var i0: Int64, i1: Int64, i2: Int64, i3: Int64, i4: Int64
    var i5: Int64, i6: Int64, i7: Int64, i8: Int64, i9: Int64

    enum CodingKeys: String, CodingKey {
        case id = "Z_PK"
        case i0, i1, i2, i3, i4, i5, i6, i7, i8, i9
    }

    /// A new record (its key assigned by SQLite) holding `value` in every column.
    init(_ value: Int64) {
        id = nil
        i0 = value; i1 = value; i2 = value; i3 = value; i4 = value
        i5 = value; i6 = value; i7 = value; i8 = value; i9 = value
    }

    /// The sum of every column.
    var total: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }

    /// Creates the table of a new file, as a GRDB migration would.
    static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.primaryKey("Z_PK", .integer)
            for column in 0..<10 { table.column("i\(column)", .integer).notNull() }
        }
    }
}
