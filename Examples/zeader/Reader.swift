import Coherence
import Foundation

/// The reader's operations on one context, printing what they change: every
/// didChangeObjects notification, and what a fetched results controller over
/// the items reports.
final class Reader: FetchedResultsControllerDelegate {
    let context: ManagedObjectContext
    private var observation: (any NSObjectProtocol)?
    private var items: FetchedResultsController<FeedItem>?

    init(context: ManagedObjectContext) throws {
        self.context = context
        // Core Data style: observe the notification on NotificationCenter.
        observation = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { note in
            guard let change = ManagedObjectContext.ObjectsDidChangeMessage.makeMessage(note) else { return }
            var parts: [String] = []
            if !change.inserted.isEmpty { parts.append("inserted [\(Reader.describe(change.inserted))]") }
            if !change.updated.isEmpty { parts.append("updated [\(Reader.describe(change.updated))]") }
            if !change.deleted.isEmpty { parts.append("deleted [\(Reader.describe(change.deleted))]") }
            print("  didChangeObjects: " + parts.joined(separator: "; "))
        }
        let controller = FetchedResultsController(
            fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.serverName), SortDescriptor(\.title)]),
            managedObjectContext: context, sectionNameKeyPath: \.sectionName)
        try controller.performFetch()
        controller.delegate = self
        items = controller
    }

    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        print("  list: \(type) section \(sectionInfo.name) at \(sectionIndex)")
    }

    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        let title = (anObject as? FeedItem)?.title ?? "?"
        let place = [indexPath, newIndexPath].compactMap { $0.map { "[\($0.sectionIndex), \($0.itemIndex)]" } }.joined(separator: " → ")
        print("  list: \(type) \(title) \(place)")
    }

    deinit {
        if let observation { NotificationCenter.default.removeObserver(observation) }
    }

    /// A short, stable description of a set of objects.
    static func describe(_ objects: Set<ManagedObject>) -> String {
        objects.map { object -> String in
            switch object {
            case let server as Server: "server \(server.name)"
            case let item as FeedItem: "item \(item.title)"
            default: "\(object)"
            }
        }.sorted().joined(separator: ", ")
    }

    func servers() throws -> [Server] {
        try context.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.name)]))
    }

    func item(titled title: String) throws -> FeedItem {
        guard let item = try context.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.title == title })).first else {
            throw ReaderError.noSuchItem(title)
        }
        return item
    }

    func add(title: String, to serverName: String) throws {
        let server = try context.fetch(FetchRequest<Server>(predicate: #Predicate { $0.name == serverName })).first
            ?? { let server = Server(context: context); server.name = serverName; return server }()
        let item = FeedItem(context: context)
        item.title = title
        item.server = server
    }

    func printFeeds() throws {
        for server in try servers() {
            print("  \(server.name): \(server.unreadCount) unread of \(server.feedItems.count)")
        }
    }

    /// Runs `body`, announces its changes, and prints the counts.
    func step(_ title: String, _ body: () throws -> Void) throws {
        print(title)
        try body()
        context.processPendingChanges()
        try printFeeds()
    }

    /// The scripted session: two servers, some reading, a deletion and a move.
    func demo() throws {
        var items: [FeedItem] = []
        let suffix = (try servers().count / 2) + 1
        let names = ["objc.io", "swift.org"].map { suffix == 1 ? $0 : "\($0) (\(suffix))" }
        try step("Add two servers with three items each") {
            for name in names {
                let server = Server(context: context)
                server.name = name
                for number in 1...3 {
                    let item = FeedItem(context: context)
                    item.title = "\(name) #\(number)"
                    item.server = server
                    items.append(item)
                }
            }
        }
        try step("Save") { try context.save() }
        try step("Mark \(items[0].title) read") { items[0].read = true }
        try step("Mark \(items[4].title) and \(items[5].title) read") {
            items[4].read = true
            items[5].read = true
        }
        try step("Delete \(items[1].title)") { context.delete(items[1]) }
        try step("Move \(items[3].title) to \(names[0])") { items[3].server = items[0].server }
        try step("Save") { try context.save() }
    }
}

extension FeedItem {
    /// The list's section: the server's name.
    var sectionName: String { serverName ?? "(no server)" }
}

enum ReaderError: Error, CustomStringConvertible {
    case noSuchItem(String)

    var description: String {
        switch self {
        case .noSuchItem(let title): "no item is titled \"\(title)\""
        }
    }
}
