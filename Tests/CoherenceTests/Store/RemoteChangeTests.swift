@testable import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// Remote-change notifications and automatic merging between two
/// coordinators of one process on one database (the SQLite file, the
/// PostgreSQL schema); `RemoteChangeProcessTests` does the same across OS
/// processes.
///
/// Core Data: `NSPersistentStoreRemoteChange` "posts after another process
/// writes to a persistent store"; its object is the coordinator, its
/// userInfo holds `NSPersistentStoreURLKey`, `NSStoreUUIDKey` and
/// `NSPersistentHistoryTokenKey`, and it is posted on a private thread
/// (https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstoreremotechange);
/// it is asked for with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`
/// (https://developer.apple.com/documentation/coredata/nspersistentstoreremotechangenotificationpostoptionkey).
@Suite("Remote changes between coordinators")
struct RemoteChangeTests {
    static let entities: [ManagedObject.Type] = [Feed.self, Entry.self, Publisher.self]

    /// A coordinator on `database` with history on; with `posting`, asking
    /// for remote-change notifications as Core Data code does.
    static func coordinator(_ database: TestDatabase, posting: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: entities))
        let description = database.description
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        if posting { description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey) }
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// Saves a feed with `entries` unread entries in a new context of `coordinator`.
    static func saveFeed(_ title: String, entries: Int, in coordinator: PersistentStoreCoordinator, author: String? = nil) throws -> ManagedObjectID {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.transactionAuthor = author
        return try context.performAndWait {
            let feed = Feed(context: context)
            feed.title = title
            for index in 0..<entries {
                let entry = Entry(context: context)
                entry.title = "\(title) \(index)"
                entry.feed = feed
            }
            try context.save()
            return feed.objectID
        }
    }

    static func token(of coordinator: PersistentStoreCoordinator) throws -> PersistentHistoryToken {
        try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
    }

    @Test func theTypedPropertyIsTheCoreDataOption() {
        let description = PersistentStoreDescription.inMemory
        #expect(!description.postsRemoteChangeNotifications)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        #expect(description.postsRemoteChangeNotifications)
        #expect(description.keepsPersistentHistory, "remote-change notifications need history")
    }

    /// Apple: posted "for every write to the store, including writes by
    /// other processes"; so this coordinator's own saves are announced too.
    @Test("Every save posts NSPersistentStoreRemoteChange with Core Data's keys, this coordinator's own and another's",
          arguments: StoreKind.databases)
    func anotherCoordinatorsSavePostsTheNotification(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let writer = try Self.coordinator(database)
        let reader = try Self.coordinator(database, posting: true)
        let store = try #require(reader.persistentStores.first)
        let notifications = NotificationWaiter(.NSPersistentStoreRemoteChange, object: reader)

        _ = try Self.saveFeed("own", entries: 1, in: reader)
        let ownToken = try Self.token(of: reader)
        #expect(await notifications.wait(for: 1), "the reader's own save is announced")
        _ = try Self.saveFeed("first", entries: 2, in: writer)
        let firstToken = try Self.token(of: writer)
        #expect(await notifications.wait(for: 2), "the writer's save is announced")
        _ = try Self.saveFeed("second", entries: 1, in: writer)
        let secondToken = try Self.token(of: writer)
        #expect(await notifications.wait(for: 3), "the writer's second save is announced")

        let tokens = notifications.notifications.compactMap { $0.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken }
        #expect(tokens == [ownToken, firstToken, secondToken], "one notification per save, with its token")
        for notification in notifications.notifications {
            #expect(notification.object as? PersistentStoreCoordinator === reader)
            #expect(notification.userInfo?[NSStoreUUIDKey] as? String == store.identifier)
            let url = try #require(notification.userInfo?[NSPersistentStoreURLKey] as? URL)
            switch database {
            case .sqlite(let file): #expect(url == file)
            case .postgres(let configuration): #expect(url == configuration.urlWithoutPassword && url.password == nil)
            }
        }
    }

    /// The one-line form: a main-queue view context follows the other
    /// coordinator's saves; its fetched results controller and its derived
    /// unread count follow, and saves of its own coordinator are not merged
    /// a second time.
    @MainActor
    @Test("A view context with automaticallyMergesRemoteChanges follows another coordinator's saves",
          arguments: StoreKind.databases)
    func automaticMergingFollowsAnotherCoordinator(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let writer = try Self.coordinator(database)
        let feedID = try Self.saveFeed("news", entries: 1, in: writer)
        let reader = try Self.coordinator(database)
        let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: reader)
        viewContext.automaticallyMergesRemoteChanges = true
        #expect(viewContext.automaticallyMergesRemoteChanges)
        let merges = NotificationWaiter(ManagedObjectContext.didMergeChangesObjectIDsNotification, object: viewContext)

        let feed = try #require(try viewContext.existingObject(with: feedID) as? Feed)
        #expect(feed.unreadCount == 1)
        let request = FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)])
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: viewContext)
        try controller.performFetch()
        #expect(controller.fetchedObjects?.count == 1)

        // The writer adds two entries, then reads one and deletes another.
        let writing = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer)
        try writing.performAndWait {
            let news = try #require(try writing.existingObject(with: feedID) as? Feed)
            for title in ["news 1", "news 2"] {
                let entry = Entry(context: writing)
                entry.title = title
                entry.feed = news
            }
            try writing.save()
        }
        #expect(await merges.wait(for: 1), "the insertion is merged")
        #expect(controller.fetchedObjects?.map(\.title) == ["news 0", "news 1", "news 2"])
        #expect(feed.unreadCount == 3)

        // A save of the reader's own coordinator is not a remote change.
        _ = try Self.saveFeed("local", entries: 1, in: reader)
        try writing.performAndWait {
            // The store also holds the reader's "local 0" now.
            let entries = try writing.fetch(FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)])).filter { $0.title.hasPrefix("news") }
            entries[0].read = true
            writing.delete(entries[1])
            try writing.save()
        }
        #expect(await merges.wait(for: 2), "the update and the deletion are merged")
        #expect(controller.fetchedObjects?.map(\.title) == ["news 0", "news 2"])
        #expect(feed.unreadCount == 1)
        let merged = merges.notifications.map { $0.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> ?? [] }
        #expect(merged.allSatisfy { ids in ids.allSatisfy { $0.entityName == "Entry" } },
                "the reader's own feed \"local\" was never merged as a remote change: \(merged)")
        #expect(merges.count == 2)

        viewContext.automaticallyMergesRemoteChanges = false
        #expect(!viewContext.automaticallyMergesRemoteChanges)
    }

    /// A large remote transaction is merged in chunks under the context's
    /// `automaticMergeBudget`, as automatic merges of local saves are.
    @Test("A large remote transaction merges in chunks under the merge budget", arguments: StoreKind.databases)
    func aLargeRemoteTransactionMergesInChunks(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let writer = try Self.coordinator(database)
        let reader = try Self.coordinator(database)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: reader)
        context.automaticMergeBudget = .zero // one object per chunk
        context.automaticallyMergesRemoteChanges = true
        let merges = NotificationWaiter(ManagedObjectContext.didMergeChangesObjectIDsNotification, object: context)

        let feedID = try Self.saveFeed("big", entries: 9, in: writer) // ten objects, one transaction
        #expect(await merges.wait(for: 10), "one chunk per object")
        let merged = merges.notifications.compactMap { $0.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> }
        #expect(merged.allSatisfy { $0.count <= 1 })
        #expect(merged.reduce(into: Set<ManagedObjectID>()) { $0.formUnion($1) }.count == 10)
        let title = try await context.perform { try #require(try context.existingObject(with: feedID) as? Feed).title }
        #expect(title == "big")
    }

    /// A programmer error: there is no history to follow. It traps with a
    /// message saying what to turn on (found in review: it deadlocked).
    @Test func followingAStoreWithoutHistoryTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context(.sqlite, name: "no history")
            context.automaticallyMergesRemoteChanges = true
        }
        #expect(result.standardError.contains("persistentHistoryTracking"), "\(result.standardError)")
    }

    /// The PostgreSQL listener's connection is cut while another coordinator
    /// saves: once it reconnects, it catches up from the last transaction it
    /// saw, so the save is still announced.
    @Test("A PostgreSQL listener that lost its connection catches up", arguments: StoreKind.databases.filter { $0 == .postgres })
    func aDroppedListenerCatchesUp(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let writer = try Self.coordinator(database)
        let reader = try Self.coordinator(database, posting: true)
        let store = try #require(reader.persistentStores.first as? PostgresStore)
        let signal = try #require(store.changeSignal)
        let notifications = NotificationWaiter(.NSPersistentStoreRemoteChange, object: reader)
        let pid = try await waitUntil("the listener connects") { signal.backendPID }

        signal.holdReconnection(true)
        guard case .postgres(let configuration) = database else { return }
        let killer = try PostgresConnections(configuration: configuration, maximumConnections: 1)
        try killer.read { db in _ = try db.int64("SELECT CASE WHEN pg_terminate_backend(CAST(? AS INTEGER)) THEN 1 ELSE 0 END", [.integer(Int64(pid))]) }
        _ = try await waitUntil("the listener notices its connection is gone") { signal.backendPID == nil ? true : nil }

        // Committed while nobody listens: its NOTIFY reaches no one.
        _ = try Self.saveFeed("while away", entries: 1, in: writer)
        let token = try Self.token(of: writer)
        #expect(notifications.count == 0)
        signal.holdReconnection(false)

        #expect(await notifications.wait(for: 1), "the catch-up announces the save made while disconnected")
        #expect(notifications.notifications.first?.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken == token)
        #expect(signal.connectionCount == 2)
    }
}
