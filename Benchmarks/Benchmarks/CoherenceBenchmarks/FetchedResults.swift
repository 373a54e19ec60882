import Benchmark
import Coherence
import Foundation

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
                for change in 0..<changes {
                    // A new sort key: the object moves (a move implies an update).
                    let item = items[(change &* 7_919) % items.count]
                    item.i0 = Int64((change &* 104_729) % (count * 2))
                    context.processPendingChanges()
                }
            }
            blackHole(controller)
        } setup: {
            let context = try Stack.context(Stack.itemModel, .inMemory)
            return try context.performAndWait {
                let items = (0..<count).map { i in
                    let item = Item(context: context)
                    item.fill(Int64(i * 2))
                    return item
                }
                try context.save()
                let controller = FetchedResultsController(
                    fetchRequest: FetchRequest<Item>(sortBy: [SortDescriptor(\.i0)]), managedObjectContext: context)
                try controller.performFetch()
                return (context, items, controller)
            }
        }
    }
}
