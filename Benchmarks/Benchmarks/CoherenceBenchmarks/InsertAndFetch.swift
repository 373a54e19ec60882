import Benchmark
import Coherence
import Foundation
import GRDB

/// Inserting 50,000 items and fetching 200,000, each beside raw GRDB in the
/// same run.
func insertAndFetchBenchmarks() {
    let inserted = 50_000
    let fetched = 200_000

    // One prepared statement, one transaction, into a new file.
    Benchmark("insert/GRDB") { benchmark in
        let url = Stack.newFile("Raw.sqlite")
        benchmark.startMeasurement()
        let pool = try rawPool(url)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE item (i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)")
            let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for i in 0..<inserted {
                let value = Int64(i)
                try statement.execute(arguments: [value, value, value, value, value, value, value, value, value, value])
            }
        }
        benchmark.stopMeasurement()
    }

    // Managed objects in a context, one save, into a new file.
    Benchmark("insert/Coherence") { benchmark in
        let url = Stack.newFile("Items.sqlite")
        benchmark.startMeasurement()
        let context = try Stack.context(Stack.itemModel, .sqlite(url))
        try context.performAndWait {
            Stack.insertItems(inserted, in: context)
            try context.save()
        }
        benchmark.stopMeasurement()
    }

    // Row.fetchCursor, reading the columns by position.
    // Both sides open their file before the measurement and close it after.
    Benchmark("fetch/GRDB") { benchmark, url in
        let pool = try! rawPool(url)
        var total: Int64 = 0
        benchmark.startMeasurement()
        try! pool.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT \(Stack.itemColumns) FROM Item")
            while let row = try rows.next() {
                for column in 0..<10 { total &+= row[column] as Int64 }
            }
        }
        benchmark.stopMeasurement()
        blackHole(total)
    } setup: {
        try Stack.itemFile(count: fetched)
    }

    // A fetch of fully loaded objects, reading every attribute.
    Benchmark("fetch/Coherence") { benchmark, url in
        let context = try! Stack.context(Stack.itemModel, .sqlite(url))
        var total: Int64 = 0
        try! context.performAndWait {
            var request = FetchRequest<Item>()
            request.returnsObjectsAsFaults = false
            benchmark.startMeasurement()
            let items = try context.fetch(request)
            for item in items { total &+= item.total }
            benchmark.stopMeasurement()
        }
        blackHole(total)
    } setup: {
        try Stack.itemFile(count: fetched)
    }
}
