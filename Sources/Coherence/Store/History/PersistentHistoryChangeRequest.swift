import Foundation

/// A request to read or prune a store's persistent history, run with
/// ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``, as
/// Core Data's `NSPersistentHistoryChangeRequest`:
///
/// ```swift
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let transactions = (try context.execute(request) as! PersistentHistoryResult).transactions
/// ```
///
/// The store must keep history (``PersistentStoreDescription/persistentHistoryTracking``).
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest>
public final class PersistentHistoryChangeRequest: CustomStringConvertible {
    enum Kind {
        case fetchAfterToken
        case fetchAfterDate(Date)
        case deleteBeforeToken
        case deleteBeforeDate(Date)
    }

    let kind: Kind
    /// The token the request starts after (a fetch) or ends before (a
    /// deletion); `nil` for the whole history, or for a request by date.
    public let token: PersistentHistoryToken?
    /// What the result holds: by default
    /// ``PersistentHistoryResultType/transactionsAndChanges`` for a fetch and
    /// ``PersistentHistoryResultType/statusOnly`` for a deletion (whose
    /// ``PersistentHistoryResult/result`` is then `true`), as Core Data's.
    /// A deletion reports ``PersistentHistoryResultType/count`` too.
    public var resultType: PersistentHistoryResultType
    /// Only the transactions that pass this filter (`nil`: all of them).
    /// Core Data filters with a fetch request on the transaction entity
    /// (`NSPersistentHistoryTransaction.fetchRequest` with a predicate on
    /// `author` or `contextName`); Coherence offers this typed filter, which
    /// the store evaluates in SQL.
    public var transactionFilter: PersistentHistoryTransactionFilter?
    /// Core Data's way to filter a history fetch: a fetch request on the
    /// transactions (``PersistentHistoryTransaction/fetchRequest``) or on
    /// the changes (``PersistentHistoryChange/fetchRequest``) with a format
    /// predicate, and a `fetchLimit`. Only the transactions it matches are
    /// returned; for the changes' request, with only the changes it
    /// matches. Evaluated on the transactions the rest of the request
    /// selects. Ignored by deletions.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchrequest>
    public var fetchRequest: FetchRequest<FetchRequestResult>?

    init(kind: Kind, token: PersistentHistoryToken?) {
        self.kind = kind
        self.token = token
        switch kind {
        case .fetchAfterToken, .fetchAfterDate: resultType = .transactionsAndChanges
        case .deleteBeforeToken, .deleteBeforeDate: resultType = .statusOnly
        }
    }

    /// The transactions after `token`, in commit order; the whole history for
    /// `nil`. Executing it throws ``PersistentHistoryError/tokenExpired(_:)``
    /// when history after `token` was deleted.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchhistory(after:)-3rmfm>
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(kind: .fetchAfterToken, token: token)
    }

    /// The transactions `fetchRequest` selects (a request on
    /// ``PersistentHistoryTransaction/fetchRequest`` or
    /// ``PersistentHistoryChange/fetchRequest``), in the whole history, as
    /// Core Data's `fetchHistory(withFetch:)`.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchhistory(withfetch:)>
    public static func fetchHistory(withFetch fetchRequest: FetchRequest<FetchRequestResult>) -> PersistentHistoryChangeRequest {
        let request = PersistentHistoryChangeRequest(kind: .fetchAfterToken, token: nil)
        request.fetchRequest = fetchRequest
        return request
    }

    /// The transactions committed after `date`, in commit order.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchhistory(after:)-qi5b>
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(kind: .fetchAfterDate(date), token: nil)
    }

    /// The transactions after `transaction`, in commit order; the whole
    /// history for `nil`.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        fetchHistory(after: transaction?.token)
    }

    /// Deletes the transactions older than `token` (those before the one it
    /// marks; nothing for `nil`). Fetching after a token older than what
    /// remains then throws ``PersistentHistoryError/tokenExpired(_:)``.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/deletehistory(before:)-5kghb>
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(kind: .deleteBeforeToken, token: token)
    }

    /// Deletes the transactions committed before `date`.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/deletehistory(before:)-7t2th>
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(kind: .deleteBeforeDate(date), token: nil)
    }

    /// Deletes the transactions older than `transaction`.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/deletehistory(before:)-9l06p>
    public static func deleteHistory(before transaction: PersistentHistoryTransaction?) -> PersistentHistoryChangeRequest {
        deleteHistory(before: transaction?.token)
    }

    /// Whether the request deletes history.
    var isDeletion: Bool {
        switch kind {
        case .deleteBeforeToken, .deleteBeforeDate: true
        case .fetchAfterToken, .fetchAfterDate: false
        }
    }

    /// What the request does, for messages.
    public var description: String {
        switch kind {
        case .fetchAfterToken: "fetch history after \(token.map(String.init(describing:)) ?? "the beginning")"
        case .fetchAfterDate(let date): "fetch history after \(date)"
        case .deleteBeforeToken: "delete history before \(token.map(String.init(describing:)) ?? "nothing")"
        case .deleteBeforeDate(let date): "delete history before \(date)"
        }
    }
}

/// Which transactions a history fetch returns, by their author and context
/// name (a typed stand-in for Core Data's fetch request on
/// `NSPersistentHistoryTransaction`).
public enum PersistentHistoryTransactionFilter: Sendable, Hashable {
    /// Transactions by this ``ManagedObjectContext/transactionAuthor``.
    case author(String)
    /// Transactions by any other author, or by none: the usual way to skip
    /// one's own saves.
    case authorIsNot(String)
    /// Transactions saved by a context of this ``ManagedObjectContext/name``.
    case contextName(String)
    /// Transactions saved by a context of any other name, or of none.
    case contextNameIsNot(String)
    /// Transactions that pass every one of the filters.
    case all([PersistentHistoryTransactionFilter])
}

/// What a ``PersistentHistoryResult`` holds, as Core Data's
/// `NSPersistentHistoryResultType`.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistoryresulttype>
public enum PersistentHistoryResultType: Sendable, Hashable {
    /// Whether the request succeeded.
    case statusOnly
    /// The IDs of the objects the transactions changed.
    case objectIDs
    /// The number of transactions fetched or deleted.
    case count
    /// The transactions, without their changes.
    case transactionsOnly
    /// The changes of the transactions, in commit order.
    case changesOnly
    /// The transactions with their changes.
    case transactionsAndChanges

    /// Whether the store reads the transactions' changes for this type.
    var needsChanges: Bool {
        switch self {
        case .objectIDs, .changesOnly, .transactionsAndChanges: true
        case .statusOnly, .count, .transactionsOnly: false
        }
    }
}

/// The result of a ``PersistentHistoryChangeRequest``, as Core Data's
/// `NSPersistentHistoryResult`: ``ManagedObjectContext/execute(_:)-(PersistentHistoryChangeRequest)``
/// returns it as a ``PersistentStoreResult``, cast it as Core Data code does
/// (`try context.execute(request) as! PersistentHistoryResult`).
/// <https://developer.apple.com/documentation/coredata/nspersistenthistoryresult>
public final class PersistentHistoryResult: PersistentStoreResult, @unchecked Sendable {
    /// What the request asked for.
    public let resultType: PersistentHistoryResultType
    /// The transactions fetched, in commit order (with their changes for
    /// the types that hold changes; empty for a deletion and for
    /// ``PersistentHistoryResultType/count`` and ``PersistentHistoryResultType/statusOnly``).
    public let transactions: [PersistentHistoryTransaction]
    /// How many transactions were fetched or deleted.
    public let count: Int

    /// A result (used by stores that keep history).
    public init(resultType: PersistentHistoryResultType, transactions: [PersistentHistoryTransaction], count: Int) {
        self.resultType = resultType
        self.transactions = transactions
        self.count = count
        super.init()
    }

    /// The result as Core Data gives it: `[PersistentHistoryTransaction]`
    /// for the transaction types, `[PersistentHistoryChange]` for
    /// ``PersistentHistoryResultType/changesOnly``, `[ManagedObjectID]` for
    /// ``PersistentHistoryResultType/objectIDs``, the count as `Int` for
    /// ``PersistentHistoryResultType/count``, `true` for
    /// ``PersistentHistoryResultType/statusOnly`` (so `result as! Bool`
    /// works, as with Core Data).
    public var result: Any? {
        switch resultType {
        case .statusOnly: return true
        case .count: return count
        case .transactionsOnly, .transactionsAndChanges: return transactions
        case .changesOnly: return changes
        case .objectIDs:
            var seen = Set<ManagedObjectID>()
            return changes.map(\.changedObjectID).filter { seen.insert($0).inserted }
        }
    }

    /// The changes of ``transactions``, in commit order.
    public var changes: [PersistentHistoryChange] {
        transactions.flatMap { $0.changes ?? [] }
    }
}

/// Why a persistent history request failed.
public enum PersistentHistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// History after the token was deleted (``PersistentHistoryChangeRequest/deleteHistory(before:)-(PersistentHistoryToken?)``):
    /// some of the transactions the caller has not seen are gone, so the
    /// request fails rather than return part of them. Core Data's
    /// `NSPersistentHistoryTokenExpiredError` (134301). Refetch what you
    /// show, then continue from ``PersistentStoreCoordinator/currentPersistentHistoryToken(fromStores:)``.
    case tokenExpired(PersistentHistoryToken)
    /// The store does not keep history: it was loaded without
    /// ``PersistentStoreDescription/persistentHistoryTracking``.
    case trackingNotEnabled(storeIdentifier: String)
    /// The store cannot keep history at all (the in-memory store).
    case notSupported(storeType: String)
    /// No loaded store keeps history, or none is the store the token names.
    case noHistoryStore

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .tokenExpired(let token):
            "the persistent history after \(token) was deleted; fetch again from the current token"
        case .trackingNotEnabled(let store):
            "store \(store) was loaded without persistent history tracking (set persistentHistoryTracking on its description)"
        case .notSupported(let type):
            "the \(type) store does not keep persistent history"
        case .noHistoryStore:
            "no loaded store keeps the persistent history this request asks for"
        }
    }
}
