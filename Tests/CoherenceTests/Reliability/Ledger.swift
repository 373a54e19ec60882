import Coherence
import Foundation
import PropertyBased

/// The concurrency campaign's data: accounts whose balance is the sum of
/// their entries, and one receipt per save naming who saved it. Every save
/// of the campaign is one ``Ledger/Operation``; replaying the acknowledged
/// operations one after another, in commit order, must give exactly what
/// the store holds.
final class LedgerAccount: ManagedObject {
    @Attribute var number = 0
    @Attribute var label = ""
    @Attribute var balance = 0
    @Relationship(inverse: \LedgerEntry.account, deleteRule: .cascade) var entries: Set<LedgerEntry>
    /// Maintained by Coherence; equals `balance` after every save.
    @Derived(sum: \LedgerAccount.entries, of: \LedgerEntry.amount) var entryTotal: Int
}

final class LedgerEntry: ManagedObject {
    @Attribute var key = ""
    @Attribute var amount = 0
    @Relationship var account: LedgerAccount?
}

/// Inserted by every save: which writer saved, and its operation's number.
final class LedgerReceipt: ManagedObject {
    @Attribute var writer = 0
    @Attribute var sequence = 0
}

enum Ledger {
    static let entities: [ManagedObject.Type] = [LedgerAccount.self, LedgerEntry.self, LedgerReceipt.self]
    static let accounts = 6

    /// One save's change.
    enum Operation: Codable, Hashable, Sendable {
        /// A new entry of `amount` on an account, added to its balance.
        case deposit(account: Int, entry: String, amount: Int)
        /// Two entries in one save: `-amount` on `from`, `+amount` on `to`.
        case transfer(from: Int, to: Int, amount: Int, debit: String, credit: String)
        /// Deletes an entry and takes its amount off its account's balance.
        case void(entry: String, account: Int, amount: Int)
        /// Sets an account's label (saved with `.mergeByPropertyObjectTrump`:
        /// the label wins, the balance stays the store's).
        case relabel(account: Int, label: String)

        var isRelabel: Bool {
            if case .relabel = self { true } else { false }
        }
    }

    /// A save that returned: who made it and what it changed.
    struct Acknowledged: Codable, Hashable, Sendable {
        var writer: Int
        var sequence: Int
        var operation: Operation
        /// The balance the save wrote to each account it changed.
        var balances: [Int: Int] = [:]
        /// The derived entry total each account it changed had once saved.
        var totals: [Int: Int] = [:]
    }

    /// An entry a writer created and has not voided yet.
    struct LiveEntry: Codable, Hashable, Sendable {
        var key: String
        var account: Int
        var amount: Int
    }

    // MARK: - Generation

    /// What to do next, before it is tied to a writer's live entries.
    enum Step: Sendable {
        case deposit(account: Int, amount: Int)
        case transfer(from: Int, offset: Int, amount: Int)
        case void(pick: Int)
        case relabel(account: Int)
    }

    /// Deposits most often, then transfers, voids and relabels.
    static let steps = Gen.frequency(
        (weight: 4, gen: zip(Gen.int(in: 0..<accounts), Gen.int(in: 1...100)).map { Step.deposit(account: $0, amount: $1) }),
        (weight: 2, gen: zip(Gen.int(in: 0..<accounts), Gen.int(in: 1..<accounts), Gen.int(in: 1...50))
            .map { Step.transfer(from: $0, offset: $1, amount: $2) }),
        (weight: 2, gen: Gen.int(in: 0...1_000).map { Step.void(pick: $0) }),
        (weight: 1, gen: Gen.int(in: 0..<accounts).map { Step.relabel(account: $0) })
    )

    /// The operation `step` means for `writer`'s save number `sequence`; a
    /// void with nothing to void deposits instead.
    static func operation(_ step: Step, writer: Int, sequence: Int, live: [LiveEntry]) -> Operation {
        let key = "w\(writer).\(sequence)"
        switch step {
        case .deposit(let account, let amount):
            return .deposit(account: account, entry: key, amount: amount)
        case .transfer(let from, let offset, let amount):
            return .transfer(from: from, to: (from + offset) % accounts, amount: amount, debit: key + "d", credit: key + "c")
        case .void(let pick):
            guard !live.isEmpty else { return .deposit(account: pick % accounts, entry: key, amount: 1) }
            let entry = live[pick % live.count]
            return .void(entry: entry.key, account: entry.account, amount: entry.amount)
        case .relabel(let account):
            return .relabel(account: account, label: key)
        }
    }

    /// `live` after `operation` was saved.
    static func updating(_ live: inout [LiveEntry], after operation: Operation) {
        switch operation {
        case .deposit(let account, let entry, let amount):
            live.append(LiveEntry(key: entry, account: account, amount: amount))
        case .transfer(let from, let to, let amount, let debit, let credit):
            live.append(LiveEntry(key: debit, account: from, amount: -amount))
            live.append(LiveEntry(key: credit, account: to, amount: amount))
        case .void(let entry, _, _):
            live.removeAll { $0.key == entry }
        case .relabel:
            break
        }
    }

    // MARK: - Applying in a context

    /// Makes `operation`'s change and inserts its receipt, in `context` (on
    /// its queue); the caller saves. Returns the balance it set on each
    /// account it changed.
    @discardableResult
    static func apply(_ operation: Operation, writer: Int, sequence: Int, in context: ManagedObjectContext) throws -> [Int: Int] {
        var balances: [Int: Int] = [:]
        func account(_ number: Int) throws -> LedgerAccount {
            guard let account = try context.fetch(FetchRequest<LedgerAccount>(predicate: #Predicate { $0.number == number })).first else {
                throw LedgerError.missing("account \(number)")
            }
            return account
        }
        func addEntry(_ key: String, amount: Int, to number: Int) throws {
            let target = try account(number)
            let entry = LedgerEntry(context: context)
            entry.key = key
            entry.amount = amount
            entry.account = target
            target.balance += amount
            balances[number] = target.balance
        }
        switch operation {
        case .deposit(let number, let key, let amount):
            try addEntry(key, amount: amount, to: number)
        case .transfer(let from, let to, let amount, let debit, let credit):
            try addEntry(debit, amount: -amount, to: from)
            try addEntry(credit, amount: amount, to: to)
        case .void(let key, let number, let amount):
            guard let entry = try context.fetch(FetchRequest<LedgerEntry>(predicate: #Predicate { $0.key == key })).first else {
                throw LedgerError.missing("entry \(key)")
            }
            let target = try account(number)
            target.balance -= amount
            balances[number] = target.balance
            context.delete(entry)
        case .relabel(let number, let label):
            try account(number).label = label
        }
        let receipt = LedgerReceipt(context: context)
        receipt.writer = writer
        receipt.sequence = sequence
        return balances
    }

    struct LedgerError: Error, CustomStringConvertible {
        var description: String
        static func missing(_ what: String) -> LedgerError { LedgerError(description: "\(what) is not in the store") }
    }

    // MARK: - State

    /// An account as a store, a replay or a merged context has it.
    struct AccountState: Codable, Hashable, Sendable, CustomStringConvertible {
        var label = ""
        var balance = 0
        var entryTotal = 0
        var entries: Set<String> = []
        var description: String { "label \(label.debugDescription), balance \(balance), entry total \(entryTotal), \(entries.count) entries" }
    }

    /// What `operation` adds to each account's balance.
    static func deltas(_ operation: Operation) -> [Int: Int] {
        switch operation {
        case .deposit(let number, _, let amount): [number: amount]
        case .transfer(let from, let to, let amount, _, _): [from: -amount, to: amount]
        case .void(_, let number, let amount): [number: -amount]
        case .relabel(let number, _): [number: 0]
        }
    }

    /// The accounts after `operations`, applied one after another to new
    /// accounts.
    static func replay(_ operations: [Operation]) -> [Int: AccountState] {
        var accounts = Dictionary(uniqueKeysWithValues: (0..<accounts).map { ($0, AccountState()) })
        func add(_ key: String, _ amount: Int, to number: Int) {
            accounts[number]!.entries.insert(key)
            accounts[number]!.balance += amount
            accounts[number]!.entryTotal += amount
        }
        for operation in operations {
            switch operation {
            case .deposit(let number, let key, let amount):
                add(key, amount, to: number)
            case .transfer(let from, let to, let amount, let debit, let credit):
                add(debit, -amount, to: from)
                add(credit, amount, to: to)
            case .void(let key, let number, let amount):
                accounts[number]!.entries.remove(key)
                accounts[number]!.balance -= amount
                accounts[number]!.entryTotal -= amount
            case .relabel(let number, let label):
                accounts[number]!.label = label
            }
        }
        return accounts
    }

    /// The state of `accounts` as objects of a context (on its queue).
    static func state(of accounts: some Sequence<LedgerAccount>) -> [Int: AccountState] {
        Dictionary(uniqueKeysWithValues: accounts.map { account in
            (account.number, AccountState(label: account.label, balance: account.balance, entryTotal: account.entryTotal,
                                          entries: Set(account.entries.map(\.key))))
        })
    }

    /// Creates the accounts, each with label "" and balance 0.
    static func createAccounts(in context: ManagedObjectContext) throws {
        try context.performAndWait {
            for number in 0..<accounts {
                LedgerAccount(context: context).number = number
            }
            try context.save()
        }
    }
}
