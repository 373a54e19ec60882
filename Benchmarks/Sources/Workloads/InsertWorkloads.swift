import Coherence
import FluentKit
import FluentSQLiteDriver
import Foundation
import GRDB

/// A side of the insert workload: `rows` items (row i holding i in its ten
/// columns) written to a new SQLite file in one transaction. The file is
/// opened inside the measured part and closed after it. Returns the file.
package typealias InsertWorkload = @Sendable (_ rows: Int, _ meter: any Meter) async throws -> URL

/// The sides of the insert workload, baseline first.
package let insertWorkloads: KeyValuePairs<String, InsertWorkload> = [
    "GRDB": insertRawGRDB,
    "GRDB records": insertGRDBRecords,
    "Fluent": insertFluent,
    "Coherence": insertCoherence,
]

/// Baseline: one prepared statement, one transaction.
func insertRawGRDB(rows: Int, meter: any Meter) throws -> URL {
    let url = Stack.newFile("Raw.sqlite")
    meter.start()
    let pool = try rawPool(url)
    try pool.write { db in
        try db.execute(sql: "CREATE TABLE item (i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)")
        let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for i in 0..<rows {
            let value = Int64(i)
            try statement.execute(arguments: [value, value, value, value, value, value, value, value, value, value])
        }
    }
    meter.stop()
    try pool.close()
    return url
}

/// GRDB records: one `insert(_:)` per record, in one transaction.
func insertGRDBRecords(rows: Int, meter: any Meter) throws -> URL {
    let url = Stack.newFile("Records.sqlite")
    meter.start()
    let pool = try rawPool(url)
    try pool.write { db in
        try ItemRecord.createTable(db)
        for i in 0..<rows {
            try ItemRecord(Int64(i)).insert(db)
        }
    }
    meter.stop()
    try pool.close()
    return url
}

/// Fluent: one `create(on:)` per model, in one transaction.
func insertFluent(rows: Int, meter: any Meter) async throws -> URL {
    let url = Stack.newFile("Fluent.sqlite")
    FluentStack.startEventLoops()
    meter.start()
    let fluent = FluentStack(url)
    // WAL, as the other sides open their files.
    try await (fluent.database as! any SQLDatabase).raw("PRAGMA journal_mode = WAL").run()
    try await FluentItem.createTable(on: fluent.database)
    try await fluent.database.transaction { db in
        for i in 0..<rows {
            try await FluentItem(Int64(i)).create(on: db)
        }
    }
    meter.stop()
    await fluent.shutdown()
    return url
}

/// Coherence: managed objects inserted in a context, one `save()`.
func insertCoherence(rows: Int, meter: any Meter) throws -> URL {
    try insertCoherence(rows: rows, meter: meter, history: false)
}

/// ``insertCoherence(rows:meter:)`` with persistent history on: the save
/// also writes its history transaction (one change row for the run of new keys).
package func insertCoherenceWithHistory(rows: Int, meter: any Meter) throws -> URL {
    try insertCoherence(rows: rows, meter: meter, history: true)
}

private func insertCoherence(rows: Int, meter: any Meter, history: Bool) throws -> URL {
    let url = Stack.newFile("Items.sqlite")
    meter.start()
    let description = PersistentStoreDescription.sqlite(url)
    description.persistentHistoryTracking = history
    let context = try Stack.context(Stack.itemModel, description)
    try context.performAndWait {
        Stack.insertItems(rows, in: context)
        try context.save()
    }
    meter.stop()
    withExtendedLifetime(context) {}
    return url
}
