// Importing: each feed on its own background context, one save per feed,
// merged into the view context by automaticallyMergesChangesFromParent.
//
// Core Data technique (seed article: interqueue merging): the work happens
// on a private queue; only Sendable values (the parsed feed, the summary)
// cross queues. Find-or-create by guid (Apple's "Implementing Find-or-Create
// Efficiently": one fetch of the feed's items, then a dictionary) updates
// items instead of duplicating them and keeps their read flags; the
// uniqueness constraints catch what find-or-create cannot, two imports of
// one feed at once, and the merge policy (.mergeByPropertyStoreTrump) folds
// the second into the first.
import Coherence
import Foundation

/// What one import did.
public struct ImportSummary: Sendable, Equatable, CustomStringConvertible {
    /// The feed's title.
    public var title: String
    /// Its address (``Server/url``).
    public var address: String
    /// Items new to the store.
    public var added: Int
    /// Items already there whose title, link or date changed.
    public var updated: Int
    /// Items in the feed.
    public var items: Int

    /// One line for the terminal and the page.
    public var description: String {
        "Imported \"\(title)\" from \(address): \(added) new, \(updated) updated, \(items) in the feed"
    }
}

/// Imports feeds into a ``Library``.
public struct FeedImporter: Sendable {
    /// The library imported into.
    public let library: Library

    /// An importer into `library`.
    public init(library: Library) { self.library = library }

    /// Reads, parses and saves the feed `argument` names (a path or an
    /// http(s) URL). Nothing is saved unless the whole feed is.
    /// - Throws: ``FeedError`` naming the file or URL (and line); the store's
    ///   error when the save fails.
    public func importFeed(from argument: String) async throws -> ImportSummary {
        let source = try FeedSource(argument)
        let data = try await source.load()
        let feed = try FeedParser.parse(data, source: source.address)
        return try await save(feed, address: source.address)
    }

    /// Saves a parsed feed as the server at `address` and its items, in one
    /// save on a new background context.
    public func save(_ feed: ParsedFeed, address: String) async throws -> ImportSummary {
        let context = library.backgroundContext(author: "import")
        return try await context.perform {
            do {
                let summary = try Self.apply(feed, address: address, in: context)
                try context.save()
                return summary
            } catch {
                context.rollback()
                throw error
            }
        }
    }

    /// Finds or creates the server and each item, changing only what differs.
    /// - Complexity: O(items in the feed + items of the server in the store).
    static func apply(_ feed: ParsedFeed, address: String, in context: ManagedObjectContext) throws -> ImportSummary {
        // The server.
        let server = try context.fetch(FetchRequest<Server>(predicate: #Predicate { $0.url == address })).first
            ?? Server(context: context)
        update(server, \.url, to: address)
        update(server, \.title, to: feed.title.isEmpty ? address : feed.title)
        update(server, \.link, to: feed.link)

        // Its items, by guid.
        let stored = try context.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.feedURL == address }))
        var items = Dictionary(stored.map { ($0.guid, $0) }, uniquingKeysWith: { first, _ in first })
        var summary = ImportSummary(title: server.title, address: address, added: 0, updated: 0, items: feed.items.count)
        for parsed in feed.items {
            let item: FeedItem
            if let existing = items[parsed.guid] {
                item = existing
                guard existing.title != parsed.title || existing.link != parsed.link || existing.published != parsed.published
                else { continue }
                summary.updated += 1
            } else {
                item = FeedItem(context: context)
                item.guid = parsed.guid
                item.feedURL = address
                item.server = server
                items[parsed.guid] = item
                summary.added += 1
            }
            update(item, \.title, to: parsed.title)
            update(item, \.link, to: parsed.link)
            update(item, \.published, to: parsed.published)
        }
        return summary
    }

    /// Sets a property only when the value differs, so that an unchanged
    /// feed saves nothing and announces nothing.
    private static func update<Object: ManagedObject, Value: Equatable>(
        _ object: Object, _ keyPath: ReferenceWritableKeyPath<Object, Value>, to value: Value
    ) {
        if object[keyPath: keyPath] != value { object[keyPath: keyPath] = value }
    }
}
