import Benchmark
import Coherence
import Foundation
import Workloads

/// An object with a title, for the sorted-fetch workload. Its title is a
/// fetch index, as a Core Data user declares one for a sorted list.
final class Titled: ManagedObject {
    @Attribute var title = ""
    override class var indexes: [[String]] { [["title"]] }
}

/// The most common fetch: a page of 20 of 10,000 objects sorted by a string
/// (`SortDescriptor(\.title)`), beside the same page without the sort. The
/// SQLite store sorts and windows in SQL, with a collation that compares as
/// the `SortDescriptor` does, and walks the title's fetch index instead of
/// sorting every row. Each iteration runs 100 fetches, the context
/// reset after each so that every fetch reads the store.
func sortedFetchBenchmarks() {
    let count = 10_000
    let fetches = 100
    let model = try! ManagedObjectModel(entities: [Titled.self])
    let sides: [(String, [SortDescriptor<Titled>])] = [
        ("sortedFetch/Coherence", [SortDescriptor(\Titled.title)]),
        ("sortedFetch/unsorted", []),
    ]

    for (name, sortBy) in sides {
        Benchmark(name) { benchmark, url in
            let context = try! Stack.context(model, .sqlite(url))
            var total = 0
            try! context.performAndWait {
                let request = FetchRequest<Titled>(sortBy: sortBy)
                request.fetchLimit = 20
                benchmark.startMeasurement()
                for _ in 0..<fetches {
                    total &+= try context.fetch(request).count
                    context.reset()
                }
                benchmark.stopMeasurement()
            }
            blackHole(total)
        } setup: {
            let url = Stack.newFile("Titled.sqlite")
            let context = try Stack.context(model, .sqlite(url))
            try context.performAndWait {
                for i in 0..<count {
                    Titled(context: context).title = "Feed item \((i &* 7_919) % count)"
                }
                try context.save()
            }
            return url
        }
    }
}
