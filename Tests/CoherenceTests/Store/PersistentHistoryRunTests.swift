@testable import Coherence
import Foundation
import Testing

// A change row of the SQL stores' history holds a run of consecutive keys of
// one entity and kind; these tests check that runs never merge changes whose
// details differ.
extension PersistentHistoryTests {
    /// Changes to consecutive rows share a change row only when they are
    /// alike: updates of different properties, and deletions each with its
    /// tombstone, read back one by one, in order.
    @Test(arguments: StoreKind.databases)
    func changesOfConsecutiveRowsKeepTheirOwnDetails(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let context = Self.context(try Self.coordinator(database))
        let bookmarks = try Self.saveFourBookmarks(in: context)
        let inserted = try #require(try Self.history(context, after: nil).last)
        let keys = inserted.changes?.map(\.changedObjectID.key) ?? []
        #expect(Set(inserted.changes?.map(\.changedObjectID) ?? []) == Set(bookmarks.map(\.objectID)) && keys == keys.sorted(),
                "one change per object, in key order")
        #expect(Set(inserted.changes?.map(\.changeID) ?? []).count == 4, "each change has its own number")

        try context.performAndWait {
            bookmarks[0].title = "a"
            bookmarks[1].visits = 1
            bookmarks[2].title = "c"
            bookmarks[3].title = "d"
            try context.save()
        }
        let updated = try #require(try Self.history(context, after: inserted.token).last)
        let byObject = Dictionary(uniqueKeysWithValues: (updated.changes ?? []).map { ($0.changedObjectID, $0.updatedProperties) })
        #expect(byObject == [bookmarks[0].objectID: ["title"], bookmarks[1].objectID: ["visits"],
                             bookmarks[2].objectID: ["title"], bookmarks[3].objectID: ["title"]])

        try context.performAndWait {
            for bookmark in bookmarks { context.delete(bookmark) }
            try context.save()
        }
        let deleted = try #require(try Self.history(context, after: updated.token).last)
        let tombstones = Dictionary(uniqueKeysWithValues: (deleted.changes ?? []).map { ($0.changedObjectID, $0.tombstone) })
        #expect(tombstones == Dictionary(uniqueKeysWithValues: bookmarks.enumerated().map {
            ($1.objectID, ["remoteID": StoreValue.string("r\($0 + 1)")] as [String: StoreValue]?)
        }))
    }
}

extension PersistentHistoryTests {
    /// PostgreSQL numbers changes from a sequence that other processes take
    /// from too: a run of changes holds consecutive numbers only, so that
    /// the numbers a run stands for are never another transaction's. Here the
    /// sequence skips (as when others take numbers in between): four
    /// inserted rows of consecutive keys read back as four changes with the
    /// sequence's numbers, none shared.
    @Test(.enabled(if: PostgresTestServer.shouldRun))
    func runsEndWhereChangeNumbersAreNotConsecutive() throws {
        let database = try TestDatabase.new(.postgres)
        let context = Self.context(try Self.coordinator(database))
        try database.execute("ALTER SEQUENCE \"Z_HISTORY_CHANGE_Z_PK_seq\" INCREMENT BY 3")
        let bookmarks = try Self.saveFourBookmarks(in: context)
        let inserted = try #require(try Self.history(context, after: nil).last)
        #expect(Set(inserted.changes?.map(\.changedObjectID) ?? []) == Set(bookmarks.map(\.objectID)))
        let numbers = (inserted.changes ?? []).map(\.changeID).sorted()
        #expect(numbers.count == 4 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 - $0 == 3 },
                "each change keeps the sequence's own number: \(numbers)")
    }

    /// Four new bookmarks of consecutive keys, saved in one transaction.
    static func saveFourBookmarks(in context: ManagedObjectContext) throws -> [HistoryBookmark] {
        try context.performAndWait {
            let bookmarks = (1...4).map { number in
                let bookmark = HistoryBookmark(context: context)
                bookmark.remoteID = "r\(number)"
                return bookmark
            }
            try context.save()
            return bookmarks
        }
    }
}
