import Benchmark
import Coherence
import Foundation
import Workloads

/// One change in a fetched results controller's list of 1,000 and of 100,000
/// objects: the object moves to a new place, and the controller reports it.
/// Each iteration makes 1,000 such changes, one `processPendingChanges()` each.
func fetchedResultsBenchmarks() {
    let changes = 1_000

    for count in [1_000, 100_000] {
        Benchmark("frc/\(count)", configuration: .init(maxIterations: 20)) {
            (benchmark: Benchmark, state: (ManagedObjectContext, [Item], FetchedResultsController<Item>)) in
            let (context, items, controller) = state
            context.performAndWait {
                // Each iteration (warm-up included) has its own number, so it
                // writes values no earlier one wrote: every write is a real
                // change the controller places.
                let round = Int64(benchmark.currentIteration)
                for change in 0..<changes {
                    // A new sort key: the object moves (a move implies an update).
                    let item = items[(change &* 7_919) % items.count]
                    item.i0 = Int64((change &* 104_729) % (count * 2)) &* 1_000_003 &+ round
                    context.processPendingChanges()
                }
            }
            blackHole(controller)
        } setup: {
            let context = try Stack.context(Stack.itemModel, .inMemory)
            return try context.performAndWait {
                let items = Stack.insertItems(count, in: context)
                try context.save()
                return (context, items, try Stack.itemController(in: context))
            }
        }
    }
}
