import Coherence
import Foundation
import Testing

/// Writers on one database (another process is another coordinator) whose
/// saves and merges interleave, each case of the concurrency campaign on
/// its own: merge policies take what other writers saved, child contexts
/// push only what they changed.
@Suite("Concurrent writers")
struct ConcurrentWriterTests {
    /// Accounts 0 and 1, with one entry of 10 on account 0.
    static func ledger(_ kind: StoreKind) throws -> TestDatabase {
        let database = try TestDatabase.new(kind)
        let context = try database.context(Ledger.entities)
        try Ledger.createAccounts(in: context)
        try context.performAndWait {
            try Ledger.apply(.deposit(account: 0, entry: "first", amount: 10), writer: 9, sequence: 0, in: context)
            try context.save()
        }
        return database
    }

    /// The accounts as stored, read through a new coordinator.
    static func stored(_ database: TestDatabase) throws -> [Int: Ledger.AccountState] {
        let context = try database.context(Ledger.entities)
        return try context.performAndWait { Ledger.state(of: try context.fetch(FetchRequest<LedgerAccount>())) }
    }

    /// Saves `operation` through a new coordinator: another process's save.
    static func saveElsewhere(_ database: TestDatabase, _ operation: Ledger.Operation) throws {
        let other = try database.context(Ledger.entities)
        try other.performAndWait {
            try Ledger.apply(operation, writer: 2, sequence: 1, in: other)
            try other.save()
        }
    }

    /// A private-queue child context of `parent`.
    static func child(of parent: ManagedObjectContext) -> ManagedObjectContext {
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        return child
    }

    static func account(_ number: Int, in context: ManagedObjectContext) throws -> LedgerAccount {
        try #require(try context.fetch(FetchRequest<LedgerAccount>(predicate: #Predicate { $0.number == number })).first)
    }

    @Test("Object trump: a relabel whose context holds the account's entries keeps the entries and balance another process added",
          arguments: StoreKind.databases)
    func objectTrumpKeepsEntriesAddedElsewhere(_ kind: StoreKind) throws {
        let database = try Self.ledger(kind)
        let context = try database.context(Ledger.entities)
        context.mergePolicy = .mergeByPropertyObjectTrump
        let loaded = try context.performAndWait { try Self.account(0, in: context).entries.count }
        #expect(loaded == 1, "the entries are loaded")
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "second", amount: 5))
        try context.performAndWait {
            try Self.account(0, in: context).label = "mine"
            try context.save()
        }
        #expect(try Self.stored(database)[0] == Ledger.AccountState(label: "mine", balance: 15, entryTotal: 15, entries: ["first", "second"]))
    }

    @Test("A context that merged a sibling's relabel, then saves a deposit after another process relabeled, conflicts instead of writing its label back",
          arguments: StoreKind.databases)
    func aMergedValueIsNotWrittenBack(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let coordinator = try database.coordinator(Ledger.entities)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.automaticallyMergesChangesFromParent = true
        try context.performAndWait { _ = try Self.account(0, in: context).balance }
        let sibling = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try sibling.performAndWait {
            try Self.account(0, in: sibling).label = "sibling"
            try sibling.save()
        }
        await context.perform {} // the merge, queued by the save, has run
        try Self.saveElsewhere(database, .relabel(account: 0, label: "other"))
        let outcome = context.performAndWait {
            do {
                try Self.account(0, in: context).balance += 1
                try context.save()
                return "saved"
            } catch is MergeError {
                return "conflict"
            } catch {
                return "\(error)"
            }
        }
        let stored = try #require(try Self.stored(database)[0])
        #expect(outcome == "conflict" && stored.label == "other" && stored.balance == 10, "\(outcome): \(stored)")
    }

    @Test("Object trump after a merge: the balance a sibling saved and merged, then another process changed, is the store's",
          arguments: StoreKind.databases)
    func objectTrumpAfterAMerge(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let coordinator = try database.coordinator(Ledger.entities)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.automaticallyMergesChangesFromParent = true
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.performAndWait { _ = try Self.account(0, in: context).balance }
        let sibling = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try sibling.performAndWait {
            try Ledger.apply(.deposit(account: 0, entry: "sibling", amount: 1), writer: 1, sequence: 1, in: sibling)
            try sibling.save()
        }
        await context.perform {} // the merge, queued by the save, has run
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        try context.performAndWait {
            try Self.account(0, in: context).label = "mine"
            try context.save()
        }
        #expect(try Self.stored(database)[0] == Ledger.AccountState(label: "mine", balance: 111, entryTotal: 111,
                                                                      entries: ["first", "sibling", "other"]))
    }

    @Test("A child context's retry after its parent's conflict (rolled back, refreshed) adds to the balance the store has",
          arguments: StoreKind.databases)
    func aNestedRetryReadsTheStoresBalance(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let parent = try database.context(Ledger.entities)
        parent.mergePolicy = .error
        let child = Self.child(of: parent)
        child.automaticallyMergesChangesFromParent = true
        func deposit(_ key: String, _ amount: Int) async throws {
            try await child.perform {
                try Ledger.apply(.deposit(account: 0, entry: key, amount: amount), writer: 1, sequence: amount, in: child)
                try child.save()
            }
            try await parent.perform { try parent.save() }
        }
        try await deposit("one", 1)
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        await #expect(throws: MergeError.self) { try await deposit("five", 5) }
        for context in [parent, child] {
            await context.perform {
                context.rollback()
                context.refreshAllObjects()
            }
        }
        try await deposit("five", 5)
        #expect(try Self.stored(database)[0] == Ledger.AccountState(label: "", balance: 116, entryTotal: 116,
                                                                      entries: ["first", "one", "other", "five"]))
    }

    @Test("A child context's relabel after a deposit pushes only the label: its parent's object-trump save keeps the store's balance",
          arguments: StoreKind.databases)
    func aChildPushesOnlyWhatItChanged(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let parent = try database.context(Ledger.entities)
        parent.mergePolicy = .mergeByPropertyObjectTrump
        let child = Self.child(of: parent)
        child.automaticallyMergesChangesFromParent = true
        func save(_ operation: Ledger.Operation) async throws {
            try await child.perform {
                try Ledger.apply(operation, writer: 1, sequence: 0, in: child)
                try child.save()
            }
            try await parent.perform { try parent.save() }
        }
        try await save(.deposit(account: 0, entry: "one", amount: 1))
        await child.perform {} // the merge of the parent's save has run
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        try await save(.relabel(account: 0, label: "mine"))
        let stored = try #require(try Self.stored(database)[0])
        #expect(stored.label == "mine" && stored.balance == 111 && stored.entryTotal == 111, "\(stored)")
    }

    /// The concurrency campaign found it: a child pushed its copies of
    /// every property of an object it changed, and its parent took the
    /// child's older label over the one it had merged, then saved it.
    @Test("A child context's save pushes only what it changed: its older copy of a label its parent merged is not saved back",
          arguments: StoreKind.databases)
    func aChildDoesNotPushItsOlderValues(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let coordinator = try database.coordinator(Ledger.entities)
        let parent = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        parent.automaticallyMergesChangesFromParent = true
        let child = Self.child(of: parent)
        // Both hold the account (the parent's version is the one it merges).
        try parent.performAndWait { _ = try Self.account(0, in: parent).label }
        try child.performAndWait { _ = try Self.account(0, in: child).label }
        let sibling = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try sibling.performAndWait {
            try Self.account(0, in: sibling).label = "sibling"
            try sibling.save()
        }
        await parent.perform {} // the parent merged the sibling's label; the child still has ""
        try await child.perform {
            try Ledger.apply(.deposit(account: 0, entry: "child", amount: 1), writer: 1, sequence: 1, in: child)
            try child.save()
        }
        try await parent.perform { try parent.save() }
        let stored = try #require(try Self.stored(database)[0])
        #expect(stored.label == "sibling" && stored.balance == 11, "\(stored)")
    }

    /// The concurrency campaign found it: a child context's first change to
    /// a row another process changed after the child read it was saved by
    /// the parent over that change (the parent read the row only when the
    /// child saved, and checked that newer version). Also when the parent
    /// holds the object as a fault with no values (`object(with:)`).
    @Test("A child context's change to a row changed elsewhere since the child read it is a conflict when its parent saves",
          arguments: StoreKind.databases, [false, true])
    func aChildsChangeToARowChangedElsewhereConflicts(_ kind: StoreKind, parentHoldsAFault: Bool) async throws {
        let database = try Self.ledger(kind)
        let parent = try database.context(Ledger.entities)
        let child = Self.child(of: parent)
        let id = try child.performAndWait { try Self.account(0, in: child).objectID }
        if parentHoldsAFault {
            #expect(parent.performAndWait { parent.object(with: id).isFault })
        }
        #expect(try child.performAndWait { try Self.account(0, in: child).balance } == 10)
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        try await child.perform {
            try Ledger.apply(.deposit(account: 0, entry: "child", amount: 1), writer: 1, sequence: 1, in: child)
            try child.save()
        }
        await #expect(throws: MergeError.self) { try await parent.perform { try parent.save() } }
        #expect(try Self.stored(database)[0]?.balance == 110)
    }

    /// The concurrency campaign found it: a parent took the derived total a
    /// child computed from older copies of the children, and saved it.
    @Test("A child context's save leaves derived values to its parent, which counts the children it has",
          arguments: StoreKind.databases)
    func aParentDerivesFromTheChildrenItHas(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let parent = try database.context(Ledger.entities)
        let child = Self.child(of: parent)
        #expect(try child.performAndWait { try Self.account(0, in: child).entries.count } == 1)
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        // The parent reads the account again; the child keeps what it read.
        let total = try parent.performAndWait {
            let account = try Self.account(0, in: parent)
            parent.refresh(account, mergeChanges: false)
            return account.entryTotal
        }
        #expect(total == 110)
        try await child.perform {
            try Ledger.apply(.deposit(account: 0, entry: "child", amount: 1), writer: 1, sequence: 1, in: child)
            try child.save()
        }
        try await parent.perform { try parent.save() }
        let stored = try #require(try Self.stored(database)[0])
        #expect(stored.entryTotal == 111 && stored.entries == ["first", "other", "child"], "\(stored)")
        // The child's balance, 10 + 1, computed from what it read: the parent
        // holds a newer version and checks that one, as in Core Data, so the
        // read-modify-write in the child is last-writer-wins.
        #expect(stored.balance == 11)
    }

    /// Per-property policies merge a to-many set member by member, so the
    /// derived total recounted after resolution counts both writers'
    /// entries. The balance, an attribute both changed, follows the policy:
    /// this context's under object trump, the store's under store trump.
    @Test("Both writers' entries stay in the account's set, and in its derived total, under either per-property policy",
          arguments: StoreKind.databases, [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump])
    func perPropertyPoliciesMergeToManySets(_ kind: StoreKind, _ policy: MergePolicy) throws {
        let database = try Self.ledger(kind)
        let context = try database.context(Ledger.entities)
        context.mergePolicy = policy
        let loaded = try context.performAndWait { try Self.account(0, in: context).entries.count }
        #expect(loaded == 1, "the entries are loaded")
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        try context.performAndWait {
            try Ledger.apply(.deposit(account: 0, entry: "mine", amount: 5), writer: 1, sequence: 1, in: context)
            try context.save()
        }
        let stored = try #require(try Self.stored(database)[0])
        #expect(stored.entries == ["first", "other", "mine"] && stored.entryTotal == 115, "\(stored)")
        #expect(stored.balance == (policy == .mergeByPropertyObjectTrump ? 15 : 110), "\(stored)")
    }

    /// Under store trump, the parent's retry takes the store's balance: the
    /// parent started from what the child read, so the other writer's
    /// balance is a change made there.
    @Test("A child's change to a row changed elsewhere resolves under store trump with the store's values where both changed",
          arguments: StoreKind.databases)
    func aChildsChangeResolvesUnderStoreTrump(_ kind: StoreKind) async throws {
        let database = try Self.ledger(kind)
        let parent = try database.context(Ledger.entities)
        parent.mergePolicy = .mergeByPropertyStoreTrump
        let child = Self.child(of: parent)
        #expect(try child.performAndWait { try Self.account(0, in: child).balance } == 10)
        try Self.saveElsewhere(database, .deposit(account: 0, entry: "other", amount: 100))
        try await child.perform {
            try Self.account(0, in: child).label = "child"
            try Ledger.apply(.deposit(account: 0, entry: "child", amount: 1), writer: 1, sequence: 1, in: child)
            try child.save()
        }
        try await parent.perform { try parent.save() }
        let stored = try #require(try Self.stored(database)[0])
        #expect(stored.label == "child" && stored.balance == 110, "\(stored)")
        #expect(stored.entries == ["first", "other", "child"] && stored.entryTotal == 111, "\(stored)")
    }
}

