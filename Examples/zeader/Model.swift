import Coherence

/// A feed server. It keeps `unreadCount` current the way the seed article
/// does: it watches its context's didChangeObjects notifications and recounts
/// when one of its items (or its item list) changed.
final class Server: ManagedObject {
    @Attribute var name = ""
    @Attribute var unreadCount = 0
    @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
    var feedItems: Set<FeedItem>
    private var observation: ContextObservation?

    override func awakeFromInsert() { startObserving() }
    override func awakeFromFetch() { startObserving() }
    override func willTurnIntoFault() { observation = nil }

    private func startObserving() {
        observation = managedObjectContext?.addObserver(for: ObjectsDidChange.self) { [unowned self] change in
            let changed = change.inserted.union(change.updated).union(change.deleted)
            guard change.updated.contains(self)
                || changed.contains(where: { ($0 as? FeedItem)?.server === self }) else { return }
            let count = feedItems.filter { !$0.read }.count
            if count != unreadCount { unreadCount = count }
        }
    }
}

/// One item of a feed.
final class FeedItem: ManagedObject {
    @Attribute var title = ""
    @Attribute var read = false
    @Relationship var server: Server?
}
