@testable import Coherence
import Foundation
import GRDB
import Testing

/// Graph-integrity cases found in review: each failed before its fix.
@Suite("Graph integrity")
struct GraphIntegrityTests {
    @Test(arguments: StoreKind.allCases) func aRelationshipToADeletedObjectIsRefused(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { () throws in
            let server = Server(context: context)
            context.delete(server)
            context.processPendingChanges() // its delete rules have run
            let item = FeedItem(context: context)
            item.server = server
            let error = try #require(throws: ValidationError.self) { try context.save() }
            guard case .danglingReference(let entity, let property, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(entity == "FeedItem" && property == "server")
        }
    }

    @Test(arguments: StoreKind.allCases) func noActionLeavesADanglingReferenceThatTheSaveRefuses(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { () throws in
            let employee = Employee(context: context)
            employee.badge = Badge(context: context)
            try context.save()
            context.delete(employee)
            #expect(throws: ValidationError.danglingReference(entity: "Badge", property: "owner",
                                                              destination: "Employee \(employee.objectID)")) {
                try context.save()
            }
            employee.badge?.owner = nil
            try context.save()
        }
    }

    @Test(arguments: StoreKind.allCases) func aStaleDeletionConflictsAndObjectTrumpCascadesToNewRows(store: StoreKind) throws {
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump] {
            let context = try TestStack.context(store)
            context.mergePolicy = policy
            let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
            let server = try context.performAndWait {
                let server = Server(context: context)
                FeedItem(context: context).server = server
                try context.save()
                _ = server.feedItems
                return server
            }
            let id = context.performAndWait { server.objectID }
            try other.performAndWait {
                FeedItem(context: other).server = try other.existingObject(with: id) as? Server
                try other.save()
            }
            try context.performAndWait { () throws in
                context.delete(server)
                if policy == .error {
                    let error = try #require(throws: MergeError.self) { try context.save() }
                    #expect(error.conflicts.map(\.isDeletion) == [true])
                    #expect(server.isDeleted, "the deletion stays pending")
                } else {
                    try context.save()
                    #expect(try context.count(for: FetchRequest<FeedItem>()) == 0, "the item saved elsewhere was cascaded too")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func assigningAnObjectOfAnotherContextToASavedObjectIsRefused(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let foreign = other.performAndWait { Server(context: other) }
        try context.performAndWait { () throws in
            let item = FeedItem(context: context)
            try context.save()
            item.server = foreign
            #expect(context.hasChanges)
            #expect(throws: ValidationError.self) { try context.save() }
        }
    }

    @Test(arguments: StoreKind.allCases) func batchInsertedRelationshipsAppearOnBothSides(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let serverID = try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            return server.objectID
        }
        let result = try context.performAndWait { (try context.execute(BatchInsertRequest<FeedItem>(objects: [["title": "linked", "server": serverID]])) as! BatchInsertResult) }
        #expect(result.changes.updated.contains(serverID))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            let server = try #require(try reader.existingObject(with: serverID) as? Server)
            #expect(server.feedItems.map(\.title) == ["linked"])
        }
    }

    @Test func objectIDPredicatesMatchOnlyTheSameSavedObject() throws {
        let context = try TestStack.context(.sqlite)
        try context.performAndWait { () throws in
            let server = Server(context: context)
            let item = FeedItem(context: context)
            try context.save()
            let draft = Server(context: context)
            let draftID = draft.objectID
            let itemID = item.objectID
            let serverID = server.objectID
            let request = FetchRequest<Server>(predicate: #Predicate { $0.objectID == draftID })
            request.includesPendingChanges = false
            #expect(try context.fetch(request).isEmpty, "a temporary ID matches no saved row")
            request.predicate = #Predicate { $0.objectID == itemID }
            #expect(try context.fetch(request).isEmpty, "another entity's ID matches no row, whatever its key")
            request.predicate = #Predicate { $0.objectID == serverID }
            #expect(try context.fetch(request) == [server])
            request.predicate = #Predicate { $0.objectID != serverID }
            #expect(try context.fetch(request).isEmpty)
        }
    }

    @Test func refreshingAFaultLoadsWhatAnotherCoordinatorSaved() throws {
        let url = TestFiles.newURL("refresh.sqlite")
        func context() throws -> ManagedObjectContext {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
            try coordinator.addPersistentStore(.sqlite(url))
            return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        }
        let first = try context()
        let server = try first.performAndWait {
            let server = Server(context: first)
            server.name = "v1"
            try first.save()
            first.refresh(server, mergeChanges: false)
            return server
        }
        let second = try context()
        try second.performAndWait {
            (try second.fetch(FetchRequest<Server>()).first)?.name = "v2"
            try second.save()
        }
        first.performAndWait {
            #expect(server.isFault)
            first.refresh(server, mergeChanges: true)
            #expect(server.name == "v2")
        }
    }

    @Test func savingWithSeveralStoresIsRefused() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(.inMemory)
        try coordinator.addPersistentStore(.inMemory)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.performAndWait {
            _ = Server(context: context)
            #expect(throws: StoreError.severalStores(2)) { try context.save() }
            #expect(context.hasChanges)
        }
    }

    @Test func aFailedRetryAfterConflictResolutionRestoresTheContext() throws {
        let context = try TestStack.context(.sqlite)
        context.mergePolicy = .mergeByPropertyStoreTrump
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let server = try context.performAndWait {
            let server = Server(context: context)
            server.name = "original"
            try context.save()
            return server
        }
        let id = context.performAndWait { server.objectID }
        try other.performAndWait {
            (try other.existingObject(with: id) as! Server).name = "theirs"
            try other.save()
        }
        // The merged row (their name, my count) is what the retry writes; refuse it.
        let store = try #require(context.persistentStoreCoordinator?.persistentStores.first as? SQLiteStore)
        try store.database.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE UPDATE ON Server WHEN NEW.name = 'theirs' AND NEW.unreadCount = 5 BEGIN SELECT RAISE(ABORT, 'refused merge'); END")
        }
        try context.performAndWait { () throws in
            server.name = "mine"
            server.unreadCount = 5
            let error = try #require(throws: StoreError.self) { try context.save() }
            #expect("\(error)".contains("refused merge"))
            #expect(server.name == "mine", "the resolution's changes were undone")
            #expect(server.unreadCount == 5)
            #expect(server.committedValues(forKeys: ["name"])["name"] as? String == "original", "and its snapshot too")
            #expect(server.isUpdated)
        }
    }
}

@Suite("Migration of relationships")
struct RelationshipMigrationTests {
    @Test func renamingAnEntityKeepsItsManyToManyRows() throws {
        let url = TestFiles.newURL("rename.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [PostV1.self, LabelV1.self]))
            try coordinator.addPersistentStore(.sqlite(url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            try context.performAndWait {
                let post = PostV1(context: context)
                let label = LabelV1(context: context)
                label.text = "kept"
                post.labels = [label]
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Story.self, LabelV2.self]))
        try coordinator.addPersistentStore(.sqlite(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let story = try #require(try context.fetch(FetchRequest<Story>()).first)
            #expect(story.labels.map(\.text) == ["kept"])
            #expect(story.labels.first?.stories == [story])
        }
    }

    @Test func changingARelationshipsDestinationIsRefused() throws {
        let url = TestFiles.newURL("destination.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [PostV1.self, LabelV1.self]))
            try coordinator.addPersistentStore(.sqlite(url))
        }
        let moved = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [PostRedirected.self, Shelf.self]))
        #expect(throws: StoreError.incompatibleModel(reason: "Post.labels changed its destination from Label to Shelf")) {
            try moved.addPersistentStore(.sqlite(url))
        }
    }
}

final class PostV1: ManagedObject {
    override class var entityName: String { "Post" }
    @Relationship(inverse: \LabelV1.posts) var labels: Set<LabelV1>
}

final class LabelV1: ManagedObject {
    override class var entityName: String { "Label" }
    @Attribute var text = ""
    @Relationship var posts: Set<PostV1>
}

final class Story: ManagedObject {
    override class var renamingIdentifier: String? { "Post" }
    @Relationship(inverse: \LabelV2.stories) var labels: Set<LabelV2>
}

final class LabelV2: ManagedObject {
    override class var entityName: String { "Label" }
    override class var propertyRenamingIdentifiers: [String: String] { ["stories": "posts"] }
    @Attribute var text = ""
    @Relationship var stories: Set<Story>
}

final class Shelf: ManagedObject {
    @Relationship(inverse: \PostRedirected.labels) var posts: Set<PostRedirected>
}

/// "Post" whose `labels` now lead to Shelf instead of Label.
final class PostRedirected: ManagedObject {
    override class var entityName: String { "Post" }
    @Relationship var labels: Set<Shelf>
}
