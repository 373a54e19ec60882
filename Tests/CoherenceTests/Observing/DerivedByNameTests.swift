import Coherence
import Foundation
import Testing

/// `Feed`'s derived attributes declared by name, with format predicates:
/// the spelling a model file's classes use, here in a Swift model.
final class NamedFeed: ManagedObject {
    @Relationship(inverse: \NamedEntry.feed, deleteRule: .cascade) var entries: Set<NamedEntry>
    @Relationship(inverse: \NamedPublisher.feeds) var publisher: NamedPublisher?
    @Derived(count: "entries", where: "read == NO") var unreadCount: Int
    @Derived(sum: "entries", of: "score", where: "read == NO AND title BEGINSWITH 'A'") var unreadScore: Double
    @Derived(min: "entries", of: "words") var shortest: Int?
    @Derived(max: "entries", of: "published") var latest: Date?
    @Derived(average: "entries", of: "words") var averageWords: Double?
    @Derived("publisher", "name") var publisherName: String?
}

final class NamedEntry: ManagedObject {
    @Attribute var title = ""
    @Attribute var read = false
    @Attribute var words = 0
    @Attribute var score = 0.0
    @Attribute var published = Date(timeIntervalSince1970: 0)
    @Relationship var feed: NamedFeed?
}

final class NamedPublisher: ManagedObject {
    @Attribute var name = ""
    @Relationship var feeds: Set<NamedFeed>
}

/// A filter that follows a relationship: refused, since the count follows
/// changes of the children's own attributes only.
final class RelationshipFilterFeed: ManagedObject {
    @Attribute var title = ""
    @Relationship(inverse: \RelationshipFilterEntry.feed, deleteRule: .cascade) var entries: Set<RelationshipFilterEntry>
    @Derived(count: "entries", where: "read == NO AND feed != nil") var unreadCount: Int
}

final class RelationshipFilterEntry: ManagedObject {
    @Attribute var read = false
    @Relationship var feed: RelationshipFilterFeed?
}

/// Derived attributes by name compute what their key-path spellings do:
/// in the context at every change, and in the store for batch requests,
/// where the format predicate is translated to SQL (on PostgreSQL,
/// `BEGINSWITH` is evaluated on objects: the results are the same).
@Suite("@Derived by name")
struct DerivedByNameTests {
    static func expected(_ feed: NamedFeed) -> [String] {
        let entries = feed.entries.filter { !$0.isDeleted }
        let unread = entries.filter { !$0.read }
        let words = entries.map(\.words)
        return [
            "\(unread.count)", "\(unread.filter { $0.title.hasPrefix("A") }.map(\.score).reduce(0, +))",
            "\(words.min().map(String.init) ?? "nil")", "\(entries.map(\.published).max().map { "\($0)" } ?? "nil")",
            "\(words.isEmpty ? "nil" : "\(Double(words.reduce(0, +)) / Double(words.count))")", feed.publisher?.name ?? "nil",
        ]
    }

    static func actual(_ feed: NamedFeed) -> [String] {
        [
            "\(feed.unreadCount)", "\(feed.unreadScore)", "\(feed.shortest.map(String.init) ?? "nil")",
            "\(feed.latest.map { "\($0)" } ?? "nil")", "\(feed.averageWords.map { "\($0)" } ?? "nil")", feed.publisherName ?? "nil",
        ]
    }

    /// The filter reads the child's own attributes, by names the child has.
    @Test func filtersReadTheChildsOwnAttributes() {
        let error = #expect(throws: ModelError.self) {
            try ManagedObjectModel(entities: [RelationshipFilterFeed.self, RelationshipFilterEntry.self])
        }
        guard case .invalidDerivation(let entity, let property, let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(entity == "RelationshipFilterFeed" && property == "unreadCount")
        #expect(reason.contains("reads feed, which is not an attribute of RelationshipFilterEntry"), "\(reason)")
    }

    @Test(arguments: StoreKind.allCases) func namesComputeWhatKeyPathsDo(store: StoreKind) throws {
        let model = try ManagedObjectModel(entities: [NamedFeed.self, NamedEntry.self, NamedPublisher.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait { () throws in
            let publisher = NamedPublisher(context: context)
            publisher.name = "Press"
            let feed = NamedFeed(context: context)
            feed.publisher = publisher
            for (index, title) in ["Alpha", "Beta", "Apex"].enumerated() {
                let entry = NamedEntry(context: context)
                entry.title = title
                entry.words = (index + 1) * 10
                entry.score = Double(index) + 0.5
                entry.published = Date(timeIntervalSince1970: Double(index) * 1000)
                entry.feed = feed
            }
            context.processPendingChanges()
            #expect(feed.unreadCount == 3 && feed.unreadScore == 3.0)
            #expect(Self.actual(feed) == Self.expected(feed))
            try context.save()

            let first = try #require(feed.entries.first { $0.title == "Alpha" })
            first.read = true
            publisher.name = "Press 2"
            context.processPendingChanges()
            #expect(feed.unreadCount == 2 && feed.unreadScore == 2.5 && feed.publisherName == "Press 2")
            #expect(Self.actual(feed) == Self.expected(feed))
            try context.save()

            // The store recomputes the stored values.
            let request = BatchUpdateRequest<NamedEntry>(predicate: Predicate(format: "title == 'Apex'"), propertiesToUpdate: ["read": true])
            let updated = try context.execute(request) as! BatchUpdateResult
            #expect(updated.changes.updated.contains(feed.objectID), "the feed's stored count changed too")
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: updated.changes, into: [context])
            #expect(feed.unreadCount == 1 && feed.unreadScore == 0)
            #expect(Self.actual(feed) == Self.expected(feed))
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try reader.performAndWait {
            let feeds = try reader.fetch(FetchRequest<NamedFeed>(predicate: Predicate(format: "unreadCount == 1")))
            #expect(feeds.count == 1)
            let feed = try #require(feeds.first)
            #expect(Self.actual(feed) == Self.expected(feed), "the stored values agree")
        }
    }
}
