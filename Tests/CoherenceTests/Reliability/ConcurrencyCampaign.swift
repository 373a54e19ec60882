import Coherence
import Foundation
import PropertyBased
import Synchronization
import Testing

/// The concurrency campaign of issue 28: two processes on one database,
/// each with three writing contexts (one of them a child context saving
/// through its parent) that merge one another's saves, make a fixed number
/// of saves each at the same time: deposits and transfers under the error
/// merge policy (a conflict is rolled back, refreshed and retried),
/// relabels under `.mergeByPropertyObjectTrump`, voids that delete entries.
/// A reader on a third coordinator merges every transaction from persistent
/// history as remote-change notifications announce them.
///
/// Afterwards the store must equal a sequential replay of the acknowledged
/// saves in commit order (persistent history's order): every acknowledged
/// save there once (none lost), nothing a failed save made (none phantom),
/// every account's label, balance, derived entry total and entries as the
/// replay has them (none wrong), and the reader's merged objects equal to
/// the store (none stale). Core Data: `NSErrorMergePolicy` reports
/// conflicts and saves nothing, `NSMergeByPropertyObjectTrumpMergePolicy`
/// "merges conflicts ... by individual property, with the in-memory changes
/// trumping external changes"
/// (https://developer.apple.com/documentation/coredata/nsmergebypropertyobjecttrumpmergepolicy),
/// and always completes the save.
///
/// Size: `COHERENCE_CONCURRENCY_OPERATIONS` saves per context (30 by
/// default, for CI, whose second test run is under the Thread Sanitizer;
/// `Reliability/report` runs 500 under the Thread Sanitizer). Operations come from swift-property-based generators seeded
/// with `COHERENCE_CONCURRENCY_SEED` (28) and the writer's number, so each
/// writer's operations repeat from run to run; their interleaving does not.
@Suite("Reliability campaign: concurrency")
struct ConcurrencyCampaign {
    static var operations: Int { ProcessInfo.processInfo.environment["COHERENCE_CONCURRENCY_OPERATIONS"].flatMap(Int.init) ?? 30 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["COHERENCE_CONCURRENCY_SEED"].flatMap(UInt64.init) ?? 28 }
    static let contextsPerProcess = 3
    /// Conflicts in a row after which a writer gives up (a livelock).
    static let maximumAttempts = 1_000

    /// What the writers of one process did.
    struct WriterReport: Codable, Sendable {
        var acknowledged: [Ledger.Acknowledged] = []
        var conflicts = 0
        /// Saves under `.mergeByPropertyObjectTrump` that threw (Core Data's never do).
        var gaveUp: [String] = []

        mutating func add(_ other: WriterReport) {
            acknowledged += other.acknowledged
            conflicts += other.conflicts
            gaveUp += other.gaveUp
        }
    }

    struct ReceiptID: Hashable, CustomStringConvertible {
        var writer: Int
        var sequence: Int
        var description: String { "w\(writer).\(sequence)" }
    }

    @Test("Two processes of three contexts each save, merge and resolve conflicts: the store equals a replay of the acknowledged saves in commit order",
          arguments: StoreKind.databases)
    func twoProcessesSavingAndMerging(_ kind: StoreKind) async throws {
        // Setup: the accounts, the history token after them, the reader.
        let database = try TestDatabase.new(kind)
        let coordinator = try Self.coordinator(database)
        try Ledger.createAccounts(in: ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator))
        let start = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        let reader = try HistoryFollower(try Self.coordinator(database, posting: true), after: start)
        let folder = TestFiles.newURL("concurrency").deletingLastPathComponent()
        let operations = Self.operations

        // Run: this process's writers and the child's, at the same time.
        let childFinished = Locked(false)
        async let childResult = Self.runChild(kind: kind, address: database.address, folder: folder.path, operations: operations)
        async let parentReport = Self.runParent(coordinator, folder: folder, operations: operations,
                                                unless: { childFinished.withLock { $0 } })
        let result = await childResult
        childFinished.withLock { $0 = true }
        var report = try await parentReport
        guard result?.exitStatus == .exitCode(EXIT_SUCCESS) else {
            let stderr = (try? String(contentsOf: folder.appending(path: "child-stderr.txt"), encoding: .utf8)) ?? ""
            Issue.record("the child failed: \(stderr.split(separator: "\n").prefix(40).joined(separator: "\n"))")
            return
        }
        report.add(try JSONDecoder().decode(WriterReport.self, from: Data(contentsOf: folder.appending(path: "child-report.json"))))
        let merged = try await reader.finalState()

        // Check: receipts, history order, the replay, the reader.
        let checker = try database.context(Ledger.entities)
        let (receipts, order, stored, entries) = try checker.performAndWait {
            let history = try checker.execute(PersistentHistoryChangeRequest.fetchHistory(after: start)) as! PersistentHistoryResult
            let order = history.transactions.map { transaction in
                transaction.objectIDChanges.inserted.compactMap { (try? checker.existingObject(with: $0)) as? LedgerReceipt }
                    .map { ReceiptID(writer: $0.writer, sequence: $0.sequence) }
            }
            let receipts = try checker.fetch(FetchRequest<LedgerReceipt>()).map { ReceiptID(writer: $0.writer, sequence: $0.sequence) }
            let entries = try checker.fetch(FetchRequest<LedgerEntry>()).map { ($0.key, $0.account?.number) }
            return (receipts, order, Ledger.state(of: try checker.fetch(FetchRequest<LedgerAccount>())), entries)
        }
        let acknowledged = Dictionary(report.acknowledged.map { (ReceiptID(writer: $0.writer, sequence: $0.sequence), $0.operation) },
                                      uniquingKeysWith: { first, _ in first })
        let lost = Set(acknowledged.keys).subtracting(receipts)
        let phantom = Set(receipts).subtracting(acknowledged.keys)
        let duplicated = receipts.count - Set(receipts).count
        let mixed = order.filter { $0.count != 1 }.count
        let expected = Ledger.replay(order.joined().compactMap { acknowledged[$0] })
        let wrong = expected.keys.filter { expected[$0] != stored[$0] }.sorted()
        let stale = stored.keys.filter { merged[$0] != stored[$0] }.sorted()

        print("concurrency (\(kind)): 2 processes × \(Self.contextsPerProcess) contexts (one nested), "
            + "\(acknowledged.count) saves acknowledged in \(order.count) transactions, \(report.conflicts) conflicts retried, "
            + "\(lost.count) lost, \(phantom.count + duplicated) phantom, \(wrong.count) wrong, \(stale.count) stale, "
            + "\(report.gaveUp.count) gave up")
        #expect(acknowledged.count == report.acknowledged.count && acknowledged.count == 2 * Self.contextsPerProcess * operations)
        #expect(lost.isEmpty, "acknowledged saves missing from the store: \(lost.sorted { $0.description < $1.description })")
        #expect(phantom.isEmpty && duplicated == 0, "receipts no acknowledged save made: \(phantom), \(duplicated) duplicated")
        #expect(mixed == 0 && order.count == acknowledged.count, "each transaction is one save: \(mixed) of \(order.count) are not")
        if !wrong.isEmpty {
            let replayed = expected.values.reduce(into: Set<String>()) { $0.formUnion($1.entries) }
            let keys = Set(entries.map(\.0))
            let missing = replayed.subtracting(keys).sorted()
            let orphans = entries.filter { $0.1 == nil }.count
            let extra = keys.subtracting(replayed).count
            Issue.record("entries: \(entries.count) stored, \(orphans) without an account, \(missing.count) missing \(missing.prefix(8)), \(extra) not in the replay")
        }
        if !wrong.isEmpty, let first = Self.firstStaleBalance(order.joined().compactMap { id in
            report.acknowledged.first { $0.writer == id.writer && $0.sequence == id.sequence }
        }) {
            Issue.record(Comment(rawValue: first))
        }
        for number in wrong.prefix(3) {
            Issue.record("account \(number): the store has \(stored[number].map(\.description) ?? "nothing"), the replay \(expected[number]!)")
        }
        for number in stale.prefix(3) {
            Issue.record("account \(number): the reader merged \(merged[number].map(\.description) ?? "nothing"), the store has \(stored[number]!)")
        }
        #expect(report.gaveUp.isEmpty, "saves under .mergeByPropertyObjectTrump threw: \(report.gaveUp.prefix(3))")
    }

    /// The first save, in commit order, that wrote a balance other than the
    /// one before it plus its change (the save that lost an update), or
    /// left a derived total other than the balance.
    static func firstStaleBalance(_ saves: [Ledger.Acknowledged]) -> String? {
        var balances = [Int: Int]()
        for (position, save) in saves.enumerated() {
            for (account, delta) in Ledger.deltas(save.operation) {
                let expected = balances[account, default: 0] + delta
                if let written = save.balances[account], written != expected {
                    return "save \(position) in commit order, w\(save.writer).\(save.sequence) \(save.operation), wrote balance "
                        + "\(written) to account \(account) where the saves before it leave \(expected - delta)"
                }
                if let total = save.totals[account], total != expected {
                    return "save \(position) in commit order, w\(save.writer).\(save.sequence) \(save.operation), left entry total "
                        + "\(total) on account \(account) where its balance is \(expected)"
                }
                balances[account] = expected
            }
        }
        return nil
    }

    // MARK: - Writers

    /// A coordinator with `database` loaded, keeping persistent history.
    static func coordinator(_ database: TestDatabase, posting: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: Ledger.entities))
        let description = database.description
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        if posting { description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey) }
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// Runs ``contextsPerProcess`` writers of `process` at once, each on
    /// its own context of `coordinator`.
    static func runWriters(_ coordinator: PersistentStoreCoordinator, process: Int, operations: Int) async throws -> WriterReport {
        try await withThrowingTaskGroup(of: WriterReport.self) { group in
            for index in 0..<contextsPerProcess {
                let writer = process * contextsPerProcess + index
                group.addTask {
                    try await write(writer: writer, nested: index == contextsPerProcess - 1, coordinator: coordinator, operations: operations)
                }
            }
            var total = WriterReport()
            for try await report in group { total.add(report) }
            return total
        }
    }

    /// One writer: `operations` saves, each retried until it succeeds. A
    /// nested writer makes its changes in a child context and saves them
    /// through its parent.
    static func write(writer: Int, nested: Bool, coordinator: PersistentStoreCoordinator, operations: Int) async throws -> WriterReport {
        let saver = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        // A nested writer's parent does not merge other contexts' saves: a
        // child's read-modify-write saved through a parent that merged a
        // newer version of the row is checked against the parent's version,
        // in Core Data as here, so a counter kept that way loses updates.
        saver.automaticallyMergesChangesFromParent = !nested
        let context = nested ? ManagedObjectContext(concurrencyType: .privateQueue) : saver
        if nested {
            context.parent = saver
            context.automaticallyMergesChangesFromParent = true
        }
        var random = Xoshiro(seed: (seed, UInt64(writer), 0x9E37_79B9_7F4A_7C15, 28))
        var report = WriterReport()
        var live: [Ledger.LiveEntry] = []
        for sequence in 1...operations {
            let operation = Ledger.operation(Ledger.steps.run(using: &random), writer: writer, sequence: sequence, live: live)
            let (balances, totals) = try await save(operation, writer: writer, sequence: sequence, in: context, through: saver, report: &report)
            report.acknowledged.append(Ledger.Acknowledged(writer: writer, sequence: sequence, operation: operation,
                                                           balances: balances, totals: totals))
            Ledger.updating(&live, after: operation)
        }
        return report
    }

    /// Makes and saves `operation`; after a conflict, rolls back, refreshes
    /// and tries again (Core Data's pattern for `NSErrorMergePolicy`).
    static func save(_ operation: Ledger.Operation, writer: Int, sequence: Int, in context: ManagedObjectContext,
                     through saver: ManagedObjectContext, report: inout WriterReport) async throws -> (balances: [Int: Int], totals: [Int: Int]) {
        let policy: MergePolicy = operation.isRelabel ? .mergeByPropertyObjectTrump : .error
        for _ in 0..<maximumAttempts {
            do {
                let balances = try await context.perform {
                    context.mergePolicy = policy
                    let balances = try Ledger.apply(operation, writer: writer, sequence: sequence, in: context)
                    try context.save()
                    return balances
                }
                if saver !== context {
                    try await saver.perform {
                        saver.mergePolicy = policy
                        try saver.save()
                    }
                }
                let totals = try await saver.perform {
                    try Dictionary(uniqueKeysWithValues: Ledger.deltas(operation).keys.map { number in
                        (number, try saver.fetch(FetchRequest<LedgerAccount>(predicate: #Predicate { $0.number == number })).first?.entryTotal ?? -1)
                    })
                }
                return (balances, totals)
            } catch let error as MergeError {
                report.conflicts += 1
                if operation.isRelabel { report.gaveUp.append("w\(writer).\(sequence): \(error)") }
                // The parent first: the child then refreshes from what it holds.
                for discarding in saver === context ? [context] : [saver, context] {
                    await discarding.perform {
                        discarding.rollback()
                        discarding.refreshAllObjects()
                    }
                }
            }
        }
        throw Ledger.LedgerError(description: "w\(writer).\(sequence) conflicted \(maximumAttempts) times in a row")
    }

    /// This process's writers (0–2), once the child is ready.
    static func runParent(_ coordinator: PersistentStoreCoordinator, folder: URL, operations: Int,
                          unless childFinished: @escaping @Sendable () -> Bool) async throws -> WriterReport {
        await meet(folder, mine: "parent-ready", theirs: "child-ready", unless: childFinished)
        return try await runWriters(coordinator, process: 0, operations: operations)
    }

    // MARK: - The child process

    /// Runs the child (writers 3–5) and returns how it ended.
    static func runChild(kind: StoreKind, address: String, folder: String, operations: Int) async -> ExitTest.Result? {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [kind = kind.rawValue as String, address = address as String, folder = folder as String, operations = operations as Int] in
            // What it prints when it stops, for the parent to show.
            dup2(open(folder + "/child-stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0o644), STDERR_FILENO)
            let database = try TestDatabase(kind: try #require(StoreKind(rawValue: kind)), address: address)
            let coordinator = try ConcurrencyCampaign.coordinator(database)
            let directory = URL(filePath: folder, directoryHint: .isDirectory)
            await ConcurrencyCampaign.meet(directory, mine: "child-ready", theirs: "parent-ready", unless: { false })
            let report = try await ConcurrencyCampaign.runWriters(coordinator, process: 1, operations: operations)
            try JSONEncoder().encode(report).write(to: directory.appending(path: "child-report.json"))
        }
    }

    /// Both processes start writing together (``TwoProcessConflictTests/meet(_:mine:theirs:unless:)``,
    /// off the cooperative pool, whose threads it would block).
    static func meet(_ folder: URL, mine: String, theirs: String, unless stop: @escaping @Sendable () -> Bool) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                TwoProcessConflictTests.meet(folder, mine: mine, theirs: theirs, unless: stop)
                continuation.resume()
            }
        }
    }
}

/// A context on its own coordinator that merges every new transaction from
/// persistent history when a remote-change notification announces one
/// (Core Data's history-processing loop), and once more at the end.
final class HistoryFollower: Sendable {
    let context: ManagedObjectContext
    private let lastToken: Mutex<PersistentHistoryToken?>
    /// Set once in `init`, removed in `deinit`.
    nonisolated(unsafe) private var observer: (any NSObjectProtocol)?

    /// Follows `coordinator`'s store from `token`, holding its accounts.
    init(_ coordinator: PersistentStoreCoordinator, after token: PersistentHistoryToken) throws {
        context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        lastToken = Mutex(token)
        try context.performAndWait {
            context.retainsRegisteredObjects = true
            _ = try context.fetch(FetchRequest<LedgerAccount>())
        }
        observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) {
            [weak self] _ in
            guard let self else { return }
            context.perform { try? self.mergeNewTransactions() }
        }
    }

    deinit {
        observer.map(NotificationCenter.default.removeObserver)
    }

    /// Merges the transactions after the last one merged (on the queue).
    private func mergeNewTransactions() throws {
        let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken.withLock { $0 })
        for transaction in (try context.execute(request) as! PersistentHistoryResult).transactions {
            context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            lastToken.withLock { $0 = transaction.token }
        }
    }

    /// The accounts as merged, after merging what is left.
    func finalState() async throws -> [Int: Ledger.AccountState] {
        try await context.perform {
            try self.mergeNewTransactions()
            return Ledger.state(of: self.context.registeredObjects.compactMap { $0 as? LedgerAccount })
        }
    }
}
