import Coherence
import Foundation

/// A feed whose counters are derived from its entries.
final class Feed: ManagedObject {
    @Attribute var title = ""
    @Relationship(inverse: \Entry.feed, deleteRule: .cascade) var entries: Set<Entry>
    @Relationship(inverse: \Publisher.feeds) var publisher: Publisher?
    @Derived(count: \Feed.entries, where: #Predicate<Entry> { $0.read == false }) var unreadCount: Int
    @Derived(count: \Feed.entries) var entryCount: Int
    @Derived(sum: \Feed.entries, of: \Entry.words) var totalWords: Int
    @Derived(sum: \Feed.entries, of: \Entry.score, where: #Predicate<Entry> { $0.read == false }) var unreadScore: Double
    @Derived(min: \Feed.entries, of: \Entry.words) var shortest: Int?
    @Derived(max: \Feed.entries, of: \Entry.published) var latest: Date?
    @Derived(average: \Feed.entries, of: \Entry.words) var averageWords: Double?
    @Derived(\Feed.publisher, \Publisher.name) var publisherName: String?
}

final class Entry: ManagedObject {
    @Attribute var title = ""
    @Attribute var read = false
    @Attribute var words = 0
    @Attribute var score = 0.0
    @Attribute var published = Date(timeIntervalSince1970: 0)
    @Relationship var feed: Feed?
}

final class Publisher: ManagedObject {
    @Attribute var name = ""
    @Relationship var feeds: Set<Feed>
}

enum DerivedStack {
    static func context(_ store: StoreKind = .inMemory) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel(entities: [Feed.self, Entry.self, Publisher.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store.makeDescription())
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    /// Every derived value of `feed`, recomputed from its entries by hand.
    static func expected(_ feed: Feed) -> [String: String] {
        let entries = feed.entries.filter { !$0.isDeleted }
        let unread = entries.filter { !$0.read }
        let words = entries.map(\.words)
        return [
            "unreadCount": "\(unread.count)",
            "entryCount": "\(entries.count)",
            "totalWords": "\(words.reduce(0, +))",
            "unreadScore": "\(unread.map(\.score).reduce(0, +))",
            "shortest": "\(words.min().map(String.init) ?? "nil")",
            "latest": "\(entries.map(\.published).max().map { "\($0)" } ?? "nil")",
            "averageWords": "\(words.isEmpty ? "nil" : "\(Double(words.reduce(0, +)) / Double(words.count))")",
            "publisherName": "\(feed.publisher?.name ?? "nil")",
        ]
    }

    /// The derived values as the feed holds them.
    static func actual(_ feed: Feed) -> [String: String] {
        [
            "unreadCount": "\(feed.unreadCount)",
            "entryCount": "\(feed.entryCount)",
            "totalWords": "\(feed.totalWords)",
            "unreadScore": "\(feed.unreadScore)",
            "shortest": "\(feed.shortest.map(String.init) ?? "nil")",
            "latest": "\(feed.latest.map { "\($0)" } ?? "nil")",
            "averageWords": "\(feed.averageWords.map { "\($0)" } ?? "nil")",
            "publisherName": "\(feed.publisherName ?? "nil")",
        ]
    }
}
