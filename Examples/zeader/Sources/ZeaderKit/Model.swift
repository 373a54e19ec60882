// The model: the seed articles' two entities, a feed (Server) and its items.
//
// Core Data technique: a derived attribute (the unread count the articles keep
// current by hand with observers) and uniqueness constraints, which make a
// re-import update rows instead of adding them. Core Data's constraints name
// attributes only, so an item keeps its feed's address beside its guid.
import Coherence
import Foundation

/// A feed: where it comes from, its title, and its items. Its unread count
/// is derived: Coherence keeps it equal to the number of unread items at
/// every change, stored in its row.
public final class Server: ManagedObject {
    /// One server per feed address.
    override public class var uniquenessConstraints: [[String]] { [["url"]] }

    /// Where the feed is read from: a file path or an http(s) URL.
    @Attribute public var url = ""
    /// The feed's title.
    @Attribute public var title = ""
    /// The feed's web site, if it names one.
    @Attribute public var link: String?
    /// The feed's items.
    @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
    public var feedItems: Set<FeedItem>
    /// How many of its items are unread.
    @Derived(count: \Server.feedItems, where: #Predicate<FeedItem> { $0.read == false })
    public var unreadCount: Int
}

/// One item of a feed.
public final class FeedItem: ManagedObject {
    /// One item per guid in each feed.
    override public class var uniquenessConstraints: [[String]] { [["feedURL", "guid"]] }

    /// The item's identity in its feed: RSS's `guid`, Atom's `id` (or the
    /// link, or the title, when a feed gives none).
    @Attribute public var guid = ""
    /// Its feed's ``Server/url``, part of the uniqueness constraint.
    @Attribute public var feedURL = ""
    /// The item's title.
    @Attribute public var title = ""
    /// The article's address.
    @Attribute public var link: String?
    /// When it was published (or last updated, when the feed says only that).
    @Attribute public var published = Date(timeIntervalSince1970: 0)
    /// Whether the reader has read it.
    @Attribute public var read = false
    /// Its feed.
    @Relationship public var server: Server?
}

extension ManagedObjectModel {
    /// zeader's model: ``Server`` and ``FeedItem``.
    public static func zeader() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [Server.self, FeedItem.self])
    }
}
