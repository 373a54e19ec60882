import Benchmark
import Workloads

/// Every workload beside its baseline, in one invocation:
/// `swift package benchmark` in this folder. Benchmarks named
/// "<workload>/<side>" pair up in `Benchmarks/report`, which computes the
/// ratios and writes BENCHMARKS.md.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 10
    )
    Benchmark.teardown = { Stack.removeFiles() }

    insertAndFetchBenchmarks()
    postgresBenchmarks()
    changeTrackingBenchmarks()
    parentWatchingChildBenchmarks()
    mergingBenchmarks()
    fetchedResultsBenchmarks()
    faultBenchmarks()
    sortedFetchBenchmarks()
}
