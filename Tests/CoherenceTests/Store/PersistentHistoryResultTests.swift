import Coherence
import Foundation
import Testing

/// History results and tokens as Core Data code reads them: `result as!
/// Bool` after deleting history, the changes-only result type, and the
/// token a didSave carries.
@Suite("Persistent history results and save tokens")
struct PersistentHistoryResultTests {
    private func saveBookmarks(_ titles: [String], in context: ManagedObjectContext) throws {
        try context.performAndWait {
            for title in titles {
                let bookmark = HistoryBookmark(context: context)
                bookmark.title = title
                bookmark.remoteID = title
                try context.save()
            }
        }
    }

    /// Apple: `NSPersistentHistoryResultType.statusOnly` is a deletion's
    /// default, and the result "contains a Boolean value"; `.count` gives
    /// the number deleted.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistoryresulttype>
    @Test(arguments: StoreKind.databases) func deletingHistoryReturnsAStatusByDefault(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = PersistentHistoryTests.context(try PersistentHistoryTests.coordinator(database))
        try saveBookmarks(["a", "b", "c"], in: context)
        try context.performAndWait {
            let all = (try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)) as! PersistentHistoryResult).result as! [PersistentHistoryTransaction]
            #expect(all.count == 3)

            let delete = PersistentHistoryChangeRequest.deleteHistory(before: all[1].token)
            #expect(delete.resultType == .statusOnly)
            let deleted = (try context.execute(delete) as! PersistentHistoryResult)
            #expect(deleted.result as! Bool == true)

            let counted = PersistentHistoryChangeRequest.deleteHistory(before: all[2].token)
            counted.resultType = .count
            #expect((try context.execute(counted) as! PersistentHistoryResult).result as! Int == 1)
        }
    }

    /// Apple: `.changesOnly` returns the changes; `.objectIDs` the IDs of
    /// the changed objects.
    @Test(arguments: StoreKind.databases) func changesOnlyAndObjectIDsResults(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = PersistentHistoryTests.context(try PersistentHistoryTests.coordinator(database))
        try saveBookmarks(["a", "b"], in: context)
        try context.performAndWait {
            let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            #expect(request.resultType == .transactionsAndChanges)
            request.resultType = .changesOnly
            let changes = (try context.execute(request) as! PersistentHistoryResult).result as! [PersistentHistoryChange]
            #expect(changes.map(\.changeType) == [.insert, .insert])

            request.resultType = .objectIDs
            let ids = (try context.execute(request) as! PersistentHistoryResult).result as! [ManagedObjectID]
            #expect(ids == changes.map(\.changedObjectID))
        }
    }

    /// Core Data's didSave carries the save's persistent history token
    /// (`NSPersistentHistoryTokenKey`, `newChangeToken`), and so do the
    /// typed save messages (`historyToken`) when the store keeps history.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsavemessage/historytoken>
    @Test(arguments: StoreKind.databases) func didSaveCarriesTheSavesHistoryToken(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let coordinator = try PersistentHistoryTests.coordinator(database)
        let context = PersistentHistoryTests.context(coordinator)
        let saved = Locked<[Notification]>([])
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            saved.withLock { $0.append(note) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let idsSaved = Locked<[Notification]>([])
        let idsToken = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: context, queue: nil) { note in
            idsSaved.withLock { $0.append(note) }
        }
        defer { NotificationCenter.default.removeObserver(idsToken) }

        try saveBookmarks(["a"], in: context)
        let current = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        let note = try #require(saved.withLock { $0.last })
        #expect(note.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken == current)
        #expect(note.userInfo?["newChangeToken"] as? PersistentHistoryToken == current)
        #expect(ManagedObjectContext.DidSaveMessage.makeMessage(note)?.historyToken == current)
        let idsNote = try #require(idsSaved.withLock { $0.last })
        #expect(ManagedObjectContext.DidSaveObjectIDsMessage.makeMessage(idsNote)?.historyToken == current)
        #expect(ManagedObjectContext.DidSaveObjectIDsAsyncMessage.makeMessage(idsNote)?.historyToken == current)

        // Without history there is no token.
        let untracked = PersistentHistoryTests.context(try PersistentHistoryTests.coordinator(try TestDatabase.new(kind), tracking: false))
        let plain = Locked<Notification?>(nil)
        let plainToken = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: untracked, queue: nil) { note in
            plain.withLock { $0 = note }
        }
        defer { NotificationCenter.default.removeObserver(plainToken) }
        try saveBookmarks(["b"], in: untracked)
        let plainNote = try #require(plain.withLock { $0 })
        #expect(plainNote.userInfo?[NSPersistentHistoryTokenKey] == nil)
        #expect(ManagedObjectContext.DidSaveMessage.makeMessage(plainNote)?.historyToken == nil)
    }
}
