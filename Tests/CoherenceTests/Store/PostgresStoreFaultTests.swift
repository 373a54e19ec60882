import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// The PostgreSQL store when the server drops its connections: between two
/// saves (the next save reconnects), and in the middle of a save (the save
/// throws, commits nothing, and the context keeps its changes for a retry).
@Suite("PostgreSQL store faults")
struct PostgresStoreFaultTests {
    /// Polls `probe` until it gives a value; fails at the deadline.
    private func poll<T>(_ what: String, deadline: TimeInterval = 120, _ probe: () throws -> T?) async throws -> T {
        let end = Date().addingTimeInterval(deadline)
        while true {
            if let value = try probe() { return value }
            guard Date() < end else { throw DeadlineExceeded(what: what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func container(_ configuration: PostgresConfiguration) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Feeds", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.postgres(configuration)]
        try container.loadPersistentStores()
        return container
    }

    @Test("A connection the server dropped between two saves is replaced: the second save succeeds",
          .enabled(if: PostgresTestServer.shouldRun))
    func aConnectionDroppedBetweenSavesIsReplaced() async throws {
        // A database of its own: every connection to it is terminated.
        let configuration = try await PostgresTestServer.newDatabaseConfiguration()
        let container = try container(configuration)
        let context = container.newBackgroundContext()
        let serverID = try await context.perform {
            let server = Server(context: context)
            server.name = "first save"
            server.unreadCount = 5
            try context.save()
            return server.objectID
        }
        // Several connections in the pool: reads from several contexts at once.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                let reader = container.newBackgroundContext()
                group.addTask { try await reader.perform { try reader.count(for: FetchRequest<Server>()) } }
            }
            for try await count in group { #expect(count == 1) }
        }
        let admin = try PostgresTestServer.adminConnections()
        func terminateAll() throws -> Int64? {
            try admin.write { db in
                try db.int64("""
                    SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 60000) AS done FROM pg_stat_activity
                    WHERE datname = ?) AS t WHERE done
                    """, [.string(configuration.database)])
            }
        }
        #expect(try terminateAll() ?? 0 >= 1, "the store kept a connection open")

        try await context.perform {
            let server = try #require(try context.existingObject(with: serverID) as? Server)
            server.name = "second save"
            let item = FeedItem(context: context)
            item.title = "after the drop"
            item.server = server
            try context.save()
        }
        // A read after another drop reconnects too.
        #expect(try terminateAll() ?? 0 >= 1)
        let readContext = try TestDatabase.postgres(configuration).context()
        let (name, unread, titles) = try await readContext.perform {
            let server = try #require(try readContext.existingObject(with: serverID) as? Server)
            return (server.name, server.unreadCount, server.feedItems.map(\.title))
        }
        #expect(name == "second save" && unread == 5 && titles == ["after the drop"])
        let count = try await context.perform { try context.count(for: FetchRequest<FeedItem>()) }
        #expect(count == 1, "the saving container reads after the drop too")
    }

    /// The save's connection is terminated while the save waits, inside its
    /// write transaction, for a row another session locked: the save throws,
    /// nothing of it is committed, the context keeps its unsaved changes (as
    /// after any failed save: https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/save()),
    /// and the same save succeeds once the lock is released.
    @Test("A save whose connection is killed in flight throws, commits nothing, keeps the changes and can be retried",
          .enabled(if: PostgresTestServer.shouldRun))
    func aSaveKilledInFlightCommitsNothingAndCanBeRetried() async throws {
        let configuration = try PostgresTestServer.newSchemaConfiguration()
        let container = try container(configuration)
        let context = container.newBackgroundContext()
        let serverID = try await context.perform {
            let server = Server(context: context)
            server.name = "original"
            try context.save()
            return server.objectID
        }
        let schema = PostgresConnections.quoted(configuration.schema)
        let admin = try PostgresTestServer.adminConnections()

        // Another session locks the server's row and holds it.
        let holder = try PostgresTestServer.adminConnections(maximum: 1)
        let holderPID = Locked<Int64?>(nil)
        let holderError = Locked<(any Error)?>(nil)
        let holding = AsyncSignal(), release = AsyncSignal(), holderDone = AsyncSignal()
        let key = try #require(serverID.primaryKey)
        Thread {
            do {
                try holder.write { db in
                    let pid = try db.int64("SELECT pg_backend_pid()")
                    holderPID.withLock { $0 = pid }
                    try db.execute("SELECT 1 FROM \(schema).\"Server\" WHERE \"Z_PK\" = ? FOR UPDATE", [.integer(key)])
                    holding.fire()
                    release.waitBlocking()
                }
            } catch {
                holderError.withLock { $0 = error }
                holding.fire()
            }
            holderDone.fire()
        }.start()
        await holding.wait()
        let blocker = try #require(holderPID.withLock { $0 })

        // The save reserves the new items' keys, then waits to update the server.
        let saving = Task { () -> Result<Void, any Error> in
            do {
                try await context.perform {
                    let server = try #require(try context.existingObject(with: serverID) as? Server)
                    server.name = "renamed"
                    for title in ["x", "y", "z"] {
                        let item = FeedItem(context: context)
                        item.title = title
                        item.server = server
                    }
                    try context.save()
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        let saver = try await poll("the save waits for the locked row") {
            try admin.read { try $0.int64("SELECT pid FROM pg_stat_activity WHERE ?::integer = ANY(pg_blocking_pids(pid))", [.integer(blocker)]) }
        }
        let killed = try admin.write {
            try $0.int64("SELECT CASE WHEN pg_terminate_backend(?::integer, 60000) THEN 1 ELSE 0 END", [.integer(saver)])
        }
        #expect(killed == 1)
        let outcome = try await withDeadline("the killed save returns") { await saving.value }
        guard case .failure(let error) = outcome else {
            Issue.record("the save succeeded although its connection was killed")
            release.fire()
            return
        }
        guard case StoreError.serverUnreachable(host: configuration.host, port: configuration.port, let reason) = error else {
            Issue.record("expected serverUnreachable, got \(error)")
            release.fire()
            return
        }
        #expect(reason.contains("did not commit"), "\(reason)")

        // (The keys it took from the FeedItem sequence are skipped, as a
        // serial column's are: nextval is never rolled back.)
        let (items, name) = try admin.read { db in
            (try db.int64("SELECT count(*) FROM \(schema).\"FeedItem\""),
             try db.string("SELECT name FROM \(schema).\"Server\""))
        }
        #expect(items == 0 && name == "original", "nothing of the killed save was committed")
        let pending = try await context.perform {
            let server = try #require(try context.existingObject(with: serverID) as? Server)
            return (context.hasChanges, context.insertedObjects.count, server.name,
                    context.insertedObjects.allSatisfy(\.objectID.isTemporaryID))
        }
        #expect(pending == (true, 3, "renamed", true), "the context keeps its unsaved changes")

        release.fire()
        await holderDone.wait()
        #expect(holderError.withLock { $0 } == nil)
        try await context.perform { try context.save() }
        let stored = try admin.read { db in
            (try db.strings("SELECT title FROM \(schema).\"FeedItem\" ORDER BY title"),
             try db.string("SELECT name FROM \(schema).\"Server\""))
        }
        #expect(stored.0 == ["x", "y", "z"] && stored.1 == "renamed", "the retried save wrote every row once")
        let reader = ManagedObjectContext(concurrencyType: .privateQueue,
                                          persistentStoreCoordinator: try TestDatabase.postgres(configuration).coordinator())
        let titles = try await reader.perform {
            let server = try #require(try reader.existingObject(with: serverID) as? Server)
            return server.feedItems.map(\.title).sorted()
        }
        #expect(titles == ["x", "y", "z"])
    }
}
