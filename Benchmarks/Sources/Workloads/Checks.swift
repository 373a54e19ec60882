import Foundation
import GRDB

/// What every side must have written or read for `rows` items (row i holding
/// i in its ten columns): the row count and the sum of every column.
package func expectedItems(rows: Int) -> (rows: Int, total: Int64) {
    (rows, 10 * Int64(rows) * Int64(rows - 1) / 2)
}

/// The row count and the sum of every column of the item table in `file`,
/// read with plain SQL (outside any measurement).
package func itemsWritten(in file: URL) throws -> (rows: Int, total: Int64) {
    let queue = try DatabaseQueue(path: file.path)
    defer { try? queue.close() }
    let sums = (0..<10).map { "i\($0)" }.joined(separator: " + ")
    let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT count(*), total(\(sums)) FROM item") }!
    return (row[0], Int64(row[1] as Double))
}
