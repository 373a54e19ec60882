import Coherence
import Foundation
import Testing

@Suite("Batch requests and remote merges")
struct BatchRequestTests {
    @Test(arguments: StoreKind.allCases) func batchInsertWritesWithoutObjectsOrNotifications(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait { () throws in
            let request = BatchInsertRequest<FeedItem>(objects: [["title": "one"], ["title": "two", "read": true], [:]])
            request.resultType = .objectIDs
            let result = (try context.execute(request) as! BatchInsertResult)
            #expect(result.count == 3)
            #expect(result.objectIDs?.count == 3)
            #expect(result.objectIDs?.allSatisfy { !$0.isTemporaryID } == true)
            #expect(result.changes.inserted == Set(result.objectIDs ?? []))
            #expect(log.changes.isEmpty && log.saves.isEmpty, "batch requests post no context notification")
            #expect(context.registeredObjects.isEmpty, "no managed objects were created")
            let items = try context.fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]))
            #expect(items.map(\.title) == ["", "one", "two"])
            #expect(items.map(\.read) == [false, false, true], "missing values take their initial values")
        }
    }

    @Test(arguments: StoreKind.allCases) func batchInsertRejectsBadInputAndInsertsNothing(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { () throws in
            #expect(throws: ContextError.unknownProperty(entity: "FeedItem", property: "nope")) {
                try context.execute(BatchInsertRequest<FeedItem>(objects: [["title": "ok"], ["nope": 1]]))
            }
            #expect(throws: ContextError.typeMismatch(entity: "FeedItem", property: "read", expected: "Bool")) {
                try context.execute(BatchInsertRequest<FeedItem>(objects: [["read": "yes"]]))
            }
            #expect(throws: ValidationError.missingValue(entity: "Sample", property: "code")) {
                try context.execute(BatchInsertRequest<Sample>(objects: [["int": 1]]))
            }
            #expect(try context.count(for: FetchRequest<FeedItem>()) == 0)
            #expect(try context.count(for: FetchRequest<Sample>()) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func batchUpdateThenMergeIntoALiveContext(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait { () throws in
            let items = (0..<4).map { index in
                let item = FeedItem(context: context)
                item.title = "item \(index)"
                item.read = index == 0
                return item
            }
            try context.save()
            log.clear()
            let request = BatchUpdateRequest<FeedItem>(predicate: #Predicate { $0.read == false }, propertiesToUpdate: ["read": true])
            request.resultType = .objectIDs
            let result = (try context.execute(request) as! BatchUpdateResult)
            #expect(result.count == 3)
            #expect(Set(result.objectIDs ?? []) == Set(items.dropFirst().map(\.objectID)))
            #expect(log.changes.isEmpty)
            #expect(items[1].read == false, "live objects keep their values until merged")

            ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
            #expect(items.allSatisfy { $0.read }, "merged: the live objects see the store")
            #expect(log.changes.count == 1)
            #expect(log.last?.refreshed == Set(items.dropFirst()))
        }
    }

    @Test(arguments: StoreKind.allCases) func batchDeleteAppliesDeleteRules(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { () throws in
            let keep = Server(context: context)
            keep.name = "keep"
            let drop = Server(context: context)
            drop.name = "drop"
            for (index, server) in [keep, keep, drop, drop].enumerated() {
                let item = FeedItem(context: context)
                item.title = "item \(index)"
                item.server = server
            }
            try context.save()
            let dropID = drop.objectID

            let result = (try context.execute(BatchDeleteRequest<Server>(predicate: #Predicate { $0.name == "drop" })) as! BatchDeleteResult)
            #expect(result.count == 1)
            #expect(result.changes.deleted.count == 3, "the server and its two items (cascade)")
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes, into: [context])
            #expect(drop.isDeleted, "the merge deletes it, as delete(_:)")
            #expect(try context.count(for: FetchRequest<FeedItem>()) == 2)
            #expect(drop.managedObjectContext == nil, "the deleted object left the context at the next processing")
            #expect(throws: ContextError.objectNotFound(dropID)) { try context.existingObject(with: dropID) }

            // Nullify: deleting items updates their server.
            let deleted = (try context.execute(BatchDeleteRequest<FeedItem>(predicate: #Predicate { $0.title == "item 0" })) as! BatchDeleteResult)
            #expect(deleted.changes.updated == [keep.objectID])
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: deleted.changes, into: [context])
            #expect(keep.feedItems.map(\.title) == ["item 1"])
        }
    }

    @Test(arguments: StoreKind.allCases) func batchDeleteRefusedByDenyChangesNothing(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { () throws in
            let department = Department(context: context)
            Employee(context: context).department = department
            try context.save()
            #expect(throws: ValidationError.deleteDenied(entity: "Department", property: "employees")) {
                try context.execute(BatchDeleteRequest<Department>())
            }
            #expect(try context.count(for: FetchRequest<Department>()) == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func mergeADidSaveDictionaryFromAnotherContext(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let log = context.performAndWait { ChangeLog(context) }
        let server = try context.performAndWait {
            let server = Server(context: context)
            server.name = "before"
            try context.save()
            log.clear()
            return server
        }
        let id = context.performAndWait { server.objectID }
        let saved = BoxedInfo()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSaveObjectIDs, object: other, queue: nil) {
            saved.userInfo = $0.userInfo
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try other.performAndWait {
            (try other.existingObject(with: id) as! Server).name = "after"
            _ = Server(context: other)
            try other.save()
        }
        let userInfo = try #require(saved.userInfo)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: userInfo, into: [context])
        context.performAndWait {
            #expect(server.name == "after")
            #expect(log.last?.refreshed == [server])
            #expect(log.last?.inserted.count == 1)
        }
    }
}

/// A userInfo handed over from a notification observer.
final class BoxedInfo: @unchecked Sendable {
    var userInfo: [AnyHashable: Any]?
}
