/// What a workload calls around the part it measures: ordo-one/benchmark's
/// start and stop of the measurement in the benchmarks, callgrind's start
/// and stop of instrumentation in `count-instructions`.
package protocol Meter {
    /// The measured part starts.
    func start()
    /// The measured part ends.
    func stop()
}

/// Keeps `value` alive and opaque to the optimizer, so that the work that
/// produced it is not optimized away.
/// (ordo-one/benchmark's `blackHole`, which this target does not link.)
@_optimize(none)
package func keep(_: some Any) {}
