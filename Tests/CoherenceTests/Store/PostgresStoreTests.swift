import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// The PostgreSQL store through Core Data's API: loading it with a
/// container, an unreachable server, and the blocking bridge called from
/// the main actor and from `perform`. (Opening, migration and value round
/// trips, shared with SQLite, are in `StoreOpeningTests` and
/// `DatabaseValueRoundTripTests`.)
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test("An empty schema gets the store's tables", .enabled(if: PostgresTestServer.shouldRun))
    func anEmptySchemaGetsTheTables() throws {
        let configuration = try PostgresTestServer.newSchemaConfiguration()
        let container = PersistentContainer(name: "Feeds", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.postgres(configuration)]
        try container.loadPersistentStores()
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first as? PostgresStore)
        #expect(store.configuration.schema == configuration.schema)
        let database = TestDatabase.postgres(configuration)
        let tables = try database.tableNames()
        for table in ["Z_METADATA", "Z_PRIMARYKEY", "Server", "FeedItem", "Sample", "Z_Article_tags"] {
            #expect(tables.contains(table), "\(table) in \(tables)")
        }
        #expect(try database.columnNames("Server") == ["Z_PK", "Z_OPT", "name", "unreadCount"])
        let identifier = try PostgresConnections(configuration: configuration, maximumConnections: 1).read {
            try $0.string("SELECT value FROM \"Z_METADATA\" WHERE key = 'storeUUID'")
        }
        #expect(identifier == store.identifier)
        #expect(try store.modelHash() != nil)
    }

    /// Keys of one save come from the entity's sequence in one statement;
    /// when other processes took numbers in between (here: a sequence that
    /// skips), the keys are still each distinct and each object saved.
    @Test("Keys taken from a sequence that are not consecutive still key every new object", .enabled(if: PostgresTestServer.shouldRun))
    func keysThatAreNotConsecutive() throws {
        let database = try TestDatabase.new(.postgres)
        _ = try database.coordinator()
        try database.execute("ALTER SEQUENCE \"Server_Z_PK_seq\" INCREMENT BY 3")
        let context = try database.context()
        let keys = try context.performAndWait {
            for name in ["a", "b", "c", "d"] { Server(context: context).name = name }
            try context.save()
            return try context.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.name)])).map { ($0.name, $0.objectID.primaryKey ?? 0) }
        }
        #expect(keys.map(\.0) == ["a", "b", "c", "d"])
        let sorted = keys.map(\.1).sorted()
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $1 - $0 == 3 }, "keys \(sorted) step by the sequence's increment")
    }

    /// Needs no server: it runs everywhere.
    @Test("A server that does not answer makes loading throw serverUnreachable naming host and port")
    func anUnreachableServerIsReportedWhenLoading() throws {
        let port = try PostgresTestServer.closedPort()
        let container = PersistentContainer(name: "Feeds", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [
            .postgres(host: "127.0.0.1", port: port, user: "nobody", database: "none", tls: .disable),
        ]
        #expect {
            try container.loadPersistentStores()
        } throws: { error in
            guard case StoreError.serverUnreachable(host: "127.0.0.1", port: port, _) = error else { return false }
            return "\(error)".contains("127.0.0.1:\(port)")
        }
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)

        // Core Data's form: the error is handed to the completion handler.
        var errors: [any Error] = []
        container.loadPersistentStores { _, error in if let error { errors.append(error) } }
        #expect(errors.count == 1)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        #expect(throws: StoreError.self) {
            try coordinator.addPersistentStore(.postgres(url: "postgres://nobody@127.0.0.1:\(port)/none?sslmode=disable&connect_timeout=5"))
        }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test("Saving and fetching on the main actor with the main-queue context does not deadlock",
          .enabled(if: PostgresTestServer.shouldRun))
    @MainActor
    func mainQueueContextOnTheMainActor() throws {
        let container = PersistentContainer(name: "Feeds", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.postgres(try PostgresTestServer.newSchemaConfiguration())]
        try container.loadPersistentStores()
        let context = container.viewContext
        let server = Server(context: context)
        server.name = "main"
        let item = FeedItem(context: context)
        item.title = "on the main actor"
        item.server = server
        try context.save()
        #expect(!server.objectID.isTemporaryID)

        // A separate main-queue context reads the rows back: fetch, then a to-many fault.
        let other = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: container.persistentStoreCoordinator)
        let servers = try other.fetch(FetchRequest<Server>())
        #expect(servers.map(\.name) == ["main"])
        #expect(servers.first?.feedItems.map(\.title) == ["on the main actor"])
        #expect(try other.count(for: FetchRequest<FeedItem>()) == 1)
    }

    @Test("Saving, fetching and firing faults inside perform on a private-queue context does not deadlock",
          .enabled(if: PostgresTestServer.shouldRun))
    func privateQueueContextInsidePerform() async throws {
        let container = PersistentContainer(name: "Feeds", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.postgres(try PostgresTestServer.newSchemaConfiguration())]
        try container.loadPersistentStores()
        let writer = container.newBackgroundContext()
        let serverID = try await writer.perform {
            let server = Server(context: writer)
            server.name = "background"
            for title in ["a", "b", "c"] {
                let item = FeedItem(context: writer)
                item.title = title
                item.server = server
            }
            try writer.save()
            return server.objectID
        }
        let titles = try await container.performBackgroundTask { context in
            let server = try #require(try context.existingObject(with: serverID) as? Server)
            return server.feedItems.map(\.title).sorted()
        }
        #expect(titles == ["a", "b", "c"])

        // Saves from two contexts' queues at once, each blocking its own queue.
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        async let one: Void = first.perform {
            let item = FeedItem(context: first)
            item.title = "from first"
            try first.save()
        }
        async let two: Void = second.perform {
            let item = FeedItem(context: second)
            item.title = "from second"
            try second.save()
        }
        _ = try await (one, two)
        let count = try await writer.perform { try writer.count(for: FetchRequest<FeedItem>()) }
        #expect(count == 5)
    }
}
