import Coherence
import Foundation
import GRDB

/// The row of GRDB's comparison suite: ten integer columns, row i holding i
/// in every column.
package final class Item: ManagedObject {
    @Attribute package var i0: Int64 = 0
    @Attribute package var i1: Int64 = 0
    @Attribute package var i2: Int64 = 0
    @Attribute package var i3: Int64 = 0
    @Attribute package var i4: Int64 = 0
    @Attribute package var i5: Int64 = 0
    @Attribute package var i6: Int64 = 0
    @Attribute package var i7: Int64 = 0
    @Attribute package var i8: Int64 = 0
    @Attribute package var i9: Int64 = 0

    /// Sets every column to `value`.
    package func fill(_ value: Int64) {
        i0 = value; i1 = value; i2 = value; i3 = value; i4 = value
        i5 = value; i6 = value; i7 = value; i8 = value; i9 = value
    }

    /// The sum of every column: reads each attribute once.
    package var total: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

/// The benchmarks' stores and files.
package enum Stack {
    package static let itemModel = try! ManagedObjectModel(entities: [Item.self])

    /// This process's folder of benchmark files; removed after each benchmark.
    package static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("coherence-benchmarks-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)

    /// A new, unused file path in ``directory``.
    package static func newFile(_ name: String) -> URL {
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(UUID().uuidString)-\(name)")
    }

    /// Removes every file the benchmarks made.
    package static func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new coordinator with one store.
    package static func coordinator(_ model: ManagedObjectModel, _ description: PersistentStoreDescription) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// A context on a new coordinator over `description`.
    package static func context(_ model: ManagedObjectModel, _ description: PersistentStoreDescription) throws -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator(model, description))
    }

    /// Inserts items `start..<start + count` (row i holds i) into `context`;
    /// call on its queue.
    @discardableResult
    package static func insertItems(_ count: Int, from start: Int = 0, in context: ManagedObjectContext) -> [Item] {
        (start..<start + count).map { i in
            let item = Item(context: context)
            item.fill(Int64(i))
            return item
        }
    }

    /// A fetched results controller over every item, sorted by `i0`, fetched;
    /// call on the context's queue.
    package static func itemController(in context: ManagedObjectContext) throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<Item>(sortBy: [SortDescriptor(\.i0)]), managedObjectContext: context)
        try controller.performFetch()
        return controller
    }

    /// An SQLite file holding `count` items (row i holds i), written by
    /// Coherence, so that both sides of a fetch benchmark read the same rows.
    package static func itemFile(count: Int) throws -> URL {
        let url = newFile("Items.sqlite")
        let context = try self.context(itemModel, .sqlite(url))
        try context.performAndWait {
            for start in stride(from: 0, to: count, by: 50_000) {
                insertItems(min(50_000, count - start), from: start, in: context)
                try context.save()
                context.reset()
            }
        }
        return url
    }

    /// The columns of Coherence's `Item` table, for the raw GRDB baselines.
    package static let itemColumns = (0..<10).map { "i\($0)" }.joined(separator: ", ")
}

/// A GRDB pool configured as Coherence's SQLite store opens its files (WAL).
package func rawPool(_ url: URL) throws -> DatabasePool {
    try DatabasePool(path: url.path)
}
