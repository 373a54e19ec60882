// The live stream: two fetched results controllers on the view context (the
// servers, and every item sectioned by feed) report their changes; each
// batch of changes becomes one event for every open page. A context observer
// on Server keeps the page's total unread count.
//
// Core Data technique (seed articles: the fetched results controller driving
// a table, and the parent watching its child): the controllers follow the
// view context whatever changed it (a click, a background import merged
// from the parent, a batch update merged by hand, another process's commit
// merged from persistent history), because every one of those posts the
// view context's didChangeObjects. Nothing here knows where a change came
// from.
import Coherence
import Foundation

/// Turns the view context's changes into page events. Create it, use it and
/// release it on the view context's queue.
public final class LiveStream: FetchedResultsControllerDelegate {
    let context: ManagedObjectContext
    let broadcaster: Broadcaster
    private let servers: FetchedResultsController<Server>
    private let items: FetchedResultsController<FeedItem>
    private var totalObservation: ContextObservation?
    private var pending = PendingChanges()
    private let log: @Sendable (String) -> Void

    /// Starts following `context` (the view context), sending to
    /// `broadcaster`, and calling `log` with a line per event sent.
    public init(context: ManagedObjectContext, broadcaster: Broadcaster,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.context = context
        self.broadcaster = broadcaster
        self.log = log
        servers = FetchedResultsController(
            fetchRequest: Self.serversRequest(), managedObjectContext: context, sectionNameKeyPath: nil)
        items = FetchedResultsController(
            fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.feedURL)] + Self.itemOrder),
            managedObjectContext: context, sectionNameKeyPath: "feedURL")
        try servers.performFetch()
        try items.performFetch()
        servers.delegate = self
        items.delegate = self
        totalObservation = context.observe(Server.self) { [weak self] _ in self?.sendTotal() }
    }

    /// The servers in the page's order: by title.
    static func serversRequest() -> FetchRequest<Server> {
        FetchRequest<Server>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.url)])
    }

    /// A feed's items in the page's order: newest first, then by title and
    /// guid, so that every page shows the same order.
    static let itemOrder: [SortDescriptor<FeedItem>] = [
        SortDescriptor(\.published, order: .reverse), SortDescriptor(\.title), SortDescriptor(\.guid),
    ]

    // MARK: The controllers' changes

    public func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard let object = anObject as? ManagedObject else { return }
        let id = Page.domID(object)
        if controller === servers {
            pending.servers.record(type, id: id, newIndex: newIndexPath?.itemIndex) {
                Page.serverRow(object as! Server)
            }
        } else if type == .delete {
            // A deleted item's values may be gone; its row goes by ID.
            pending.removedItems.append(id)
        } else {
            let item = object as! FeedItem
            pending.items[item.feedURL, default: ListChange()].record(type, id: id, newIndex: newIndexPath?.itemIndex) {
                Page.itemRow(item)
            }
            // A moved row leaves whichever list shows it.
            if type == .move { pending.removedItems.append(id) }
        }
    }

    public func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        if controller === servers {
            let change = pending.servers
            pending.servers = ListChange()
            guard !change.isEmpty else { return }
            send(ServersEvent(change.sorted()), line: "servers \(change.summary)")
        } else {
            let (feeds, removed) = (pending.items.mapValues { $0.sorted() }, pending.removedItems)
            (pending.items, pending.removedItems) = ([:], [])
            guard !feeds.isEmpty || !removed.isEmpty else { return }
            let parts = feeds.values.map(\.summary) + (removed.isEmpty ? [] : ["-\(removed.count)"])
            send(ItemsEvent(remove: removed, feeds: feeds), line: "items \(parts.joined(separator: " "))")
        }
    }

    private func sendTotal() {
        guard let servers = try? context.fetch(Self.serversRequest()) else { return }
        send(TotalEvent(unread: servers.reduce(0) { $0 + $1.unreadCount }), line: nil)
    }

    private func send(_ event: some Encodable, line: String?) {
        broadcaster.send(Self.json(event))
        if let line { log("pushed \(line) to \(broadcaster.count) page(s)") }
    }

    // MARK: Pages

    /// A new page's subscription, starting with a snapshot of the servers
    /// and the items of `selectedID` (or of the first server). Call on the
    /// view context's queue, so that no change falls between the snapshot
    /// and the subscription.
    public static func subscribe(in context: ManagedObjectContext, broadcaster: Broadcaster,
                                 selected selectedID: ManagedObjectID?) throws -> AsyncStream<String> {
        let (servers, selected, items) = try contents(in: context, selected: selectedID)
        let snapshot = SnapshotEvent(
            servers: servers.map { Page.serverRow($0) }.joined(), items: items.map(Page.itemRow).joined(),
            feed: selected?.url ?? "", title: selected?.title ?? "No feed yet", selected: selected.map(Page.domID) ?? "",
            unread: servers.reduce(0) { $0 + $1.unreadCount })
        return broadcaster.subscribe(first: json(snapshot))
    }

    /// The whole page for `selectedID` (or the first server). Call on the view
    /// context's queue.
    public static func page(in context: ManagedObjectContext, selected selectedID: ManagedObjectID?) throws -> String {
        let (servers, selected, items) = try contents(in: context, selected: selectedID)
        return Page.document(servers: servers, selected: selected, items: items)
    }

    private static func contents(in context: ManagedObjectContext, selected selectedID: ManagedObjectID?) throws
        -> (servers: [Server], selected: Server?, items: [FeedItem]) {
        let servers = try context.fetch(serversRequest())
        let selected = servers.first { $0.objectID == selectedID } ?? servers.first
        guard let address = selected?.url else { return (servers, nil, []) }
        let items = try context.fetch(FetchRequest<FeedItem>(
            predicate: #Predicate { $0.feedURL == address },
            sortBy: itemOrder))
        return (servers, selected, items)
    }

    static func json(_ event: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(event)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
