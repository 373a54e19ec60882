import Benchmark
import Foundation
import Workloads

/// ordo-one/benchmark's measurement, as the shared workloads' ``Meter``.
struct BenchmarkMeter: Meter {
    let benchmark: Benchmark
    func start() { benchmark.startMeasurement() }
    func stop() { benchmark.stopMeasurement() }
}

/// Inserting 50,000 items and fetching 200,000: raw GRDB (the baseline),
/// GRDB records, Fluent and Coherence in the same run. The workloads are in
/// the `Workloads` target, which `count-instructions` measures too.
func insertAndFetchBenchmarks() {
    let inserted = 50_000
    let fetched = 200_000

    for (side, insert) in insertWorkloads {
        Benchmark("insert/\(side)") { benchmark in
            blackHole(try await insert(inserted, BenchmarkMeter(benchmark: benchmark)))
        }
    }

    // The cost of persistent history on the same save, beside `insert/Coherence`.
    Benchmark("insert/Coherence history") { benchmark in
        blackHole(try insertCoherenceWithHistory(rows: inserted, meter: BenchmarkMeter(benchmark: benchmark)))
    }

    for (side, fetch) in fetchWorkloads {
        Benchmark("fetch/\(side)") { benchmark, url in
            blackHole(try await fetch(url, BenchmarkMeter(benchmark: benchmark)))
        } setup: {
            try Stack.itemFile(count: fetched)
        }
    }
}
