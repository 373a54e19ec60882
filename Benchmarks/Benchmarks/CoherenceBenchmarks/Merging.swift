import Benchmark
import Coherence
import Foundation
import Synchronization
import Workloads

/// Two contexts of one SQLite coordinator: a background writer holding
/// 10,000 items, and a view context with a fetched results controller over
/// them.
final class MergeStack {
    let background: ManagedObjectContext
    let view: ManagedObjectContext
    let items: [Item]
    let controller: FetchedResultsController<Item>
    private var round: Int64 = 0

    init(count: Int, automaticMergeBudget: Duration?) throws {
        let coordinator = try Stack.coordinator(Stack.itemModel, .sqlite(Stack.newFile("Merge.sqlite")))
        background = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        view = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let background = background
        items = try background.performAndWait {
            let items = Stack.insertItems(count, in: background)
            try background.save()
            return items
        }
        let view = view
        controller = try view.performAndWait { try Stack.itemController(in: view) }
        if let automaticMergeBudget {
            view.automaticMergeBudget = automaticMergeBudget
            view.automaticallyMergesChangesFromParent = true
        }
    }

    /// Updates every item in the background context (moving none of them in
    /// the controller's order).
    func changeEveryItem() {
        // Negative: no item holds the value before (fill wrote 0...count-1).
        round -= 1
        let round = round
        background.performAndWait {
            for item in items { item.i1 = round }
        }
    }

    /// Saves the background context; returns what its didSave announced.
    func save() throws -> ObjectIDChanges {
        let saved = Mutex(ObjectIDChanges())
        let token = background.addObserver(for: ManagedObjectContext.DidSaveMessage.self) { change in
            saved.withLock { $0 = change.objectIDs }
        }
        try background.performAndWait { try background.save() }
        withExtendedLifetime(token) {}
        return saved.withLock { $0 }
    }
}

/// A background save of 10,000 updated objects, and the view context's merge
/// of it (with its fetched results controller), in the same run.
func mergingBenchmarks() {
    let count = 10_000
    let stallMetric = BenchmarkMetric.custom("longest stall (us)", polarity: .prefersSmaller, useScalingFactor: false)
    // Plain counts: no rounding to thousands in the export.
    let stallConfiguration = Benchmark.Configuration(metrics: [.wallClock, stallMetric], units: [stallMetric: .count])

    Benchmark("merge/save") { benchmark, stack in
        stack.changeEveryItem()
        benchmark.startMeasurement()
        let note = try! stack.save()
        benchmark.stopMeasurement()
        stack.view.performAndWait { stack.view.mergeChanges(fromContextDidSave: note) }
    } setup: {
        try MergeStack(count: count, automaticMergeBudget: nil)
    }

    Benchmark("merge/merge") { benchmark, stack in
        stack.changeEveryItem()
        let note = try! stack.save()
        benchmark.startMeasurement()
        stack.view.performAndWait { stack.view.mergeChanges(fromContextDidSave: note) }
        benchmark.stopMeasurement()
    } setup: {
        try MergeStack(count: count, automaticMergeBudget: nil)
    }

    // Automatic merging in chunks of at most 5 ms: how long does other work
    // wait for the view context's queue while the merge runs? A probe asks
    // for the queue again and again and records its longest wait.
    Benchmark("merge/automatic", configuration: stallConfiguration) { benchmark, stack in
        stack.changeEveryItem()
        let clock = ContinuousClock()
        let merged = Mutex(0)
        let token = stack.view.addObserver(for: ManagedObjectContext.DidMergeChangesMessage.self) { change in
            merged.withLock { $0 += change.objectIDs.updated.count }
        }
        benchmark.startMeasurement()
        let saved = try! stack.save()
        var longest = Duration.zero
        while merged.withLock({ $0 }) < saved.updated.count {
            let asked = clock.now
            stack.view.performAndWait {}
            longest = max(longest, clock.now - asked)
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(token) {}
        let (seconds, attoseconds) = longest.components
        benchmark.measurement(stallMetric, Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000))
    } setup: {
        try MergeStack(count: count, automaticMergeBudget: .milliseconds(5))
    }
}
