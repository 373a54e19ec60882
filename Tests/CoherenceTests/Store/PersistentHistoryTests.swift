@testable import Coherence
import Foundation
import Testing

/// A bookmark whose remote identifier outlives it in persistent history.
final class HistoryBookmark: ManagedObject {
    @Attribute(.preservesValueInHistoryOnDeletion) var remoteID = ""
    @Attribute var title = ""
    @Attribute var visits = 0
}

/// Persistent history on the SQLite and PostgreSQL stores: what saves and
/// batch requests record, reading it after a token, pruning it, and Core
/// Data's history-processing loop.
///
/// Core Data: persistent history tracking is turned on with
/// `NSPersistentHistoryTrackingKey`
/// (https://developer.apple.com/documentation/coredata/nspersistenthistorytrackingkey);
/// each save or batch operation is one `NSPersistentHistoryTransaction`
/// (https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction)
/// of `NSPersistentHistoryChange`s
/// (https://developer.apple.com/documentation/coredata/nspersistenthistorychange),
/// read with `NSPersistentHistoryChangeRequest`
/// (https://developer.apple.com/documentation/coredata/nspersistenthistorychangerequest).
@Suite("Persistent history")
struct PersistentHistoryTests {
    /// A coordinator on `database` for the bookmark model, with history on
    /// as Core Data code turns it on.
    static func coordinator(_ database: TestDatabase, tracking: Bool = true) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [HistoryBookmark.self]))
        let description = database.description
        if tracking { description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey) }
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator, name: String? = nil, author: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.name = name
        context.transactionAuthor = author
        return context
    }

    static func history(_ context: ManagedObjectContext, after token: PersistentHistoryToken?) throws -> [PersistentHistoryTransaction] {
        try context.performAndWait { (try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)) as! PersistentHistoryResult).transactions }
    }

    @Test func theTypedPropertyIsTheCoreDataOption() {
        let description = PersistentStoreDescription.inMemory
        #expect(!description.persistentHistoryTracking)
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        #expect(description.persistentHistoryTracking)
        description.persistentHistoryTracking = false
        #expect((description.options[NSPersistentHistoryTrackingKey] as? NSNumber)?.boolValue == false)
    }

    /// Core Data's `addPersistentStore(type:configuration:at:options:)` takes the option too.
    @Test func theOptionTurnsHistoryOnThroughAddPersistentStoreOptions() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [HistoryBookmark.self]))
        try coordinator.addPersistentStore(type: .sqlite, at: TestFiles.newURL("history.sqlite"),
                                           options: [NSPersistentHistoryTrackingKey: true as NSNumber])
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber == 0)
    }

    /// Core Data code writes the option as a plain Swift `true`.
    @Test func aPlainTrueTurnsHistoryOn() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [HistoryBookmark.self]))
        try coordinator.addPersistentStore(type: .sqlite, at: TestFiles.newURL("history.sqlite"),
                                           options: [NSPersistentHistoryTrackingKey: true])
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber == 0)
    }

    /// `transactionAuthor` and `name` are recorded with each transaction:
    /// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/transactionauthor
    /// and a deletion keeps the attributes marked `preservesValueInHistoryOnDeletion` in its tombstone:
    /// https://developer.apple.com/documentation/coredata/nsattributedescription/preservesvalueinhistoryondeletion
    @Test(arguments: StoreKind.databases)
    func eachSaveWritesOneTransaction(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = Self.context(try Self.coordinator(database), name: "editor", author: "importer")
        let (first, second) = try context.performAndWait {
            let first = HistoryBookmark(context: context)
            first.remoteID = "r1"
            let second = HistoryBookmark(context: context)
            second.remoteID = "r2"
            second.title = "Swift"
            try context.save()
            return (first, second)
        }
        let inserted = try Self.history(context, after: nil)
        #expect(inserted.count == 1)
        let insertion = try #require(inserted.first)
        #expect(insertion.author == "importer" && insertion.contextName == "editor")
        #expect(insertion.changes?.map(\.changeType) == [.insert, .insert])
        #expect(Set(insertion.changes?.map(\.changedObjectID) ?? []) == [first.objectID, second.objectID])

        try context.performAndWait {
            first.title = "renamed"
            context.delete(second)
            try context.save()
        }
        let later = try Self.history(context, after: insertion.token)
        #expect(later.count == 1)
        let changes = try #require(later.first?.changes)
        let update = try #require(changes.first { $0.changeType == .update })
        #expect(update.changedObjectID == first.objectID)
        #expect(update.updatedProperties == ["title"])
        #expect(update.tombstone == nil)
        let deletion = try #require(changes.first { $0.changeType == .delete })
        #expect(deletion.changedObjectID == second.objectID)
        #expect(deletion.tombstone == ["remoteID": .string("r2")], "only the preserved attribute")
        #expect(changes.count == 2)
    }

    @Test(arguments: StoreKind.databases)
    func aBatchUpdateAndABatchDeleteWriteOneTransactionEach(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = Self.context(try Self.coordinator(database), name: "batch", author: "cleanup")
        let ids = try context.performAndWait {
            let bookmarks = (1...3).map { number in
                let bookmark = HistoryBookmark(context: context)
                bookmark.remoteID = "r\(number)"
                return bookmark
            }
            try context.save()
            return Set(bookmarks.map(\.objectID))
        }
        let start = try #require(try Self.history(context, after: nil).last?.token)
        try context.performAndWait {
            _ = try context.execute(BatchUpdateRequest<HistoryBookmark>(propertiesToUpdate: ["visits": 5]))
        }
        let updates = try Self.history(context, after: start)
        #expect(updates.count == 1)
        #expect(updates.first?.author == "cleanup" && updates.first?.contextName == "batch")
        #expect(Set(updates.first?.changes?.map(\.changedObjectID) ?? []) == ids)
        #expect(updates.first?.changes?.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["visits"] } == true)

        try context.performAndWait {
            _ = try context.execute(BatchDeleteRequest<HistoryBookmark>(predicate: #Predicate { $0.remoteID == "r2" }))
        }
        let deletions = try Self.history(context, after: try #require(updates.last?.token))
        #expect(deletions.count == 1)
        let deletion = try #require(deletions.first?.changes?.first)
        #expect(deletions.first?.changes?.count == 1)
        #expect(deletion.changeType == .delete)
        #expect(deletion.tombstone == ["remoteID": .string("r2")])
    }

    /// History is written in the save's own database transaction: a save
    /// that fails (here an optimistic-locking conflict under the `.error`
    /// merge policy) leaves no transaction behind.
    @Test(arguments: StoreKind.databases)
    func aFailedSaveWritesNoHistory(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let coordinator = try Self.coordinator(database)
        let first = Self.context(coordinator)
        let second = Self.context(coordinator)
        let id = try first.performAndWait {
            let bookmark = HistoryBookmark(context: first)
            try first.save()
            return bookmark.objectID
        }
        try second.performAndWait { (try second.existingObject(with: id) as? HistoryBookmark)?.title = "second" }
        try first.performAndWait {
            (try first.existingObject(with: id) as? HistoryBookmark)?.title = "first"
            try first.save()
        }
        let before = try Self.history(first, after: nil).count
        second.performAndWait {
            second.mergePolicy = .error
            #expect(throws: MergeError.self) { try second.save() }
        }
        #expect(try Self.history(first, after: nil).count == before)
        #expect(before == 2)
    }

    @Test(arguments: StoreKind.databases)
    func aBatchInsertWritesOneTransactionOfInsertions(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = Self.context(try Self.coordinator(database), name: "loader", author: "import")
        let result = try context.performAndWait {
            let request = BatchInsertRequest<HistoryBookmark>(objects: [["remoteID": "a"], ["remoteID": "b"]])
            request.resultType = .objectIDs
            return (try context.execute(request) as! BatchInsertResult)
        }
        let transactions = try Self.history(context, after: nil)
        #expect(transactions.count == 1)
        #expect(transactions.first?.author == "import" && transactions.first?.contextName == "loader")
        #expect(transactions.first?.changes?.map(\.changeType) == [.insert, .insert])
        #expect(transactions.first?.changes?.map(\.changedObjectID) == result.objectIDs)
    }

    @Test(arguments: StoreKind.databases)
    func fetchingAfterATokenReturnsExactlyTheLaterTransactionsInOrder(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let coordinator = try Self.coordinator(database)
        let context = Self.context(coordinator, author: "app")
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber == 0)
        for title in ["one", "two", "three"] {
            try context.performAndWait {
                HistoryBookmark(context: context).title = title
                context.transactionAuthor = title == "two" ? "sync" : "app"
                try context.save()
            }
        }
        let all = try Self.history(context, after: nil)
        #expect(all.count == 3)
        #expect(all.map(\.token) == all.map(\.token).sorted())
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == all.last?.token)

        let later = try Self.history(context, after: all[0].token)
        #expect(later.map(\.token) == [all[1].token, all[2].token])
        let byTransaction = try context.performAndWait {
            (try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: all[1])) as! PersistentHistoryResult).transactions
        }
        #expect(byTransaction.map(\.token) == [all[2].token])
        let byDate = try context.performAndWait {
            (try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)) as! PersistentHistoryResult).transactions
        }
        #expect(byDate.map(\.token) == all.map(\.token))

        // A typed filter stands in for Core Data's fetch request on the transaction entity.
        let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        request.transactionFilter = .authorIsNot("sync")
        let others = try context.performAndWait { (try context.execute(request) as! PersistentHistoryResult).transactions }
        #expect(others.map(\.token) == [all[0].token, all[2].token])
    }

    /// Tokens are kept between launches (Core Data archives them with
    /// `NSKeyedArchiver`): https://developer.apple.com/documentation/coredata/nspersistenthistorytoken
    @Test func tokensRoundTripThroughJSONAndCompare() throws {
        let early = PersistentHistoryToken(storeIdentifier: "A", transactionNumber: 3)
        let late = PersistentHistoryToken(storeIdentifier: "A", transactionNumber: 12)
        #expect(early < late)
        let decoded = try JSONDecoder().decode([PersistentHistoryToken].self, from: JSONEncoder().encode([early, late]))
        #expect(decoded == [early, late])
    }

    /// Fetching after a token older than the kept history fails, as Core
    /// Data's `NSPersistentHistoryTokenExpiredError` (134301), instead of
    /// returning part of what the caller missed.
    @Test(arguments: StoreKind.databases)
    func fetchingFromAPrunedTokenThrowsTokenExpired(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = Self.context(try Self.coordinator(database))
        for title in ["one", "two", "three"] {
            try context.performAndWait {
                HistoryBookmark(context: context).title = title
                try context.save()
            }
        }
        let all = try Self.history(context, after: nil)
        let deleted = try context.performAndWait {
            (try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: all[2].token)) as! PersistentHistoryResult).count
        }
        #expect(deleted == 2)
        #expect(throws: PersistentHistoryError.tokenExpired(all[0].token)) { try Self.history(context, after: all[0].token) }
        #expect(try Self.history(context, after: all[1].token).map(\.token) == [all[2].token])
        #expect(try Self.history(context, after: nil).map(\.token) == [all[2].token])
    }

    /// The loop of "Consuming relevant store changes": fetch the history after
    /// the last token, merge each transaction's `objectIDNotification()`,
    /// keep its token.
    /// https://developer.apple.com/documentation/coredata/consuming-relevant-store-changes
    /// https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/objectidnotification()
    @Test(arguments: StoreKind.databases)
    func theCoreDataHistoryLoopMergesAnotherCoordinatorsSaves(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let writer = Self.context(try Self.coordinator(database), author: "writer")
        let (kept, removed) = try writer.performAndWait {
            let kept = HistoryBookmark(context: writer)
            let removed = HistoryBookmark(context: writer)
            try writer.save()
            return (kept.objectID, removed.objectID)
        }
        let viewCoordinator = try Self.coordinator(database)
        let viewContext = Self.context(viewCoordinator)
        var lastToken = viewCoordinator.currentPersistentHistoryToken(fromStores: nil)
        // The view shows the bookmarks, so merged changes to them are announced.
        let (log, shown) = viewContext.performAndWait {
            (ChangeLog(viewContext), (try? viewContext.fetch(FetchRequest<HistoryBookmark>())) ?? [])
        }
        let added = try writer.performAndWait {
            let added = HistoryBookmark(context: writer)
            added.title = "new"
            (try writer.existingObject(with: kept) as? HistoryBookmark)?.title = "edited"
            writer.delete(try writer.existingObject(with: removed))
            try writer.save()
            return added.objectID
        }

        try viewContext.performAndWait {
            let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
            request.transactionFilter = .authorIsNot("view")
            for transaction in (try viewContext.execute(request) as! PersistentHistoryResult).transactions {
                viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                lastToken = transaction.token
            }
            let merged = log.changes.reduce(into: ObjectIDChanges()) { result, change in
                result.inserted.formUnion(change.inserted.map(\.objectID))
                result.refreshed.formUnion(change.refreshed.map(\.objectID))
                result.deleted.formUnion(change.deleted.map(\.objectID))
            }
            #expect(merged.inserted == [added])
            #expect(merged.refreshed == [kept])
            #expect(merged.deleted == [removed])
            #expect((try viewContext.existingObject(with: kept) as? HistoryBookmark)?.title == "edited")
        }
        #expect(lastToken == viewCoordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(try Self.history(viewContext, after: lastToken).isEmpty, "the loop is caught up")
        withExtendedLifetime(shown) {}
    }

    @Test(arguments: StoreKind.databases)
    func withHistoryOffNothingIsWritten(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let coordinator = try Self.coordinator(database, tracking: false)
        let context = Self.context(coordinator)
        try context.performAndWait {
            HistoryBookmark(context: context).title = "untracked"
            try context.save()
        }
        #expect(try !database.tableNames().contains { $0.hasPrefix("Z_HISTORY") })
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        let identifier = try #require(coordinator.persistentStores.first?.identifier)
        #expect(throws: PersistentHistoryError.trackingNotEnabled(storeIdentifier: identifier)) { try Self.history(context, after: nil) }
    }

    /// Turning history on for an existing store adds its tables; saves from
    /// then on are recorded.
    @Test(arguments: StoreKind.databases)
    func anExistingStoreGainsHistoryWhenOpenedWithTracking(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let before = Self.context(try Self.coordinator(database, tracking: false))
        try before.performAndWait {
            HistoryBookmark(context: before).title = "old"
            try before.save()
        }
        let after = Self.context(try Self.coordinator(database))
        #expect(try Self.history(after, after: nil).isEmpty)
        try after.performAndWait {
            HistoryBookmark(context: after).title = "new"
            try after.save()
        }
        #expect(try Self.history(after, after: nil).count == 1)
        #expect(try database.tableNames().contains("Z_HISTORY_TRANSACTION"))
    }

    @Test func theInMemoryStoreKeepsNoHistory() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [HistoryBookmark.self]))
        let description = PersistentStoreDescription.inMemory
        description.persistentHistoryTracking = true
        try coordinator.addPersistentStore(description)
        let context = Self.context(coordinator)
        #expect(throws: PersistentHistoryError.notSupported(storeType: "InMemory")) { try Self.history(context, after: nil) }
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
    }
}
