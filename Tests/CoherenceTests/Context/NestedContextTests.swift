import Coherence
import Foundation
import Testing

@Suite("Nested contexts")
struct NestedContextTests {
    /// A root context on a new store and a private-queue child.
    private func stack(_ store: StoreKind) throws -> (root: ManagedObjectContext, child: ManagedObjectContext) {
        let root = try TestStack.context(store, name: "root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root)
        child.name = "child"
        return (root, child)
    }

    private func storedCount<T: ManagedObject>(_ type: T.Type, _ context: ManagedObjectContext) throws -> Int {
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        return try reader.performAndWait { try reader.count(for: FetchRequest<T>()) }
    }

    @Test(arguments: StoreKind.allCases) func childSaveGoesToTheParentNotTheStore(store: StoreKind) throws {
        let (root, child) = try stack(store)
        #expect(child.persistentStoreCoordinator === root.persistentStoreCoordinator)
        #expect(child.parent === root)
        let rootLog = root.performAndWait { ChangeLog(root) }
        let id = try child.performAndWait {
            let server = Server(context: child)
            server.name = "from the child"
            let item = FeedItem(context: child)
            item.server = server
            try child.save()
            #expect(!child.hasChanges)
            return server.objectID
        }
        #expect(id.isTemporaryID)
        try root.performAndWait {
            #expect(rootLog.changes.count == 1, "the parent announces what the child pushed")
            #expect(rootLog.last?.inserted.count == 2)
            #expect(root.insertedObjects.count == 2)
            let server = try #require(root.registeredObject(for: id) as? Server)
            #expect(server.name == "from the child")
            #expect(server.feedItems.count == 1)
        }
        #expect(try storedCount(Server.self, root) == 0, "nothing reached the store")
        try root.performAndWait { try root.save() }
        #expect(try storedCount(Server.self, root) == 1)
    }

    @Test(arguments: StoreKind.allCases) func childFetchesSeeTheParentsUnsavedState(store: StoreKind) throws {
        let (root, child) = try stack(store)
        try root.performAndWait {
            for name in ["kept", "renamed", "deleted"] {
                Server(context: root).name = name
            }
            try root.save()
            let servers = try root.fetch(FetchRequest<Server>())
            servers.first { $0.name == "renamed" }!.name = "renamed in the parent"
            root.delete(servers.first { $0.name == "deleted" }!)
            Server(context: root).name = "inserted in the parent"
        }
        try child.performAndWait {
            let names = try child.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.name)])).map(\.name)
            #expect(names == ["inserted in the parent", "kept", "renamed in the parent"])
            let matching = try child.fetch(FetchRequest<Server>(predicate: #Predicate { $0.name.contains("parent") }))
            #expect(matching.count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func childLearnsPermanentIDsAfterTheRootSaves(store: StoreKind) throws {
        let (root, child) = try stack(store)
        let server = try child.performAndWait {
            let server = Server(context: child)
            try child.save()
            return server
        }
        let temporary = child.performAndWait { server.objectID }
        #expect(temporary.isTemporaryID)
        try root.performAndWait { try root.save() }
        let permanent = child.performAndWait { server.objectID }
        #expect(!permanent.isTemporaryID, "the child learned the permanent ID")
        try child.performAndWait {
            #expect(child.registeredObject(for: permanent) === server)
            server.name = "changed after the root saved"
            try child.save()
        }
        try root.performAndWait {
            #expect((root.registeredObject(for: permanent) as? Server)?.name == "changed after the root saved")
            try root.save()
        }
    }

    @Test func grandchildrenStackUp() throws {
        let (root, child) = try stack(.sqlite)
        let grandchild = ManagedObjectContext(concurrencyType: .privateQueue, parent: child)
        try grandchild.performAndWait {
            Server(context: grandchild).name = "deep"
            try grandchild.save()
        }
        try child.performAndWait {
            #expect(child.insertedObjects.count == 1)
            try child.save()
        }
        try root.performAndWait {
            #expect(root.insertedObjects.count == 1)
            try root.save()
        }
        #expect(try storedCount(Server.self, root) == 1)
        // The IDs travel down one queue at a time: the child's turn first.
        child.performAndWait {}
        let learned = grandchild.performAndWait { grandchild.registeredObjects.allSatisfy { !$0.objectID.isTemporaryID } }
        #expect(learned)
    }

    @Test func aChildWithAutomaticMergingFollowsItsParentsSaves() async throws {
        let (root, child) = try stack(.inMemory)
        child.automaticallyMergesChangesFromParent = true
        let id = try await root.perform {
            let server = Server(context: root)
            server.name = "v1"
            try root.save()
            return server.objectID
        }
        let first = await child.perform { (child.object(with: id) as! Server).name }
        #expect(first == "v1")
        var merges = child.events(for: ManagedObjectContext.DidMergeChangesMessage.self).makeAsyncIterator()
        try await root.perform {
            (root.object(with: id) as! Server).name = "v2"
            try root.save()
        }
        #expect(try #require(await merges.next()).updated == [id])
        #expect(await child.perform { (child.object(with: id) as! Server).name } == "v2")
    }

    /// The seed article's trap: with a private-queue writer parent and a
    /// main-queue child (a document-style stack), one change saved in the
    /// child produces two didChangeObjects for an observer registered with no
    /// object (the child's, then the parent's) and one for an observer
    /// registered with the child.
    @MainActor
    @Test func documentStackDoubleNotification() throws {
        let writer = try TestStack.context(.sqlite, name: "writer")
        let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, parent: writer)
        let server = Server(context: viewContext)
        try viewContext.save()
        try writer.performAndWait { try writer.save() }

        let anyContext = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: nil, queue: nil) { note in
            if let context = note.object as? ManagedObjectContext, context === writer || context === viewContext {
                anyContext.store(note)
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let childOnly = NotificationCounter(ManagedObjectContext.didChangeObjectsNotification, object: viewContext)

        server.name = "one change"
        try viewContext.save()

        #expect(anyContext.count == 2, "observed with no object: the child's notification and the parent's")
        #expect(childOnly.count == 1, "observed with the child: one")
    }
}
