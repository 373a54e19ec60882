@testable import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// Several writers saving to one database at the same time, as app servers
/// sharing one PostgreSQL database do: every save lands once, no update is
/// lost, conflicts resolve however often they come back, and persistent
/// history numbers the transactions in commit order.
///
/// Core Data: `NSErrorMergePolicy` "is the default policy. It is the only
/// policy that requires action to correct any conflicts. The other policies
/// make a save go through silently by making changes that follow rules
/// specific to that policy" (https://developer.apple.com/documentation/coredata/merge-policies);
/// `NSMergeByPropertyObjectTrumpMergePolicy` is "a policy that merges
/// conflicts between the persistent store’s version of the object and the
/// current in-memory version by individual property, with in-memory changes
/// trumping external changes"
/// (https://developer.apple.com/documentation/coredata/nsmergebypropertyobjecttrumpmergepolicy).
@Suite("Concurrent writers")
struct ConcurrentWritersTests {
    /// Writer processes, and saves each makes.
    static let writers = 4
    static let saves = 25

    static func tag(_ writer: Int, _ save: Int) -> String { "writer \(writer) save \(save)" }

    struct WriterFailure: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: - Counting writers, history and a watcher

    /// What the watcher was handed: the token of each delivery and the
    /// numbers of the other writers' transactions in it.
    struct Delivery: Sendable {
        let token: Int64
        let transactions: [Int64]
    }

    /// Each save of each writer inserts a feed tagged with its writer and
    /// save, and adds one to a shared counter (an entry's `words`) under the
    /// error policy, retrying after a conflict as Core Data code does.
    ///
    /// History: an `NSPersistentHistoryTransaction` is "a set of changes in
    /// the persistent history based on a context save or batch operation"
    /// (https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction);
    /// `fetchHistory(after:)` "retrieves the request history after a given
    /// token" (https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchhistory(after:)-3rmfm);
    /// `NSPersistentStoreRemoteChange` "posts after another process writes to
    /// a persistent store"
    /// (https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/nspersistentstoreremotechange).
    /// A watcher that reads the history after the last number it saw misses
    /// nothing only if numbers are given in commit order.
    @Test("Writer processes saving at once: every save lands once, no update is lost, and a watcher sees every transaction once in commit order",
          .enabled(if: PostgresTestServer.shouldRun))
    func writerProcessesSavingAtOnce() async throws {
        let database = try TestDatabase.new(.postgres)
        let counterID = try Self.insertCounter(in: try RemoteChangeTests.coordinator(database))

        // The watcher: a coordinator that posts remote changes, followed the
        // way automaticallyMergesRemoteChanges follows it.
        let watcher = try RemoteChangeTests.coordinator(database, posting: true)
        let start = try RemoteChangeTests.token(of: watcher).transactionNumber
        let remote = NotificationWaiter(.NSPersistentStoreRemoteChange, object: watcher)
        let seen = Locked<[Delivery]>([])
        let observation = UUID()
        let following = try watcher.addRemoteChangeObserver(observation) { changes in
            seen.withLock { $0.append(Delivery(token: changes.token.transactionNumber,
                                               transactions: changes.transactions.map(\.transactionNumber))) }
        }
        defer { watcher.removeRemoteChangeObserver(observation) }
        try #require(following, "the store keeps history")

        let results = await Self.runWriters("counting", address: database.address)
        guard Self.allSucceeded(results) else { return }

        let reader = ManagedObjectContext(concurrencyType: .privateQueue,
                                          persistentStoreCoordinator: try RemoteChangeTests.coordinator(database))
        let (titles, count, history) = try reader.performAndWait {
            let feeds = try reader.fetch(FetchRequest<Feed>())
            let titles = Dictionary(feeds.map { ($0.objectID, $0.title) }, uniquingKeysWith: { first, _ in first })
            let counter = try #require(try reader.existingObject(with: counterID) as? Entry)
            let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            return (titles, counter.words, (try reader.execute(request) as! PersistentHistoryResult).transactions)
        }

        // The store: each (writer, save) once, and every increment.
        let expectedTags = (0..<Self.writers).flatMap { writer in (0..<Self.saves).map { Self.tag(writer, $0) } }
        #expect(titles.count == Self.writers * Self.saves, "one new feed per save")
        #expect(titles.values.sorted() == expectedTags.sorted(), "each writer's each save exactly once")
        #expect(count == Self.writers * Self.saves, "no increment was lost")

        // History: numbered without gaps, each save one transaction, each
        // writer's saves in the order it made them.
        let numbers = history.map(\.transactionNumber)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }, "strictly increasing, no gap: \(numbers)")
        let writes = history.filter { $0.author?.hasPrefix("writer ") == true }
        #expect(writes.count == Self.writers * Self.saves, "one transaction per save")
        for writer in 0..<Self.writers {
            let own = writes.filter { $0.author == "writer \(writer)" }
            let inserted = own.map { $0.objectIDChanges.inserted.compactMap { titles[$0] } }
            #expect(inserted == (0..<Self.saves).map { [Self.tag(writer, $0)] }, "writer \(writer): \(inserted)")
            #expect(own.allSatisfy { $0.objectIDChanges.updated == [counterID] }, "each save updated the counter")
        }
        #expect(numbers.filter { $0 > start } == writes.map(\.transactionNumber),
                "after the watcher started, only the writers committed")

        // The watcher: every writer's transaction once, in commit order.
        let last = try #require(numbers.last)
        _ = try await waitUntil("the watcher hears of the last transaction") {
            seen.withLock { $0.last?.token == last } ? true : nil
        }
        let deliveries = seen.withLock { $0 }
        let heard = deliveries.flatMap(\.transactions)
        #expect(heard == writes.map(\.transactionNumber), "each transaction once, in order: \(heard)")
        let tokens = deliveries.map(\.token)
        #expect(zip(tokens, tokens.dropFirst()).allSatisfy { $0 < $1 }, "tokens move forward: \(tokens)")
        let posted = remote.notifications.compactMap {
            ($0.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken)?.transactionNumber
        }
        #expect(posted == tokens, "NSPersistentStoreRemoteChange announced each delivery with its token")
    }

    /// In writer `index`: `saves` saves, each a new feed and one more on the
    /// counter, retried after each conflict. A conflict needs another
    /// writer's save between this one's read and its save, so there are at
    /// most as many as the other writers' saves; more fail the writer.
    static func countingWriter(_ index: Int, address: String, folder: String) throws {
        let prepared = Result { () throws -> (ManagedObjectContext, ManagedObjectID) in
            let coordinator = try RemoteChangeTests.coordinator(try TestDatabase(kind: .postgres, address: address))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            context.mergePolicy = .error
            context.transactionAuthor = "writer \(index)"
            let counter = try context.performAndWait {
                try #require(try context.fetch(FetchRequest<Entry>(predicate: #Predicate { $0.title == "counter" })).first).objectID
            }
            return (context, counter)
        }
        gather(folder, writer: index)
        let (context, counterID) = try prepared.get()
        var conflicts = 0
        try context.performAndWait {
            for save in 0..<saves {
                while true {
                    let counter = try #require(try context.existingObject(with: counterID) as? Entry)
                    context.refresh(counter, mergeChanges: false)
                    counter.words += 1
                    let feed = Feed(context: context)
                    feed.title = tag(index, save)
                    do {
                        try context.save()
                        break
                    } catch let error as MergeError {
                        guard error.conflicts.map(\.objectID) == [counterID], error.constraintConflicts.isEmpty else {
                            throw fail("writer \(index), save \(save): a merge error that is not one conflict on the counter: \(error)")
                        }
                        conflicts += 1
                        guard conflicts <= (writers - 1) * saves else {
                            throw fail("writer \(index): \(conflicts) conflicts, more than the other writers' saves")
                        }
                        context.rollback()
                    }
                }
            }
        }
    }

    /// An entry whose `words` count the writers' increments, at 0.
    static func insertCounter(in coordinator: PersistentStoreCoordinator) throws -> ManagedObjectID {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return try context.performAndWait {
            let counter = Entry(context: context)
            counter.title = "counter"
            try context.save()
            return counter.objectID
        }
    }

    // MARK: - Object trump from several processes

    /// Every writer changes the same object in every save, without reading
    /// it again: nearly every save meets another's change, and object trump
    /// resolves each, however many rounds it takes.
    @Test("Object-trump saves from several processes never throw", .enabled(if: PostgresTestServer.shouldRun))
    func objectTrumpSavesFromSeveralProcessesNeverThrow() async throws {
        let database = try TestDatabase.new(.postgres)
        let setup = try database.context()
        let id = try setup.performAndWait {
            let server = Server(context: setup)
            server.name = "shared"
            try setup.save()
            return server.objectID
        }
        let key = try #require(id.primaryKey)
        let versionSQL = "SELECT \"Z_OPT\" FROM \"Server\" WHERE \"Z_PK\" = \(key)"
        let initialVersion = try #require(try database.int64s(versionSQL).first)

        let results = await Self.runWriters("trumping", address: database.address)
        guard Self.allSucceeded(results) else { return }

        let reader = try database.context()
        let rows = try reader.performAndWait { try reader.fetch(FetchRequest<Server>()).map { ($0.name, $0.unreadCount) } }
        #expect(rows.count == 1, "one row: \(rows)")
        let row = try #require(rows.first)
        // The last commit is the last save of the writer that committed last,
        // written whole: its name with its own count, never a mix.
        let lastSaves = (0..<Self.writers).map { (Self.tag($0, Self.saves - 1), $0 * 1000 + Self.saves - 1) }
        #expect(lastSaves.contains { $0 == row }, "\(row) is one writer's last save")
        #expect(try database.int64s(versionSQL) == [initialVersion + Int64(Self.writers * Self.saves)],
                "every save wrote the row once")
    }

    /// In writer `index`: `saves` saves of the shared server under object
    /// trump; any save that throws fails the writer.
    static func trumpingWriter(_ index: Int, address: String, folder: String) throws {
        let prepared = Result { () throws -> (ManagedObjectContext, ManagedObjectID) in
            let context = try TestDatabase(kind: .postgres, address: address).context()
            context.mergePolicy = .mergeByPropertyObjectTrump
            let id = try context.performAndWait { try #require(try context.fetch(FetchRequest<Server>()).first).objectID }
            return (context, id)
        }
        gather(folder, writer: index)
        let (context, id) = try prepared.get()
        try context.performAndWait {
            let server = try #require(try context.existingObject(with: id) as? Server)
            for save in 0..<saves {
                server.name = tag(index, save)
                server.unreadCount = index * 1000 + save
                do {
                    try context.save()
                } catch {
                    throw fail("writer \(index), save \(save) threw under object trump: \(error)")
                }
            }
        }
    }

    // MARK: - Uniqueness races

    /// Every writer inserts the same ten emails, one a save, under object
    /// trump: saves of different processes race on the unique index
    /// (SQLSTATE 23505 for the later one), are tried again, and meet the
    /// other row as a constraint conflict that the policy merges. No save
    /// throws, and each email is stored once.
    ///
    /// Core Data: with a uniqueness constraint, "a merge policy [resolves]
    /// the conflict", and `NSMergeByPropertyObjectTrumpMergePolicy` keeps
    /// the in-memory changes
    /// (https://developer.apple.com/documentation/coredata/nsentitydescription/uniquenessconstraints).
    @Test("Writer processes inserting the same unique values under object trump: no save throws, each value is stored once",
          .enabled(if: PostgresTestServer.shouldRun))
    func writerProcessesRacingOnUniqueValues() async throws {
        let database = try TestDatabase.new(.postgres)
        _ = try database.coordinator([UniqueAccount.self])
        let results = await Self.runWriters("unique", address: database.address)
        guard Self.allSucceeded(results) else { return }
        let reader = try database.context([UniqueAccount.self])
        let emails = try reader.performAndWait { try reader.fetch(FetchRequest<UniqueAccount>()).map(\.email) }
        #expect(emails.sorted() == Self.uniqueEmails, "each email once: \(emails.sorted())")
    }

    static let uniqueEmails = (0..<10).map { "user\($0)@example.com" }

    /// In writer `index`: one save per email, each inserting an account
    /// with it, under object trump; any save that throws fails the writer.
    static func uniqueWriter(_ index: Int, address: String, folder: String) throws {
        let prepared = Result { () throws -> ManagedObjectContext in
            let context = try TestDatabase(kind: .postgres, address: address).context([UniqueAccount.self])
            context.mergePolicy = .mergeByPropertyObjectTrump
            return context
        }
        gather(folder, writer: index)
        let context = try prepared.get()
        try context.performAndWait {
            for email in uniqueEmails {
                UniqueAccount(context: context).email = email
                do {
                    try context.save()
                } catch {
                    throw fail("writer \(index), \(email) threw under object trump: \(error)")
                }
            }
        }
    }

    // MARK: - Child processes

    /// Starts the `writers` child processes together, each running `role`,
    /// and waits for them all.
    static func runWriters(_ role: String, address: String) async -> [ExitTest.Result?] {
        let folder = TestFiles.newURL("writers").deletingLastPathComponent().path
        return await withTaskGroup(of: (Int, ExitTest.Result?).self) { group in
            for index in 0..<writers {
                group.addTask { (index, await ConcurrentWritersTests.runWriter(role, index: index, address: address, folder: folder)) }
            }
            var results = [ExitTest.Result?](repeating: nil, count: writers)
            for await (index, result) in group { results[index] = result }
            return results
        }
    }

    static func runWriter(_ role: String, index: Int, address: String, folder: String) async -> ExitTest.Result? {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [role = role as String, index = index as Int, address = address as String, folder = folder as String] in
            if role == "trumping" {
                try ConcurrentWritersTests.trumpingWriter(index, address: address, folder: folder)
            } else if role == "unique" {
                try ConcurrentWritersTests.uniqueWriter(index, address: address, folder: folder)
            } else {
                try ConcurrentWritersTests.countingWriter(index, address: address, folder: folder)
            }
        }
    }

    /// Whether every writer exited successfully; records each that did not.
    static func allSucceeded(_ results: [ExitTest.Result?]) -> Bool {
        var succeeded = true
        for (index, result) in results.enumerated() where result?.exitStatus != .exitCode(EXIT_SUCCESS) {
            Issue.record("writer \(index) failed: \(result.standardError)")
            succeeded = false
        }
        return succeeded
    }

    /// Says writer `writer` is ready (a file in `folder`; also when it could
    /// not prepare, so that no one waits for it), then waits until every
    /// writer is, or ``hangDeadline`` has passed: their saves then overlap.
    static func gather(_ folder: String, writer: Int) {
        let directory = URL(filePath: folder, directoryHint: .isDirectory)
        func ready(_ index: Int) -> String { directory.appending(path: "ready-\(index)").path }
        _ = FileManager.default.createFile(atPath: ready(writer), contents: nil)
        let deadline = ContinuousClock.now + .seconds(hangDeadline)
        while !(0..<writers).allSatisfy({ FileManager.default.fileExists(atPath: ready($0)) }), ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// A writer's failure, also written to standard error for the parent.
    static func fail(_ message: String) -> WriterFailure {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return WriterFailure(description: message)
    }
}
