@testable import Coherence
import Foundation
import GRDB
import Testing

/// An entity with fetch indexes: one on a string, one compound.
final class IndexedItem: ManagedObject {
    @Attribute var title = ""
    @Attribute var rank = 0
    override class var indexes: [[String]] { [["title"], ["rank", "title"]] }
}

/// The same entity, as a later version of the app declares it: no indexes.
final class IndexedItemWithoutIndexes: ManagedObject {
    @Attribute var title = ""
    @Attribute var rank = 0
    override class var entityName: String { "IndexedItem" }
}

/// A later version still: `rank` removed, with the index that used it.
final class IndexedItemWithoutRank: ManagedObject {
    @Attribute var title = ""
    override class var entityName: String { "IndexedItem" }
    override class var indexes: [[String]] { [["title"]] }
}

final class EmptilyIndexed: ManagedObject {
    @Attribute var title = ""
    override class var indexes: [[String]] { [[]] }
}

final class BadlyIndexed: ManagedObject {
    @Attribute var title = ""
    override class var indexes: [[String]] { [["nope"]] }
}

/// Core Data's fetch indexes (`NSEntityDescription.indexes`,
/// https://developer.apple.com/documentation/coredata/nsentitydescription/indexes):
/// declared on the entity, created by the store, used by sorted fetches.
@Suite("Fetch indexes")
struct FetchIndexTests {
    private func context(_ type: ManagedObject.Type, _ url: URL) throws -> (ManagedObjectContext, SQLiteStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [type]))
        try coordinator.addPersistentStore(.sqlite(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return (context, try #require(coordinator.persistentStores.first as? SQLiteStore))
    }

    /// How SQLite runs the store's query for `request`.
    private func plan(_ store: SQLiteStore, _ request: StoreFetchRequest) throws -> [String] {
        let (sql, arguments) = try store.store.query(for: request)
        return try store.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT \(SQLSchema.selectList(request.entity, alias: "t0")) \(sql)",
                             arguments: StatementArguments(arguments.map(\.databaseValue))).map { $0["detail"] as String }
        }
    }

    private func indexNames(_ store: SQLiteStore) throws -> [String] {
        try store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'ZFETCHINDEX *' ORDER BY name")
        }
    }

    @Test func anIndexNamesOnlyAttributes() {
        #expect(throws: ModelError.invalidIndex(entity: "BadlyIndexed", property: "nope", reason: "only stored (not transient) attributes of BadlyIndexed can be indexed")) {
            try ManagedObjectModel(entities: [BadlyIndexed.self])
        }
        #expect(throws: ModelError.invalidIndex(entity: "EmptilyIndexed", property: "indexes", reason: "an index names at least one attribute")) {
            try ManagedObjectModel(entities: [EmptilyIndexed.self])
        }
    }

    /// Removing an indexed attribute (and so its index) migrates: the index
    /// goes before the column does, which SQLite requires.
    @Test func removingAnIndexedAttributeMigrates() throws {
        let url = TestFiles.newURL("unranked.sqlite")
        do {
            let (context, _) = try context(IndexedItem.self, url)
            try context.performAndWait {
                let item = IndexedItem(context: context)
                item.title = "kept"
                item.rank = 3
                try context.save()
            }
        }
        let (context, store) = try context(IndexedItemWithoutRank.self, url)
        #expect(try indexNames(store) == ["ZFETCHINDEX IndexedItem(title)"])
        let titles = try context.performAndWait { try context.fetch(FetchRequest<IndexedItemWithoutRank>()).map(\.title) }
        #expect(titles == ["kept"])
    }

    /// A page of a sorted fetch walks the index (no sort of every row), and
    /// holds exactly what a sort in memory gives, for tricky strings too.
    @Test func aSortedPageReadsThroughTheIndex() throws {
        let (context, store) = try context(IndexedItem.self, TestFiles.newURL("indexed.sqlite"))
        #expect(try indexNames(store) == ["ZFETCHINDEX IndexedItem(rank,title)", "ZFETCHINDEX IndexedItem(title)"])
        let entity = try #require(store.store.model.entitiesByName["IndexedItem"])
        try context.performAndWait { () throws in
            for (position, title) in (StringSortTests.tricky + (0..<200).map { "item \($0)" }).enumerated() {
                let item = IndexedItem(context: context)
                item.title = title
                item.rank = position % 7
            }
            try context.save()

            var byTitle = StoreFetchRequest(entity: entity, predicate: nil, variable: nil,
                                            sortDescriptors: [StoreSortDescriptor(propertyIndex: 0, ascending: true)])
            byTitle.fetchLimit = 20
            let titlePlan = try plan(store, byTitle)
            #expect(titlePlan.contains { $0.contains("INDEX ZFETCHINDEX IndexedItem(title)") } && !titlePlan.contains { $0.contains("TEMP B-TREE") },
                    "\(titlePlan)")
            var byRankAndTitle = byTitle
            byRankAndTitle.sortDescriptors = [StoreSortDescriptor(propertyIndex: 1, ascending: true), StoreSortDescriptor(propertyIndex: 0, ascending: true)]
            let compoundPlan = try plan(store, byRankAndTitle)
            #expect(compoundPlan.contains { $0.contains("INDEX ZFETCHINDEX IndexedItem(rank,title)") } && !compoundPlan.contains { $0.contains("TEMP B-TREE") },
                    "\(compoundPlan)")

            let request = FetchRequest<IndexedItem>(sortBy: [SortDescriptor(\.title)])
            request.fetchLimit = 20
            request.fetchOffset = 5
            // Titles, not objects: equal titles may come in either order.
            let page = try context.fetch(request).map(\.title)
            let all = try context.fetch(FetchRequest<IndexedItem>()).sorted(using: [SortDescriptor(\.title)]).map(\.title)
            #expect(page == Array(all[5..<25]))
        }
    }

    /// Indexes the model no longer declares are dropped when the store opens.
    @Test func indexesNoLongerDeclaredAreDropped() throws {
        let url = TestFiles.newURL("reindexed.sqlite")
        do {
            let (context, store) = try context(IndexedItem.self, url)
            try context.performAndWait {
                IndexedItem(context: context).title = "kept"
                try context.save()
            }
            #expect(try indexNames(store).count == 2)
        }
        let (context, store) = try context(IndexedItemWithoutIndexes.self, url)
        #expect(try indexNames(store).isEmpty)
        let titles = try context.performAndWait { try context.fetch(FetchRequest<IndexedItemWithoutIndexes>()).map(\.title) }
        #expect(titles == ["kept"])
    }

    /// A store last opened by a Swift whose string order differed has its
    /// string indexes rebuilt in this process's order, and remembers it.
    @Test func indexesAreRebuiltWhenTheStringOrderChanged() throws {
        let url = TestFiles.newURL("reordered.sqlite")
        do {
            let (context, _) = try context(IndexedItem.self, url)
            try context.performAndWait {
                for title in ["b", "a", "e\u{301}", "é"] { IndexedItem(context: context).title = title }
                try context.save()
            }
        }
        // Another string order built the index: here, the reverse one.
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            db.add(collation: DatabaseCollation(SQLiteCollations.name(of: .comparable)) { lhs, rhs in
                lhs == rhs ? .orderedSame : (lhs < rhs ? .orderedDescending : .orderedAscending)
            })
            try db.execute(sql: "REINDEX \(SQLiteCollations.name(of: .comparable))")
            try db.execute(sql: "UPDATE Z_METADATA SET value = 'an older order' WHERE key = 'collationOrder'")
        }
        try queue.close()

        let (context, store) = try context(IndexedItem.self, url)
        let stored = try store.database.read { db in try String.fetchOne(db, sql: "SELECT value FROM Z_METADATA WHERE key = 'collationOrder'") }
        #expect(stored != nil && stored != "an older order")
        let titles = try context.performAndWait { () throws -> [String] in
            let request = FetchRequest<IndexedItem>(sortBy: [SortDescriptor(\.title)])
            request.fetchLimit = 2
            return try context.fetch(request).map(\.title)
        }
        #expect(titles == ["a", "b"], "the index follows this process's order again")
        let integrity = try store.database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
    }
}
