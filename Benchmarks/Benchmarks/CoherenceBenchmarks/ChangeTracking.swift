import Benchmark
import Coherence
import Foundation
import Workloads

/// Changing 100,000 objects, then one `processPendingChanges()` and its
/// notification, beside the plain-class baseline.
func changeTrackingBenchmarks() {
    let count = 100_000

    // The baseline's objects are made before its measurement starts.
    Benchmark("change/plain") { benchmark in
        blackHole(ChangeWorkloads.plain(count: count, meter: BenchmarkMeter(benchmark: benchmark)))
    }

    Benchmark("change/Coherence") { (benchmark: Benchmark, state: (ManagedObjectContext, [Item], ContextObservation)) in
        let (context, items, _) = state
        context.performAndWait {
            benchmark.startMeasurement()
            for item in items { item.i1 &+= 1 }
            context.processPendingChanges()
            benchmark.stopMeasurement()
            context.rollback()
        }
    } setup: {
        let context = try Stack.context(Stack.itemModel, .inMemory)
        return try context.performAndWait {
            let items = Stack.insertItems(count, in: context)
            try context.save()
            // One observer, as in the baseline: it receives the notification.
            let token = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { blackHole($0.updated.count) }
            return (context, items, token)
        }
    }
}
