import Coherence
import Foundation

/// A feed server. Its unread count is derived: Coherence keeps it equal to
/// the number of its unread items at every change, stored in its row.
final class Server: ManagedObject {
    @Attribute var name = ""
    @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
    var feedItems: Set<FeedItem>
    @Derived(count: \Server.feedItems, where: #Predicate<FeedItem> { $0.read == false })
    var unreadCount: Int
}

/// One item of a feed.
final class FeedItem: ManagedObject {
    @Attribute var title = ""
    @Attribute var read = false
    @Relationship var server: Server?
    /// The section of the reader's list.
    @Derived(\FeedItem.server, \Server.name) var serverName: String?
}
