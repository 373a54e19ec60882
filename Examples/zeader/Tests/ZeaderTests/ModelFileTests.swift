import Coherence
import Foundation
import Testing
@testable import ZeaderKit

// zeader's model declared the way a Core Data app declares it: the schema
// in an Xcode model file (`Fixtures/Zeader.xcdatamodeld`) and Xcode's
// generated classes ported by renaming (`@NSManaged` → `@Managed`, `NS`
// dropped), with the unread count, which a model file cannot express (a
// count with a filter), added to the class as `@Derived` by name. Nested in
// an enum only so that their names do not clash with ZeaderKit's classes
// of the same names.
public enum XcodeGenerated {
    // Server+CoreDataClass.swift, with the derived count added.
    public class Server: ManagedObject {
        @Derived(count: "feedItems", where: "read == NO")
        public var unreadCount: Int
    }

    // FeedItem+CoreDataClass.swift
    public class FeedItem: ManagedObject {}
}

// Server+CoreDataProperties.swift
extension XcodeGenerated.Server {
    @nonobjc public class func fetchRequest() -> FetchRequest<XcodeGenerated.Server> {
        FetchRequest<XcodeGenerated.Server>(entityName: "Server")
    }

    @Managed public var link: String?
    @Managed public var title: String?
    @Managed public var url: String?
    @Managed public var feedItems: NSSet?
}

// FeedItem+CoreDataProperties.swift
extension XcodeGenerated.FeedItem {
    @nonobjc public class func fetchRequest() -> FetchRequest<XcodeGenerated.FeedItem> {
        FetchRequest<XcodeGenerated.FeedItem>(entityName: "FeedItem")
    }

    @Managed public var feedURL: String?
    @Managed public var guid: String?
    @Managed public var link: String?
    @Managed public var published: Date?
    @Managed public var read: Bool
    @Managed public var title: String?
    @Managed public var server: XcodeGenerated.Server?
}

/// The same model declared in Swift (ZeaderKit's `Server` and `FeedItem`)
/// and as a model file with generated classes behaves the same: one
/// scenario, written by key so that it runs on both, gives identical
/// notifications and derived counts.
@Suite("zeader's model as an Xcode model file")
struct ModelFileTests {
    static let modelFile = Files.fixture("Zeader.xcdatamodeld")

    /// The two ways of declaring the model, each on a new store.
    enum Declaration: String, CaseIterable {
        case swift, modelFile
    }

    enum Store: String, CaseIterable {
        case inMemory, sqlite
    }

    /// What the scenario observed: every didChangeObjects and didSave, as
    /// sorted `change Entity(identity)` lines, and the unread count after
    /// each step.
    struct Transcript: Equatable {
        var notifications: [String] = []
        var unreadCounts: [Int] = []
    }

    /// The transcript the observers write, on the context's queue.
    final class Recorder {
        var transcript = Transcript()
    }

    static func identity(_ object: ManagedObject) -> String {
        let key = object.entity.name == "Server" ? "url" : "guid"
        return "\(object.entity.name)(\(object.value(forKey: key) as? String ?? "?"))"
    }

    static func lines(_ name: String, _ objects: Set<ManagedObject>) -> [String] {
        objects.map { "\(name) \(identity($0))" }.sorted()
    }

    /// The scenario: insert a feed and three items, save; mark one read,
    /// delete another, save; re-import an item under the constraint; mark
    /// the whole feed read with a batch update merged into the context;
    /// then read the count from a second context.
    static func run(_ declaration: Declaration, store: Store, in directory: TemporaryDirectory) throws -> Transcript {
        let model = switch declaration {
        case .swift: try ManagedObjectModel.zeader()
        case .modelFile: try ManagedObjectModel(contentsOf: modelFile, classes: [XcodeGenerated.Server.self, XcodeGenerated.FeedItem.self])
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        switch store {
        case .inMemory: try coordinator.addPersistentStore(.inMemory)
        case .sqlite: try coordinator.addPersistentStore(.sqlite(directory.url.appendingPathComponent("\(declaration).sqlite")))
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let recorder = Recorder()
        let observations = [
            context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { change in
                recorder.transcript.notifications.append((lines("inserted", change.inserted) + lines("updated", change.updated)
                                             + lines("deleted", change.deleted) + lines("refreshed", change.refreshed)).joined(separator: ", "))
            },
            context.addObserver(for: ManagedObjectContext.DidSaveMessage.self) { save in
                recorder.transcript.notifications.append("saved: " + (lines("inserted", save.inserted) + lines("updated", save.updated)
                                                         + lines("deleted", save.deleted)).joined(separator: ", "))
            },
        ]
        defer { _ = observations }
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) -> ManagedObject {
                let object = EntityDescription.insertNewObject(forEntityName: entity, into: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let server = insert("Server", ["url": "feed.xml", "title": "Feed"])
            func step() {
                context.processPendingChanges()
                recorder.transcript.unreadCounts.append(server.value(forKey: "unreadCount") as? Int ?? -1)
            }
            let items = (1...3).map { insert("FeedItem", ["guid": "g\($0)", "feedURL": "feed.xml", "title": "Item \($0)", "server": server]) }
            step()
            try context.save()

            items[0].setValue(true, forKey: "read")
            step()
            context.delete(items[1])
            step()
            try context.save()

            // Re-importing an item updates the saved one instead of adding a row.
            context.mergePolicy = .mergeByPropertyObjectTrump
            _ = insert("FeedItem", ["guid": "g3", "feedURL": "feed.xml", "title": "Item 3, edited", "server": server])
            step()
            try context.save()
            step()

            let request = BatchUpdateRequest(entityName: "FeedItem")
            request.predicate = Predicate<ManagedObject>(format: "feedURL == %@ AND read == NO", "feed.xml")
            request.propertiesToUpdate = ["read": true]
            let result = try context.execute(request) as! BatchUpdateResult
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
            step()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try reader.performAndWait {
            let servers = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Server", predicate: Predicate(format: "unreadCount == 0")))
            let titles = try reader.fetch(FetchRequest<ManagedObject>(entityName: "FeedItem", sortBy: [SortDescriptor(key: "guid")]))
                .map { $0.value(forKey: "title") as? String ?? "" }
            recorder.transcript.notifications.append("read back: \(servers.count) read feed, items \(titles)")
        }
        return recorder.transcript
    }

    /// Both declarations give the same notifications and derived counts,
    /// on each store; the counts are the scenario's unread items at each
    /// step.
    @Test(arguments: Store.allCases) func bothDeclarationsBehaveTheSame(store: Store) throws {
        let directory = try TemporaryDirectory()
        let swift = try Self.run(.swift, store: store, in: directory)
        let file = try Self.run(.modelFile, store: store, in: directory)
        #expect(file == swift)
        #expect(file.unreadCounts == [3, 2, 1, 2, 1, 0])
        #expect(file.notifications.last == "read back: 1 read feed, items [\"Item 1\", \"Item 3, edited\"]")
    }

    /// The generated classes read and write the file's properties, and the
    /// derived count declared in Swift is current before any save.
    @Test func generatedClassesCarryTheCount() throws {
        let model = try ManagedObjectModel(contentsOf: Self.modelFile, classes: [XcodeGenerated.Server.self, XcodeGenerated.FeedItem.self])
        #expect(model.entitiesByName["Server"]?.attributes.map(\.name) == ["unreadCount", "link", "title", "url"])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(.inMemory)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.performAndWait {
            let server = XcodeGenerated.Server(context: context)
            server.url = "feed.xml"
            let item = XcodeGenerated.FeedItem(context: context)
            item.guid = "g1"
            server.addToFeedItems(item)
            context.processPendingChanges()
            #expect(server.unreadCount == 1)
            // Observers by key path: the count declared in Swift, and a
            // @Managed property (which the model knows by name only, so its
            // observer sees every change of the item).
            var countChanges = 0, readChanges = 0
            let observations = [
                context.observe(server, keyPaths: [\.unreadCount]) { _ in countChanges += 1 },
                context.observe(item, keyPaths: [\.read]) { _ in readChanges += 1 },
            ]
            item.read = true
            context.processPendingChanges()
            #expect(server.unreadCount == 0)
            #expect(countChanges == 1 && readChanges == 1)
            server.title = "Renamed"
            context.processPendingChanges()
            #expect(countChanges == 1, "a change of another property is not a change of unreadCount")
            _ = observations
            #expect(item.published == Date(timeIntervalSince1970: 0), "the file's default date, 1970")
        }
    }
}
