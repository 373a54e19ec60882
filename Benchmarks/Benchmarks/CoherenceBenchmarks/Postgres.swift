import Benchmark
import Foundation
import Workloads

/// The round trips of Coherence's one `save()` of the inserted items, a
/// custom metric of `insert/Postgres Coherence` that `Benchmarks/report`
/// shows (the same in every iteration).
let saveRoundTrips = BenchmarkMetric.custom("round trips per save", polarity: .prefersSmaller, useScalingFactor: false)

/// Inserting 50,000 items and fetching 200,000 in PostgreSQL: raw
/// postgres-nio (the baseline) beside Coherence's `PostgresStore`, as
/// ``insertAndFetchBenchmarks()`` does for SQLite. Registered only when
/// `COHERENCE_POSTGRES_URL` names a server (`.ci/with-postgres` starts one);
/// without it the SQLite benchmarks run alone.
func postgresBenchmarks() {
    guard let url = PostgresWorkloads.serverURL else {
        print("COHERENCE_POSTGRES_URL is not set: the PostgreSQL benchmarks are not registered (run under .ci/with-postgres)")
        return
    }
    let inserted = 50_000
    let fetched = 200_000

    for (side, insert) in PostgresWorkloads.insertWorkloads {
        var configuration = Benchmark.defaultConfiguration
        if side == "Postgres Coherence" {
            configuration.metrics.append(saveRoundTrips)
        }
        Benchmark("insert/\(side)", configuration: configuration) { benchmark in
            let result = try await insert(url, inserted, BenchmarkMeter(benchmark: benchmark))
            if side == "Postgres Coherence" {
                benchmark.measurement(saveRoundTrips, result.saveRoundTrips)
            }
            blackHole(result)
        }
    }

    for (side, fetch) in PostgresWorkloads.fetchWorkloads {
        let schema = SchemaBox()
        Benchmark("fetch/\(side)") { benchmark, name in
            blackHole(try await fetch(url, name, BenchmarkMeter(benchmark: benchmark)))
        } setup: {
            let name = try await PostgresWorkloads.itemSchema(url: url, count: fetched)
            schema.name = name
            return name
        } teardown: {
            if let name = schema.name {
                try await PostgresWorkloads.dropSchema(url: url, name)
            }
        }
    }
}

/// The schema a fetch benchmark's setup made, for its teardown (which
/// ordo-one/benchmark does not hand the setup's result).
private final class SchemaBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _name: String?
    var name: String? {
        get { lock.withLock { _name } }
        set { lock.withLock { _name = newValue } }
    }
}
