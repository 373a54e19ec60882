import Coherence
import FluentKit
import Foundation
import GRDB

/// A side of the fetch workload: every row of `file` (written by Coherence,
/// ``Stack/itemFile(count:)``) read, every column of it. Each side opens the
/// file and reads its first row before the measured part (so that opening
/// the connection and reading the schema are not measured), and closes it
/// after; the fetched values are released after it too. Returns the sum of
/// every column of every row.
package typealias FetchWorkload = @Sendable (_ file: URL, _ meter: any Meter) async throws -> Int64

/// The sides of the fetch workload, baseline first.
package let fetchWorkloads: KeyValuePairs<String, FetchWorkload> = [
    "GRDB": fetchRawGRDB,
    "GRDB records": fetchGRDBRecords,
    "Fluent": fetchFluent,
    "Coherence": fetchCoherence,
]

/// Baseline: `Row.fetchCursor`, reading the columns by position.
func fetchRawGRDB(file: URL, meter: any Meter) throws -> Int64 {
    let pool = try rawPool(file)
    keep(try pool.read { db in try Row.fetchOne(db, sql: "SELECT \(Stack.itemColumns) FROM Item LIMIT 1") })
    var total: Int64 = 0
    meter.start()
    try pool.read { db in
        let rows = try Row.fetchCursor(db, sql: "SELECT \(Stack.itemColumns) FROM Item")
        while let row = try rows.next() {
            for column in 0..<10 { total &+= row[column] as Int64 }
        }
    }
    meter.stop()
    try pool.close()
    return total
}

/// GRDB records: `fetchAll`, decoding each row into a `Codable` struct.
func fetchGRDBRecords(file: URL, meter: any Meter) throws -> Int64 {
    let pool = try rawPool(file)
    keep(try pool.read { db in try ItemRecord.fetchOne(db) })
    var total: Int64 = 0
    meter.start()
    let records = try pool.read { db in try ItemRecord.fetchAll(db) }
    for record in records { total &+= record.total }
    meter.stop()
    keep(records)
    try pool.close()
    return total
}

/// Fluent: a query's `all()`, one model per row.
func fetchFluent(file: URL, meter: any Meter) async throws -> Int64 {
    FluentStack.startEventLoops()
    let fluent = FluentStack(file)
    keep(try await FluentItem.query(on: fluent.database).first())
    var total: Int64 = 0
    meter.start()
    let items = try await FluentItem.query(on: fluent.database).all()
    for item in items { total &+= item.total }
    meter.stop()
    keep(items)
    await fluent.shutdown()
    return total
}

/// Coherence: a fetch request with `returnsObjectsAsFaults = false`, reading
/// every attribute of each object.
func fetchCoherence(file: URL, meter: any Meter) throws -> Int64 {
    try fetchCoherence(.sqlite(file), meter: meter)
}

/// ``fetchCoherence(file:meter:)`` on the store `description` names (the
/// PostgreSQL workload's too): after one warm-up fetch and a reset, every
/// item, read whole.
func fetchCoherence(_ description: PersistentStoreDescription, meter: any Meter) throws -> Int64 {
    let context = try Stack.context(Stack.itemModel, description)
    var total: Int64 = 0
    try context.performAndWait {
        let first = FetchRequest<Item>()
        first.fetchLimit = 1
        keep(try context.fetch(first))
        context.reset()
        let request = FetchRequest<Item>()
        request.returnsObjectsAsFaults = false
        meter.start()
        let items = try context.fetch(request)
        for item in items { total &+= item.total }
        meter.stop()
        keep(items)
    }
    withExtendedLifetime(context) {}
    return total
}
