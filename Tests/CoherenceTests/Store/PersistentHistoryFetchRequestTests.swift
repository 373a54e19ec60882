import Coherence
import Foundation
import Testing

// Core Data filters a history fetch with a fetch request on the transaction
// or change entity: Apple's sample code sets
// `NSPersistentHistoryTransaction.fetchRequest` with an author predicate as
// the change request's `fetchRequest`, and WWDC 2020's "Core Data: Sundries
// and maxims" filters changes by `changedEntity` and `changeType`.
// https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchrequest
// https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest/fetchhistory(withfetch:)
// https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/fetchrequest
// https://developer.apple.com/documentation/coredata/nspersistenthistorychange/fetchrequest

@Suite("Persistent history: fetch requests on transactions and changes")
struct PersistentHistoryFetchRequestTests {
    /// Three saves by two authors and two context names; the second updates
    /// and deletes.
    private static func history(_ kind: StoreKind) throws -> (ManagedObjectContext, [PersistentHistoryTransaction]) {
        let coordinator = try PersistentHistoryTests.coordinator(TestDatabase.new(kind))
        let context = PersistentHistoryTests.context(coordinator, name: "app", author: "app")
        try context.performAndWait {
            let first = HistoryBookmark(context: context)
            first.title = "one"
            let second = HistoryBookmark(context: context)
            second.title = "two"
            try context.save()
            context.transactionAuthor = "sync"
            context.name = "importer"
            first.visits = 3
            context.delete(second)
            try context.save()
            context.transactionAuthor = "app"
            HistoryBookmark(context: context).title = "three"
            try context.save()
        }
        return (context, try PersistentHistoryTests.history(context, after: nil))
    }

    @Test(arguments: StoreKind.databases) func transactionsByAuthorAndContextName(store: StoreKind) throws {
        let (context, all) = try Self.history(store)
        try context.performAndWait {
            let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            if let transactions = PersistentHistoryTransaction.fetchRequest {
                transactions.predicate = Predicate(format: "author != %@", "sync")
                request.fetchRequest = transactions
            }
            let result = try context.execute(request) as! PersistentHistoryResult
            #expect(result.transactions.map(\.token) == [all[0].token, all[2].token])
            #expect(result.transactions.allSatisfy { $0.changes?.count == ($0.token == all[0].token ? 2 : 1) })

            let byContext = PersistentHistoryTransaction.fetchRequest!
            byContext.predicate = Predicate(format: "%K = %@ AND %K = %@", "author", "sync", "contextName", "importer")
            let fetch = PersistentHistoryChangeRequest.fetchHistory(withFetch: byContext)
            fetch.resultType = .transactionsOnly
            let transactions = (try context.execute(fetch) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
            #expect(transactions.map(\.token) == [all[1].token])
            #expect(transactions[0].changes == nil, "transactionsOnly")

            let afterToken = PersistentHistoryTransaction.fetchRequest!
            afterToken.predicate = Predicate(format: "token > %@ AND timestamp >= %@", all[0].token, all[0].timestamp)
            afterToken.fetchLimit = 1
            fetch.fetchRequest = afterToken
            fetch.resultType = .count
            #expect((try context.execute(fetch) as! PersistentHistoryResult).result as! Int == 1)
        }
    }

    /// The newest transaction by an author: a compound predicate, a sort
    /// by timestamp descending and a limit of one, as apps ask for it.
    @Test(arguments: StoreKind.databases) func newestTransactionByCompoundPredicateAndSort(store: StoreKind) throws {
        let (context, all) = try Self.history(store)
        try context.performAndWait { () throws in
            let transactions = PersistentHistoryTransaction.fetchRequest!
            transactions.predicate = CompoundPredicate.or([Predicate(format: "author == %@", "app"), Predicate(format: "contextName == %@", "nobody")])
            transactions.sortDescriptors = [SortDescriptor(key: "timestamp", ascending: false), SortDescriptor(key: "token", ascending: false)]
            transactions.fetchLimit = 1
            let request = PersistentHistoryChangeRequest.fetchHistory(withFetch: transactions)
            #expect((try context.execute(request) as! PersistentHistoryResult).transactions.map(\.token) == [all[2].token])
            transactions.fetchOffset = 1
            #expect((try context.execute(request) as! PersistentHistoryResult).transactions.map(\.token) == [all[0].token])

            let sortedChanges = PersistentHistoryChange.fetchRequest!
            sortedChanges.sortDescriptors = [SortDescriptor(key: "changeID", ascending: false)]
            #expect(performing: { try context.execute(PersistentHistoryChangeRequest.fetchHistory(withFetch: sortedChanges)) }, throws: { error in
                if case .unknownSortKey("NSPersistentHistoryChange", _)? = error as? FetchError { true } else { false }
            })
        }
    }

    @Test(arguments: StoreKind.databases) func changesByEntityAndType(store: StoreKind) throws {
        let (context, all) = try Self.history(store)
        try context.performAndWait {
            let changes = PersistentHistoryChange.fetchRequest!
            changes.predicate = Predicate(format: "changedEntity == %@ AND changeType == %d",
                                          HistoryBookmark.entity(), PersistentHistoryChangeType.update.rawValue)
            let request = PersistentHistoryChangeRequest.fetchHistory(withFetch: changes)
            request.resultType = .changesOnly
            let updates = (try context.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryChange]
            #expect(updates.map(\.changeType) == [.update])
            #expect(updates.map(\.changedObjectID) == all[1].changes?.filter { $0.changeType == .update }.map(\.changedObjectID))

            changes.predicate = Predicate(format: "transaction.author == 'app' AND changeType != %d", PersistentHistoryChangeType.update.rawValue)
            request.resultType = .transactionsAndChanges
            let byApp = (try context.execute(request) as! PersistentHistoryResult).transactions
            #expect(byApp.map(\.token) == [all[0].token, all[2].token])
            #expect(byApp.map { $0.changes?.count } == [2, 1])
        }
    }

    /// A request on another entity, or a key transactions do not have,
    /// throws; `Predicate(value:)` is read on transactions too.
    @Test func requestsThatCannotRunThrow() throws {
        let (context, _) = try Self.history(.sqlite)
        context.performAndWait {
            let request = PersistentHistoryChangeRequest.fetchWithRequest(FetchRequest<FetchRequestResult>(entityName: "HistoryBookmark"))
            #expect(performing: { try context.execute(request) }, throws: { error in
                if case .unknownEntity("HistoryBookmark")? = error as? FetchError { true } else { false }
            })
            let always = PersistentHistoryTransaction.fetchRequest!
            always.predicate = Predicate(value: true)
            #expect(throws: Never.self) { try context.execute(PersistentHistoryChangeRequest.fetchWithRequest(always)) }
            let unknownKey = PersistentHistoryTransaction.fetchRequest!
            unknownKey.predicate = Predicate(format: "colour == 'red'")
            #expect(performing: { try context.execute(PersistentHistoryChangeRequest.fetchWithRequest(unknownKey)) }, throws: { error in
                if case .unknownKey("NSPersistentHistoryTransaction", "colour")? = error as? PredicateFormatError { true } else { false }
            })
        }
    }
}

private extension PersistentHistoryChangeRequest {
    static func fetchWithRequest(_ request: FetchRequest<FetchRequestResult>) -> PersistentHistoryChangeRequest {
        fetchHistory(withFetch: request)
    }
}
