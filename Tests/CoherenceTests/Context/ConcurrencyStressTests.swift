import Coherence
import Foundation
import Testing

@Suite("Concurrent saves and merges")
struct ConcurrencyStressTests {
    /// Occupies `context`'s queue until `gate` is signalled (a synchronous
    /// function, so that `perform` is the enqueueing one, not the async one).
    private func hold(_ context: ManagedObjectContext, until gate: DispatchSemaphore) {
        context.perform { gate.wait() }
    }

    /// Found in review: a chunked merge left its remaining chunks behind a
    /// later save's merge, so rows inserted by one save and deleted by the
    /// next came back as registered objects.
    @Test func chunkedMergesOfSuccessiveSavesApplyInOrder() async throws {
        let writer = try TestStack.context(.sqlite, name: "writer")
        let viewer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
        viewer.automaticMergeBudget = .zero // one object per chunk
        viewer.automaticallyMergesChangesFromParent = true
        var merges = viewer.events(for: ManagedObjectContext.DidMergeChangesMessage.self).makeAsyncIterator()
        // Hold the viewer's queue so that both saves' merges wait in it.
        let gate = DispatchSemaphore(value: 0)
        hold(viewer, until: gate)
        let ids = try await writer.perform {
            defer { gate.signal() }
            let servers = (0..<3).map { _ in Server(context: writer) }
            try writer.save()                                   // three inserted, merged in three chunks
            for server in servers { writer.delete(server) }
            try writer.save()                                   // and deleted, in three more
            return servers.map(\.objectID)
        }
        var merged: [ObjectIDChanges] = []
        while merged.count < 6, let merge = await merges.next() { merged.append(merge) }
        #expect(merged.prefix(3).allSatisfy { $0.inserted.count == 1 && $0.deleted.isEmpty }, "the first save's chunks come first")
        #expect(merged.suffix(3).allSatisfy { $0.deleted.count == 1 && $0.inserted.isEmpty })
        let registered = await viewer.perform { ids.filter { viewer.registeredObject(for: $0) != nil }.count }
        #expect(registered == 0, "nothing deleted comes back")
    }

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
            // The viewer keeps the objects it loaded, so each merge announces
            // them (Core Data's retainsRegisteredObjects).
            viewer.retainsRegisteredObjects = true
            return ids.map { viewer.object(with: $0) as! Server }.filter { !$0.name.isEmpty }.count
        }
        #expect(held == 20)
        viewer.automaticMergeBudget = .zero // one object per chunk
        viewer.automaticallyMergesChangesFromParent = true
        var merges = viewer.events(for: ManagedObjectContext.DidMergeChangesMessage.self).makeAsyncIterator()
        var changes = viewer.events(for: ManagedObjectContext.ObjectsDidChangeMessage.self).makeAsyncIterator()
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
        var merges = viewContext.events(for: ManagedObjectContext.DidMergeChangesMessage.self).makeAsyncIterator()

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
