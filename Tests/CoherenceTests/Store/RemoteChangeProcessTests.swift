import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// Changes from another OS process, through persistent history: on one
/// SQLite file and on one PostgreSQL database, a child process saves and
/// this process's view context follows; a process that was stopped catches
/// up from the token it stored, with Core Data's history-processing loop.
///
/// Core Data: `NSPersistentStoreRemoteChange` "posts after another process
/// writes to a persistent store"
/// (https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstoreremotechange);
/// the loop fetches `NSPersistentHistoryChangeRequest.fetchHistory(after:)`
/// with the last token processed and merges each transaction's
/// `objectIDNotification()` (https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/objectidnotification()).
@Suite("Remote changes between processes")
struct RemoteChangeProcessTests {
    /// The child's three commits: two saves, then a batch update.
    static func childSaves(kind: String, address: String) throws {
        let database = try TestDatabase(kind: try #require(StoreKind(rawValue: kind)), address: address)
        let coordinator = try RemoteChangeTests.coordinator(database)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.transactionAuthor = "importer"
        try context.performAndWait {
            let feed = try #require(try context.fetch(FetchRequest<Feed>(predicate: #Predicate { $0.title == "news" })).first)
            for title in ["news 1", "news 2"] {
                let entry = Entry(context: context)
                entry.title = title
                entry.feed = feed
            }
            try context.save()
            let entries = try context.fetch(FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)]))
            entries[0].read = true
            context.delete(entries[1])
            try context.save()
            // A batch update: no context saw it, history did.
            let result = (try context.execute(BatchUpdateRequest<Entry>(propertiesToUpdate: ["read": true])) as! BatchUpdateResult)
            try #require(result.count == 2, "the batch update changed the two entries left")
        }
    }

    @MainActor
    @Test("Another process's saves and batch update reach the view context, its fetched results controller and its derived count",
          arguments: StoreKind.databases)
    func anotherProcessesChangesReachTheViewContext(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let writer = try RemoteChangeTests.coordinator(database)
        let feedID = try RemoteChangeTests.saveFeed("news", entries: 1, in: writer)
        let reader = try RemoteChangeTests.coordinator(database, posting: true)
        let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: reader)
        viewContext.automaticallyMergesRemoteChanges = true
        let merges = NotificationWaiter(ManagedObjectContext.didMergeChangesObjectIDsNotification, object: viewContext)
        let remote = NotificationWaiter(.NSPersistentStoreRemoteChange, object: reader)
        let changes = NotificationWaiter(ManagedObjectContext.didChangeObjectsNotification, object: viewContext)
        let feed = try #require(try viewContext.existingObject(with: feedID) as? Feed)
        let controller = FetchedResultsController(fetchRequest: FetchRequest<Entry>(sortBy: [SortDescriptor(\.title)]),
                                                  managedObjectContext: viewContext)
        try controller.performFetch()
        #expect(controller.fetchedObjects?.map(\.title) == ["news 0"] && feed.unreadCount == 1)

        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [kind = kind.rawValue as String, address = database.address as String] in
            try RemoteChangeProcessTests.childSaves(kind: kind, address: address)
        }
        guard result?.exitStatus == .exitCode(EXIT_SUCCESS) else {
            Issue.record("the child failed: \(result.standardError)")
            return
        }
        #expect(await merges.wait(for: 3), "each of the child's three transactions is merged")
        #expect(merges.count == 3)
        #expect(controller.fetchedObjects?.map(\.title) == ["news 0", "news 2"])
        #expect(controller.fetchedObjects?.allSatisfy(\.read) == true, "the batch update was merged")
        #expect(feed.unreadCount == 0)
        // What the view context announced: the surviving insertion, and the
        // updates (the read entry, the batch update, the feed's count) as
        // refreshed objects, as merges report them.
        func objects(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObject> {
            changes.notifications.reduce(into: Set<ManagedObject>()) { $0.formUnion($1.userInfo?[key.rawValue] as? Set<ManagedObject> ?? []) }
        }
        let insertedTitles = objects(.insertedObjects).compactMap { ($0 as? Entry)?.title }
        #expect(insertedTitles.contains("news 2"), "\(insertedTitles)")
        let refreshed = objects(.refreshedObjects)
        #expect(refreshed.contains(feed) && refreshed.contains { ($0 as? Entry)?.title == "news 0" })
        let last = try RemoteChangeTests.token(of: writer)
        #expect(remote.notifications.last?.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken == last)
        #expect(remote.notifications.last?.object as? PersistentStoreCoordinator === reader)
    }

    // MARK: - History survives a restart

    /// What the restarted process merged.
    struct CatchUp: Codable, Equatable {
        var authors: [String?] = []
        var insertedTitles: [[String]] = []
        /// Transactions the loop found on its second pass, from the last token.
        var secondPass = -1
    }

    /// Opens the store, stores its current token in `file`, and stops.
    static func storeToken(kind: String, address: String, file: String) throws {
        let database = try TestDatabase(kind: try #require(StoreKind(rawValue: kind)), address: address)
        let coordinator = try RemoteChangeTests.coordinator(database)
        let token = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        try JSONEncoder().encode(token).write(to: URL(filePath: file))
    }

    /// Restarts from the token in `file`: Core Data's history loop, twice,
    /// writing what it merged to `file` + ".result".
    static func catchUp(kind: String, address: String, file: String) throws {
        let database = try TestDatabase(kind: try #require(StoreKind(rawValue: kind)), address: address)
        let coordinator = try RemoteChangeTests.coordinator(database)
        var lastToken = try JSONDecoder().decode(PersistentHistoryToken.self, from: Data(contentsOf: URL(filePath: file)))
        let viewContext = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        var result = CatchUp()
        try viewContext.performAndWait {
            let transactions = (try viewContext.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken)) as! PersistentHistoryResult).transactions
            for transaction in transactions {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                lastToken = transaction.token
                result.authors.append(transaction.author)
                result.insertedTitles.append(transaction.objectIDChanges.inserted.compactMap {
                    (viewContext.registeredObject(for: $0) as? Feed)?.title
                }.sorted())
            }
            result.secondPass = (try viewContext.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken)) as! PersistentHistoryResult).transactions.count
        }
        try JSONEncoder().encode(result).write(to: URL(filePath: file + ".result"))
    }

    @Test("A stopped process restarts with its stored token and merges exactly what was saved meanwhile, in order, once",
          arguments: StoreKind.databases)
    func historySurvivesARestart(_ kind: StoreKind) async throws {
        let database = try TestDatabase.new(kind)
        let coordinator = try RemoteChangeTests.coordinator(database)
        _ = try RemoteChangeTests.saveFeed("before", entries: 0, in: coordinator)
        let file = TestFiles.newURL("token.json").path

        let first = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [kind = kind.rawValue as String, address = database.address as String, file = file as String] in
            try RemoteChangeProcessTests.storeToken(kind: kind, address: address, file: file)
        }
        guard first?.exitStatus == .exitCode(EXIT_SUCCESS) else {
            Issue.record("the first run failed: \(first.standardError)")
            return
        }
        for title in ["one", "two", "three"] {
            _ = try RemoteChangeTests.saveFeed(title, entries: 1, in: coordinator, author: "app")
        }
        let second = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [kind = kind.rawValue as String, address = database.address as String, file = file as String] in
            try RemoteChangeProcessTests.catchUp(kind: kind, address: address, file: file)
        }
        guard second?.exitStatus == .exitCode(EXIT_SUCCESS) else {
            Issue.record("the restart failed: \(second.standardError)")
            return
        }
        let merged = try JSONDecoder().decode(CatchUp.self, from: Data(contentsOf: URL(filePath: file + ".result")))
        #expect(merged == CatchUp(authors: ["app", "app", "app"], insertedTitles: [["one"], ["two"], ["three"]], secondPass: 0))
    }
}
