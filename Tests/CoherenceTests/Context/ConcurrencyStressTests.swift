import Coherence
import Foundation
import Testing

@Suite("Concurrent saves and merges")
struct ConcurrencyStressTests {
    @Test func largeAutomaticMergesArriveInChunks() async throws {
        let writer = try TestStack.context(.sqlite, name: "writer")
        let viewer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        let ids = try await writer.perform {
            let servers = (0..<20).map { index in
                let server = Server(context: writer)
                server.name = "server \(index)"
                return server
            }
            try writer.save()
            return servers.map(\.objectID)
        }
        let held = await viewer.perform { () -> Int in
            ids.map { viewer.object(with: $0) as! Server }.filter { !$0.name.isEmpty }.count
        }
        #expect(held == 20)
        viewer.automaticMergeBudget = .zero // one object per chunk
        viewer.automaticallyMergesChangesFromParent = true
        var merges = viewer.events(for: ContextDidMergeChanges.self).makeAsyncIterator()
        var changes = viewer.events(for: ObjectsDidChange.self).makeAsyncIterator()
        try await writer.perform {
            for id in ids { (writer.object(with: id) as! Server).unreadCount = 1 }
            try writer.save()
        }
        var merged = Set<ManagedObjectID>()
        var chunks = 0
        while merged.count < ids.count, let merge = await merges.next() {
            chunks += 1
            merged.formUnion(merge.updated)
            let change = try #require(await changes.next())
            #expect(change.refreshed.count == 1, "each chunk announces its own objects once")
        }
        #expect(merged == Set(ids))
        #expect(chunks == 20)
        let counts = await viewer.perform { ids.map { (viewer.object(with: $0) as! Server).unreadCount } }
        #expect(counts.allSatisfy { $0 == 1 })
    }

    /// Several background contexts save at once while a main-queue view
    /// context merges every save; run under the Thread Sanitizer by CI.
    @Test func backgroundSavesMergeIntoTheViewContext() async throws {
        let container = PersistentContainer(name: "Stress", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.sqlite(TestFiles.newURL("Stress.sqlite"))]
        try container.loadPersistentStores()
        let viewContext = container.viewContext
        viewContext.automaticallyMergesChangesFromParent = true
        var merges = viewContext.events(for: ContextDidMergeChanges.self).makeAsyncIterator()

        let writers = 4, rounds = 10, itemsPerRound = 5
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        let server = Server(context: context)
                        server.name = "writer \(writer)"
                        for round in 0..<rounds {
                            for index in 0..<itemsPerRound {
                                let item = FeedItem(context: context)
                                item.title = "\(writer).\(round).\(index)"
                                item.server = server
                            }
                            server.unreadCount = server.feedItems.count
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        var mergedSaves = 0
        while mergedSaves < writers * rounds, await merges.next() != nil { mergedSaves += 1 }
        #expect(mergedSaves == writers * rounds)
        let (items, counts) = try await viewContext.perform { () throws -> (Int, [Int]) in
            let servers = try viewContext.fetch(FetchRequest<Server>())
            return (try viewContext.count(for: FetchRequest<FeedItem>()), servers.map(\.unreadCount))
        }
        #expect(items == writers * rounds * itemsPerRound)
        #expect(counts == Array(repeating: rounds * itemsPerRound, count: writers))
    }
}
