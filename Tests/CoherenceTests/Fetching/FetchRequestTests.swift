import Coherence
import Foundation
import Testing

@Suite("Fetching")
struct FetchRequestTests {
    /// Saves items "a" to "e" (read: a, c) and returns the context.
    private func seeded(_ store: StoreKind) throws -> ManagedObjectContext {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "main"
            for title in ["c", "a", "e", "b", "d"] {
                let item = FeedItem(context: context)
                item.title = title
                item.read = title == "a" || title == "c"
                item.server = server
            }
            try context.save()
        }
        return context
    }

    @Test(arguments: StoreKind.allCases) func predicateSortLimitAndOffset(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait {
            let unread = try context.fetch(FetchRequest<FeedItem>(
                predicate: #Predicate { $0.read == false }, sortBy: [SortDescriptor(\.title)]))
            #expect(unread.map(\.title) == ["b", "d", "e"])

            let window = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title, order: .reverse)])
            window.fetchOffset = 1
            window.fetchLimit = 2
            #expect(try context.fetch(window).map(\.title) == ["d", "c"])
            #expect(try context.count(for: window) == 2)
            #expect(try context.count(for: FetchRequest<FeedItem>()) == 5)
        }
    }

    @Test(arguments: StoreKind.allCases) func toOneKeyPathsInPredicates(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait {
            let other = Server(context: context)
            other.name = "other"
            let lone = FeedItem(context: context)
            lone.title = "z"
            lone.server = other
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.server?.name == "other" })
            let matched = try context.fetch(request)
            #expect(matched == [lone])
        }
    }

    @Test(arguments: StoreKind.allCases) func pendingChangesAreIncludedByDefault(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]))
            let fresh = FeedItem(context: context)
            fresh.title = "f"
            context.delete(all[0])          // "a"
            all[1].read = true                  // "b"
            let unread = try context.fetch(FetchRequest<FeedItem>(
                predicate: #Predicate { $0.read == false }, sortBy: [SortDescriptor(\.title)]))
            #expect(unread.map(\.title) == ["d", "e", "f"])
            #expect(try context.count(for: FetchRequest<FeedItem>()) == 5, "one inserted, one deleted")
        }
    }

    @Test(arguments: StoreKind.allCases) func withoutPendingChangesMatchesCommittedValuesButReturnsLiveObjects(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]))
            _ = FeedItem(context: context)
            all[1].read = true // "b", committed as unread
            all[1].title = "zz"
            context.delete(all[3]) // "d"
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.read == false }, sortBy: [SortDescriptor(\.title)])
            request.includesPendingChanges = false
            let committedUnread = try context.fetch(request)
            #expect(committedUnread.count == 3, "b, d and e were unread when saved")
            #expect(committedUnread[0] === all[1], "the objects are the context's own")
            #expect(committedUnread[0].title == "zz", "with their unsaved changes")
            #expect(committedUnread[1] === all[3])
        }
    }

    @Test(arguments: StoreKind.allCases) func fetchedObjectsAreRegisteredAndUniqued(store: StoreKind) throws {
        let context = try seeded(store)
        try context.performAndWait {
            let first = try context.fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]))
            let second = try context.fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]))
            #expect(zip(first, second).allSatisfy { $0 === $1 })
            #expect(context.registeredObjects.count == 6)
        }
    }

    @Test(arguments: StoreKind.allCases) func freshContextFetchesFaultsThatFireOnFirstUse(store: StoreKind) throws {
        let context = try seeded(store)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            let servers = try reader.fetch(FetchRequest<Server>())
            let server = try #require(servers.first)
            #expect(server.isFault, "no predicate or sort read it yet")
            let items = server.feedItems
            #expect(!server.isFault)
            #expect(items.count == 5)
            #expect(items.allSatisfy { $0.isFault }, "related objects stay faults until touched")
            #expect(items.filter { !$0.read }.count == 3)
        }
    }
}
