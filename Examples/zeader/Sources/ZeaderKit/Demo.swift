// `zeader demo`: a scripted walk through the seed articles in the terminal,
// on a store in memory, printing every didChangeObjects of the view context
// and every change its fetched results controller reports.
//
// Core Data techniques, one per step: a background import merged into the
// view context (interqueue merging); a change on the view context and the
// derived unread count following it; a child context whose save reaches its
// parent (nested contexts and their double notification: the child's
// didSave, then the parent's didChangeObjects); a batch update merged by
// hand; the save.
import Coherence
import Foundation

/// The scripted session.
public final class Demo: FetchedResultsControllerDelegate {
    private let library: Library
    private let context: ManagedObjectContext
    private var observations: [any NSObjectProtocol] = []
    private var list: FetchedResultsController<FeedItem>?

    /// A demo on a new store in memory.
    public init() throws {
        library = try Library(description: .inMemory)
        context = library.viewContext
    }

    /// Runs every step, printing as it goes.
    @MainActor
    public func run(feeds: URL) async throws {
        try context.performAndWait { try self.startWatching() }
        let importer = FeedImporter(library: library)

        say("1. Import \(feeds.lastPathComponent)/coherence-blog.xml on a background context")
        let summary = try await importer.importFeed(from: feeds.appendingPathComponent("coherence-blog.xml").path)
        await settle()
        say("   \(summary)")
        try printCounts()

        let first = try context.fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.published, order: .reverse)]))[0]
        say("2. Mark \"\(first.title)\" read on the view context")
        first.read = true
        context.processPendingChanges()
        try printCounts()

        say("3. Retitle it in a child context and save the child")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = context
        child.name = "child"
        let id = first.objectID
        observations.append(NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSave, object: child, queue: nil) { _ in say("   child didSave") })
        try await child.perform {
            (try child.existingObject(with: id) as! FeedItem).title += " (edited)"
            try child.save()
        }
        await settle()

        say("4. Mark the whole feed read with a batch update, merged by hand")
        let server = try context.fetch(FetchRequest<Server>())[0]
        let changed = try await library.markAllRead(server: server.objectID)
        await settle()
        say("   \(changed) items changed in the store")
        try printCounts()

        say("5. Save the view context")
        try context.save()
        try printCounts()
    }

    /// The observers: didChangeObjects in Core Data's style, and a fetched
    /// results controller over every item.
    private func startWatching() throws {
        observations.append(NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
        ) { note in
            guard let change = ManagedObjectContext.ObjectsDidChangeMessage.makeMessage(note) else { return }
            var parts: [String] = []
            if !change.inserted.isEmpty { parts.append("inserted \(change.inserted.count)") }
            if !change.updated.isEmpty { parts.append("updated [\(Demo.describe(change.updated))]") }
            if !change.deleted.isEmpty { parts.append("deleted \(change.deleted.count)") }
            if !change.refreshed.isEmpty { parts.append("refreshed [\(Demo.describe(change.refreshed))]") }
            say("   didChangeObjects: " + parts.joined(separator: "; "))
        })
        let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.feedURL), SortDescriptor(\.published, order: .reverse)])
        let list = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "feedURL")
        try list.performFetch()
        list.delegate = self
        self.list = list
    }

    public func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        let title = (anObject as? FeedItem)?.title ?? "?"
        let place = [indexPath, newIndexPath].compactMap { $0.map { "[\($0.sectionIndex), \($0.itemIndex)]" } }
        say("   list: \(type) \"\(title)\" \(place.joined(separator: " → "))")
    }

    /// Lets the view context's queue deliver what other queues merged into it.
    @MainActor
    private func settle() async {
        await context.perform {}
    }

    private func printCounts() throws {
        for server in try context.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.title)])) {
            say("   \(server.title): \(server.unreadCount) unread of \(server.feedItems.count)")
        }
    }

    /// A short, stable description of a set of objects.
    static func describe(_ objects: Set<ManagedObject>) -> String {
        objects.map { object -> String in
            switch object {
            case let server as Server: "server \"\(server.title)\" (\(server.unreadCount) unread)"
            case let item as FeedItem: "item \"\(item.title)\"\(item.read ? " read" : "")"
            default: "\(object)"
            }
        }.sorted().joined(separator: ", ")
    }

    deinit {
        for observation in observations { NotificationCenter.default.removeObserver(observation) }
    }
}

/// Writes a line to standard output at once (no buffering, so that a
/// program reading zeader's output through a pipe sees each line as it
/// happens).
public func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
