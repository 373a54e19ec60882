import Coherence
import Foundation
import Testing

@Suite("Relationships and delete rules")
struct RelationshipTests {
    @Test(arguments: StoreKind.allCases) func settingEitherSideUpdatesTheOther(store: StoreKind) throws {
        let context = try TestStack.context(store)
        context.performAndWait {
            let first = Server(context: context)
            let second = Server(context: context)
            let item = FeedItem(context: context)
            item.server = first
            #expect(first.feedItems == [item])
            item.server = second
            #expect(first.feedItems.isEmpty, "moving the item removes it from the old server")
            #expect(second.feedItems == [item])
            first.feedItems = [item]
            #expect(item.server === first)
            #expect(second.feedItems.isEmpty)
            first.feedItems = []
            #expect(item.server == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func oneToOneStealsTheDestination(store: StoreKind) throws {
        let context = try TestStack.context(store)
        context.performAndWait {
            let alice = Employee(context: context)
            let bob = Employee(context: context)
            let badge = Badge(context: context)
            alice.badge = badge
            #expect(badge.owner === alice)
            bob.badge = badge
            #expect(badge.owner === bob)
            #expect(alice.badge == nil, "the badge left its previous owner")
        }
    }

    @Test(arguments: StoreKind.allCases) func manyToManyAndSelfReferences(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let swift = Tag(context: context)
            let linux = Tag(context: context)
            let article = Article(context: context)
            article.tags = [swift, linux]
            #expect(swift.articles == [article])
            linux.articles = []
            #expect(article.tags == [swift])

            let mentor = Employee(context: context)
            let mentee = Employee(context: context)
            mentee.mentor = mentor
            #expect(mentor.mentees == [mentee])
            try context.save()
            #expect(mentee.mentor === mentor)
            #expect(article.tags == [swift])
        }
    }

    @Test(arguments: StoreKind.allCases) func relationshipsSurviveSaveAndReload(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let serverID: ManagedObjectID = try context.performAndWait {
            let server = Server(context: context)
            for index in 0..<3 {
                let item = FeedItem(context: context)
                item.title = "item \(index)"
                item.server = server
            }
            try context.save()
            return server.objectID
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            let server = try #require(try reader.existingObject(with: serverID) as? Server)
            #expect(Set(server.feedItems.map(\.title)) == ["item 0", "item 1", "item 2"])
            #expect(server.feedItems.allSatisfy { $0.server === server })
            #expect(server.feedItems.allSatisfy { !$0.objectID.isTemporaryID })
        }
    }

    @Test(arguments: StoreKind.allCases) func nullifyRemovesTheDeletedObjectFromTheInverse(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            item.server = server
            try context.save()
            context.delete(item)
            #expect(server.feedItems == [item], "rules run in processPendingChanges")
            context.processPendingChanges()
            #expect(server.feedItems.isEmpty)
            #expect(item.server === server, "the deleted object keeps its own values until the save")
            try context.save()
            #expect(server.feedItems.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func cascadeDeletesTheDestinations(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            let items = (0..<3).map { _ in FeedItem(context: context) }
            for item in items { item.server = server }
            try context.save()
            context.delete(server)
            context.processPendingChanges()
            #expect(items.allSatisfy { $0.isDeleted })
            #expect(context.deletedObjects.count == 4)
            try context.save()
            #expect(try context.fetch(FetchRequest<FeedItem>()).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func denyRefusesTheSaveAndKeepsEverything(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let department = Department(context: context)
            let employee = Employee(context: context)
            employee.department = department
            try context.save()
            context.delete(department)
            #expect(throws: ValidationError.deleteDenied(entity: "Department", property: "employees")) {
                try context.save()
            }
            #expect(department.isDeleted, "the deletion stays pending")
            #expect(employee.department === department)
            // The store still has the department.
            let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
            let count = try reader.performAndWait { try reader.count(for: FetchRequest<Department>()) }
            #expect(count == 1)
            // Deleting the employee too lifts the denial.
            context.delete(employee)
            try context.save()
            #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Department>()) } == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func noActionLeavesTheDestinationAlone(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let employee = Employee(context: context)
            let badge = Badge(context: context)
            employee.badge = badge
            try context.save()
            context.delete(employee)
            context.processPendingChanges()
            #expect(!badge.isDeleted)
            #expect(badge.owner === employee, "noAction does not touch the inverse")
        }
    }

    @Test(arguments: StoreKind.allCases) func relationshipToAnotherContextIsRefusedAtSave(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let foreignServer = other.performAndWait { Server(context: other) }
        try context.performAndWait {
            let item = FeedItem(context: context)
            item.title = "kept"
            item.server = foreignServer
            #expect(item.server == nil, "the foreign object is not linked")
            let error = try #require(throws: ValidationError.self) { try context.save() }
            guard case .crossContextRelationship(let entity, let property, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(entity == "FeedItem")
            #expect(property == "server")
            #expect(item.isInserted && item.objectID.isTemporaryID, "nothing was saved")
            // Fixing the relationship lets the save through.
            item.server = Server(context: context)
            try context.save()
            #expect(!item.objectID.isTemporaryID)
        }
    }
}
