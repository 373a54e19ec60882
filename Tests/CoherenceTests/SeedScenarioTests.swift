import Coherence
import Foundation
import Testing

/// The seed article's parent that watches its children: a server keeps
/// `unreadCount` equal to its unread items by observing every didChangeObjects
/// of its context, lumping inserted, updated and deleted objects together,
/// keeping the feed items whose server is itself, and recounting. It also
/// recounts when it is itself updated, which is how it notices an item that
/// moved away to another server (the article's filter alone misses that).
final class WatchingServer: ManagedObject {
    @Attribute var name = ""
    @Attribute var unreadCount = 0
    @Relationship(inverse: \WatchedItem.server, deleteRule: .cascade)
    var items: Set<WatchedItem>
    private var observation: ContextObservation?
    private(set) var recounts = 0

    override func awakeFromInsert() { startObserving() }
    override func awakeFromFetch() { startObserving() }
    override func willTurnIntoFault() { observation = nil }

    private func startObserving() {
        observation = managedObjectContext?.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { [unowned self] change in
            let changed = change.inserted.union(change.updated).union(change.deleted)
            guard change.updated.contains(self) || changed.contains(where: { ($0 as? WatchedItem)?.server === self }) else { return }
            recounts += 1
            let count = items.filter { !$0.read }.count
            if unreadCount != count { unreadCount = count }
        }
    }
}

final class WatchedItem: ManagedObject {
    @Attribute var read = false
    @Relationship var server: WatchingServer?
}

@Suite("Seed scenario: unread count")
struct SeedScenarioTests {
    private func context() throws -> ManagedObjectContext {
        let model = try ManagedObjectModel(entities: [WatchingServer.self, WatchedItem.self])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(.inMemory)
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    @Test func unreadCountFollowsEveryChangeBeforeAnySave() throws {
        let context = try context()
        try context.performAndWait {
            let server = WatchingServer(context: context)
            let other = WatchingServer(context: context)
            let items = (0..<4).map { _ in WatchedItem(context: context) }
            for item in items { item.server = server }
            context.processPendingChanges()
            #expect(server.unreadCount == 4)
            #expect(other.recounts == 0, "items of another server do not wake it")

            items[0].read = true
            context.processPendingChanges()
            #expect(server.unreadCount == 3, "marking an item read updates the count before any save")

            context.delete(items[1])
            context.processPendingChanges()
            #expect(server.unreadCount == 2)

            items[2].server = other
            context.processPendingChanges()
            #expect(server.unreadCount == 1)
            #expect(other.unreadCount == 1)

            try context.save()
            items[0].read = false
            context.processPendingChanges()
            #expect(server.unreadCount == 2)
        }
    }

    @Test func fetchedServersObserveAgainAndStopWhenFaulted() throws {
        let context = try context()
        let serverID = try context.performAndWait {
            let server = WatchingServer(context: context)
            for _ in 0..<3 { WatchedItem(context: context).server = server }
            try context.save()
            return server.objectID
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            let server = try #require(try reader.existingObject(with: serverID) as? WatchingServer)
            #expect(server.unreadCount == 3)
            let item = try #require(server.items.first)
            item.read = true
            reader.processPendingChanges()
            #expect(server.unreadCount == 2, "awakeFromFetch started observing")
            try reader.save()

            reader.refresh(server, mergeChanges: false)
            let recounts = server.recounts
            item.read = false
            reader.processPendingChanges()
            #expect(server.recounts == recounts, "willTurnIntoFault stopped observing")
        }
    }
}
