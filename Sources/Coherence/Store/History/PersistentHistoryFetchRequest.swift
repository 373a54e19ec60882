import Foundation

// Core Data's fetch requests on persistent history: a request on the
// transaction or change "entity" with a format predicate, handed to a
// history fetch (`fetchHistory(withFetch:)` or `fetchRequest`).

extension PersistentHistoryTransaction {
    /// The name of the transactions' entity in history fetch requests.
    static let entityName = "NSPersistentHistoryTransaction"

    /// A fetch request on transactions, for ``PersistentHistoryChangeRequest/fetchRequest``,
    /// as Core Data's `NSPersistentHistoryTransaction.fetchRequest`. Its
    /// format predicate may use `author`, `contextName`, `timestamp`,
    /// `token`, `transactionNumber` and `storeID`:
    ///
    /// ```swift
    /// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
    /// if let transactions = PersistentHistoryTransaction.fetchRequest {
    ///     transactions.predicate = Predicate(format: "author != %@", "app")
    ///     request.fetchRequest = transactions
    /// }
    /// ```
    ///
    /// Never `nil` (Core Data's is optional, so code that unwraps it ports
    /// unchanged).
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/fetchrequest>
    public static var fetchRequest: FetchRequest<FetchRequestResult>? {
        FetchRequest<FetchRequestResult>(entityName: entityName)
    }

    /// The transaction without its changes (for ``PersistentHistoryResultType/transactionsOnly``).
    var withoutChanges: PersistentHistoryTransaction {
        PersistentHistoryTransaction(timestamp: timestamp, author: author, contextName: contextName,
                                     transactionNumber: transactionNumber, storeID: storeID, changes: nil)
    }

    /// The record a transaction predicate reads.
    func formatValue(forKey key: String) -> FormatValue? {
        switch key {
        case "author": author.map { .string($0) } ?? .null
        case "contextName": contextName.map { .string($0) } ?? .null
        case "timestamp": .double(timestamp.timeIntervalSinceReferenceDate)
        case "token", "transactionNumber": .integer(transactionNumber)
        case "storeID": .string(storeID)
        case "bundleID", "processID": .null
        default: nil
        }
    }
}

extension PersistentHistoryChange {
    /// The name of the changes' entity in history fetch requests.
    static let entityName = "NSPersistentHistoryChange"

    /// A fetch request on changes, for ``PersistentHistoryChangeRequest/fetchRequest``,
    /// as Core Data's `NSPersistentHistoryChange.fetchRequest`. Its format
    /// predicate may use `changedEntity` (compared with an entity's name or
    /// its ``EntityDescription``), `changedObjectID`, `changeType` (the raw
    /// value of ``PersistentHistoryChangeType``), `changeID`, and the
    /// transaction's keys after `transaction.` (`transaction.author`).
    /// Never `nil`.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychange/fetchrequest>
    public static var fetchRequest: FetchRequest<FetchRequestResult>? {
        FetchRequest<FetchRequestResult>(entityName: entityName)
    }

    /// The record a change predicate reads, with its transaction's values.
    func formatValue(forKey key: String, in transaction: PersistentHistoryTransaction) -> FormatValue? {
        switch key {
        case "changedEntity": .string(changedObjectID.entityName)
        case "changedObjectID": .objectID(changedObjectID)
        case "changeType": .integer(Int64(changeType.rawValue))
        case "changeID": .integer(changeID)
        default:
            key.hasPrefix("transaction.") ? transaction.formatValue(forKey: String(key.dropFirst("transaction.".count))) : nil
        }
    }
}

/// A history fetch's ``PersistentHistoryChangeRequest/fetchRequest``, ready
/// to select transactions and changes. It is evaluated in memory, on the
/// transactions the rest of the history request selects (read with their
/// changes for a request on changes): O(those transactions and changes).
struct PersistentHistoryFetchFilter {
    /// Whether the predicate reads changes (rather than transactions).
    let readsChanges: Bool
    let node: FormatNode?
    let fetchLimit: Int
    let fetchOffset: Int
    /// The transaction keys to order by, and whether ascending.
    let order: [(key: String, ascending: Bool)]

    /// The keys a transaction request may sort by.
    private static let transactionKeys = ["timestamp", "token", "transactionNumber", "author", "contextName", "storeID"]

    /// - Throws: ``FetchError/unknownEntity(name:)`` for a request on any
    ///   other entity; ``FetchError/predicateNotOnObjects(resultType:)`` for
    ///   a predicate that is not a format predicate (or a compound of them);
    ///   ``FetchError/unknownSortKey(entity:key:)`` for a sort by something
    ///   other than a transaction's keys, and for any sort of changes (they
    ///   come in commit order).
    init(_ request: FetchRequest<FetchRequestResult>) throws {
        let settings = request.snapshot
        switch settings.entityName {
        case PersistentHistoryTransaction.entityName?: readsChanges = false
        case PersistentHistoryChange.entityName?: readsChanges = true
        default: throw FetchError.unknownEntity(name: settings.entityName ?? "")
        }
        if let predicate = settings.predicate {
            guard let node = (predicate.expression as? any FormatNodeExpression)?.formatNode else {
                throw FetchError.predicateNotOnObjects(resultType: "FetchRequestResult")
            }
            self.node = node
        } else {
            node = nil
        }
        let changes = readsChanges
        let entity = changes ? PersistentHistoryChange.entityName : PersistentHistoryTransaction.entityName
        order = try settings.sortDescriptors.map { descriptor in
            guard !changes, let key = descriptor.attributeName(among: Self.transactionKeys) else {
                throw FetchError.unknownSortKey(entity: entity, key: descriptor.keyPath.map { "\($0)" } ?? "?")
            }
            return (key, descriptor.order == .forward)
        }
        fetchLimit = settings.fetchLimit
        fetchOffset = settings.fetchOffset
    }

    /// The transactions that match, in the request's order (commit order
    /// by default) after its offset and limit; for a change predicate,
    /// those with a matching change, holding only those changes.
    func select(_ transactions: [PersistentHistoryTransaction]) throws -> [PersistentHistoryTransaction] {
        var selected = try matching(transactions)
        if !order.isEmpty {
            selected.sort { lhs, rhs in
                for (key, ascending) in order {
                    let result = Self.order(lhs.formatValue(forKey: key) ?? .null, rhs.formatValue(forKey: key) ?? .null)
                    if result == .orderedSame { continue }
                    return (result == .orderedAscending) == ascending
                }
                return false
            }
        }
        return windowed(selected, offset: fetchOffset, limit: fetchLimit)
    }

    /// Two record values in order, `nil` (NULL) first.
    private static func order(_ a: FormatValue, _ b: FormatValue) -> ComparisonResult {
        if let result = FormatSemantics.order(a, b) { return result }
        if a == .null { return b == .null ? .orderedSame : .orderedAscending }
        return b == .null ? .orderedDescending : .orderedSame
    }

    private func matching(_ transactions: [PersistentHistoryTransaction]) throws -> [PersistentHistoryTransaction] {
        var selected: [PersistentHistoryTransaction] = []
        for transaction in transactions {
            guard let node else { selected.append(transaction); continue }
            if !readsChanges {
                if try FormatRecordEvaluator.evaluate(node, entity: PersistentHistoryTransaction.entityName, value: transaction.formatValue(forKey:)) {
                    selected.append(transaction)
                }
                continue
            }
            let changes = try (transaction.changes ?? []).filter { change in
                try FormatRecordEvaluator.evaluate(node, entity: PersistentHistoryChange.entityName) { change.formatValue(forKey: $0, in: transaction) }
            }
            if !changes.isEmpty {
                selected.append(PersistentHistoryTransaction(timestamp: transaction.timestamp, author: transaction.author, contextName: transaction.contextName,
                                                             transactionNumber: transaction.transactionNumber, storeID: transaction.storeID, changes: changes))
            }
        }
        return selected
    }
}
