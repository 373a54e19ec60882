import Benchmark
import Coherence
import Foundation
import Workloads

/// A server whose unread count is a derived attribute.
final class Server: ManagedObject {
    @Relationship(inverse: \FeedItem.server, deleteRule: .cascade) var feedItems: Set<FeedItem>
    @Derived(count: \Server.feedItems, where: #Predicate<FeedItem> { $0.read == false }) var unreadCount: Int
}

final class FeedItem: ManagedObject {
    @Attribute var read = false
    @Relationship var server: Server?
}

/// The seed article's server: it keeps a plain attribute itself by watching
/// every change notification of its context and refiltering its items.
final class WatchingServer: ManagedObject {
    @Attribute var unreadCount = 0
    @Relationship(inverse: \WatchingItem.server, deleteRule: .cascade) var feedItems: Set<WatchingItem>

    /// Starts watching: on every didChangeObjects, count the unread items again.
    func watch(_ context: ManagedObjectContext) -> ContextObservation {
        context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { [unowned self] _ in
            let unread = self.feedItems.reduce(0) { $0 + ($1.read ? 0 : 1) }
            if unread != self.unreadCount { self.unreadCount = unread }
        }
    }
}

final class WatchingItem: ManagedObject {
    @Attribute var read = false
    @Relationship var server: WatchingServer?
}

/// Toggles `count` read flags spread over `items`, each followed by
/// `processPendingChanges()`.
func toggle<Child: ManagedObject>(_ count: Int, of items: [Child], _ read: ReferenceWritableKeyPath<Child, Bool>,
                                  in context: ManagedObjectContext) {
    context.performAndWait {
        for toggle in 0..<count {
            items[(toggle &* 7_919) % items.count][keyPath: read].toggle()
            context.processPendingChanges()
        }
    }
}

/// The parent watching its child: 10, 1,000 and 10,000 servers of 100 items
/// each; read flags toggled, each followed by `processPendingChanges()` as a
/// user's taps would be. The derived attribute toggles 1,000 flags per
/// iteration; the seed pattern, whose toggle cost grows with the number of
/// servers, toggles 1,000, 100 and 10 flags at 10, 1,000 and 10,000 servers,
/// which its name says; the report scales it to 1,000 toggles.
func parentWatchingChildBenchmarks() {
    let itemsPerServer = 100
    let toggles = 1_000
    let derivedModel = try! ManagedObjectModel(entities: [Server.self, FeedItem.self])
    let watchingModel = try! ManagedObjectModel(entities: [WatchingServer.self, WatchingItem.self])
    let heavy = Benchmark.Configuration(warmupIterations: 1, maxDuration: .seconds(20), maxIterations: 5)

    for servers in [10, 1_000, 10_000] {
        Benchmark("watch/derived \(servers)", configuration: heavy) { (benchmark: Benchmark, state: (ManagedObjectContext, [FeedItem])) in
            let (context, items) = state
            toggle(toggles, of: items, \.read, in: context)
        } setup: {
            let context = try Stack.context(derivedModel, .inMemory)
            let items = try context.performAndWait {
                var items: [FeedItem] = []
                for _ in 0..<servers {
                    let server = Server(context: context)
                    for _ in 0..<itemsPerServer {
                        let item = FeedItem(context: context)
                        item.server = server
                        items.append(item)
                    }
                }
                try context.save()
                return items
            }
            return (context, items)
        }

        let patternToggles = servers <= 10 ? toggles : 100_000 / servers
        Benchmark("watch/pattern \(servers) (\(patternToggles) toggles)", configuration: heavy) {
            (benchmark: Benchmark, state: (ManagedObjectContext, [WatchingItem], [ContextObservation])) in
            let (context, items, _) = state
            toggle(patternToggles, of: items, \.read, in: context)
        } setup: {
            let context = try Stack.context(watchingModel, .inMemory)
            return try context.performAndWait {
                var items: [WatchingItem] = []
                var parents: [WatchingServer] = []
                for _ in 0..<servers {
                    let server = WatchingServer(context: context)
                    server.unreadCount = itemsPerServer
                    for _ in 0..<itemsPerServer {
                        let item = WatchingItem(context: context)
                        item.server = server
                        items.append(item)
                    }
                    parents.append(server)
                }
                try context.save()
                return (context, items, parents.map { $0.watch(context) })
            }
        }
    }
}
