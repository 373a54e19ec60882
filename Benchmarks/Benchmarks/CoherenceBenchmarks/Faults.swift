import Benchmark
import CAllocatedBytes
import Coherence
import Foundation
import GRDB
import Workloads

/// Bytes the allocator holds for the program right now.
func allocatedBytes() -> Int {
    Int(coherence_allocated_bytes())
}

/// The bytes allocated since `before` (an ``allocatedBytes()`` reading).
func bytesSince(_ before: Int) -> Int {
    allocatedBytes() - before
}

/// 1,000,000 objects fetched as faults, beside a `[Int64]` of the same row
/// IDs; both report the bytes they keep per object.
func faultBenchmarks() {
    let count = 1_000_000
    let bytesMetric = BenchmarkMetric.custom("bytes per object", polarity: .prefersSmaller, useScalingFactor: false)
    let configuration = Benchmark.Configuration(metrics: [.wallClock, bytesMetric], units: [bytesMetric: .count],
                                                warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 5)

    /// Records bytes per object, unless the allocator cannot be read
    /// (outside glibc), in which case the report says "not measured".
    func record(_ bytes: Int, per count: Int, in benchmark: Benchmark) {
        guard allocatedBytes() > 0, count > 0 else { return }
        benchmark.measurement(bytesMetric, bytes / count)
    }

    // Both sides open their file before the measurement.
    Benchmark("faults/[Int64]", configuration: configuration) { benchmark, url in
        let pool = try! rawPool(url)
        try! pool.read { _ in }                      // opens the reader connection
        let before = allocatedBytes()
        benchmark.startMeasurement()
        let ids = try! pool.read { db in try Int64.fetchAll(db, sql: "SELECT Z_PK FROM Item") }
        benchmark.stopMeasurement()
        record(bytesSince(before), per: ids.count, in: benchmark)
        blackHole(ids)
    } setup: {
        try Stack.itemFile(count: count)
    }

    Benchmark("faults/Coherence", configuration: configuration) { benchmark, url in
        let context = try! Stack.context(Stack.itemModel, .sqlite(url))
        context.performAndWait {
            let before = allocatedBytes()
            benchmark.startMeasurement()
            let faults = try! context.fetch(FetchRequest<Item>())
            benchmark.stopMeasurement()
            record(bytesSince(before), per: faults.count, in: benchmark)
            blackHole(faults)
        }
    } setup: {
        try Stack.itemFile(count: count)
    }
}
