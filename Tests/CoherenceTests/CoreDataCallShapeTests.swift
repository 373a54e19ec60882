import Coherence
import Foundation
import Testing

/// A container subclass as apps write one, to keep the store elsewhere.
final class AppGroupContainer: PersistentContainer, @unchecked Sendable {
    static let directory = TestFiles.newURL("AppGroup").deletingLastPathComponent()
    override class func defaultDirectoryURL() -> URL { directory }
}

/// Core Data call shapes that ported code uses unchanged (after dropping
/// `NS`), each checked against what Apple documents for it.
@Suite("Core Data call shapes")
struct CoreDataCallShapeTests {
    /// Apps subclass `NSPersistentContainer` to override
    /// `defaultDirectoryURL()`.
    /// <https://developer.apple.com/documentation/coredata/nspersistentcontainer/defaultdirectoryurl()>
    @Test func aContainerSubclassChoosesItsDirectory() throws {
        let container = AppGroupContainer(name: "Shared", managedObjectModel: try TestStack.model())
        #expect(container.persistentStoreDescriptions.first?.url == AppGroupContainer.directory.appending(path: "Shared.sqlite"))
        try container.loadPersistentStores()
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        #expect(store.url == AppGroupContainer.directory.appending(path: "Shared.sqlite"))
        #expect(store.metadata[NSStoreUUIDKey] as? String == store.identifier)
        #expect(store.metadata[NSStoreTypeKey] as? String == SQLiteStoreType)
    }

    /// `NSPersistentStoreCoordinator.perform(_:)` and `performAndWait(_:)`.
    @Test func coordinatorBlocksRunInOrder() async throws {
        let coordinator = try TestStack.coordinator()
        let order = Locked<[Int]>([])
        coordinator.perform { order.withLock { $0.append(1) } }
        coordinator.perform { order.withLock { $0.append(2) } }
        let stores = coordinator.performAndWait { coordinator.persistentStores.count }
        #expect(stores == 1)
        await withCheckedContinuation { continuation in
            coordinator.perform { continuation.resume() }
        }
        #expect(order.withLock { $0 } == [1, 2])
    }

    /// `shouldMigrateStoreAutomatically` off: a store saved with another
    /// model is refused, and left as it was.
    /// <https://developer.apple.com/documentation/coredata/nspersistentstoredescription/shouldmigratestoreautomatically>
    @Test func migrationCanBeTurnedOff() throws {
        let url = TestFiles.newURL("Versioned.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Server.self, FeedItem.self]))
            try coordinator.addPersistentStore(ofType: SQLiteStoreType, configurationName: nil, at: url, options: nil)
        }
        let before = try Data(contentsOf: url)
        let newer = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true]
        #expect(throws: StoreError.self) {
            try newer.addPersistentStore(ofType: SQLiteStoreType, configurationName: nil, at: url, options: options)
        }
        #expect(try Data(contentsOf: url) == before)
        let description = PersistentStoreDescription(url: url)
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        try newer.addPersistentStore(description) // the default migrates
    }

    /// `Entity.entity()`, `NSEntityDescription.entity(forEntityName:in:)`,
    /// `init(entity:insertInto:)`, `objectID.entity`, a non-optional `entity`.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/init(entity:insertinto:)>
    @Test func entitiesAsCoreDataLooksThemUp() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let entity = try #require(EntityDescription.entity(forEntityName: "Server", in: context))
            #expect(Server.entity().name == "Server")
            #expect(EntityDescription.entity(forEntityName: "Nothing", in: context) == nil)
            let server = Server(entity: entity, insertInto: context)
            #expect(server.entity == entity, "entities compare as Core Data's NSObjects do")
            #expect(server.managedObjectContext == context)
            #expect(Set([context, context]).count == 1)
            let request = Server.fetchRequest()
            #expect(request == request && request != request.copy())
            #expect(server.objectID.entity.name == "Server")
            #expect(context.insertedObjects == [server])
            let loose = FeedItem(entity: FeedItem.entity(), insertInto: nil)
            #expect(loose.managedObjectContext == nil)
            #expect(loose.entity.name == "FeedItem")
        }
    }

    /// Hand-written accessors over primitive values, as Core Data's
    /// documentation writes them: the change is tracked and announced.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/willaccessvalue(forkey:)>
    @Test func primitiveAccessorsWithChangeNotifications() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "before"
            try context.save()
            context.refresh(server, mergeChanges: false)
            #expect(server.isFault)

            server.willAccessValue(forKey: "name")
            let name = server.primitiveValue(forKey: "name") as! String
            server.didAccessValue(forKey: "name")
            #expect(name == "before")
            #expect(!server.hasPersistentChangedValues)

            let log = ChangeLog(context)
            server.willChangeValue(forKey: "name")
            server.setPrimitiveValue("after", forKey: "name")
            server.didChangeValue(forKey: "name")
            #expect(server.isUpdated)
            #expect(server.hasPersistentChangedValues)
            context.processPendingChanges()
            #expect(log.last?.updated == [server])
            try context.save()
            context.refresh(server, mergeChanges: false)
            #expect(server.name == "after")
        }
    }

    /// Batch requests as Core Data builds them: by entity name or from a
    /// fetch request, configured in place, status-only by default, results
    /// read through `result`.
    /// <https://developer.apple.com/documentation/coredata/nsbatchdeleterequest/init(fetchrequest:)>
    /// <https://developer.apple.com/documentation/coredata/nsbatchupdaterequest/init(entityname:)>
    /// <https://developer.apple.com/documentation/coredata/nsbatchinsertrequest/init(entityname:objects:)>
    @Test(arguments: StoreKind.allCases) func batchRequestsAsCoreDataBuildsThem(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let insert = BatchInsertRequest(entityName: "Server", objects: [["name": "a"], ["name": "b"], ["name": "c"]])
            #expect(insert.resultType == .statusOnly)
            insert.resultType = .objectIDs
            let inserted = (try context.execute(insert) as! BatchInsertResult).result as! [ManagedObjectID]
            #expect(inserted.count == 3)
            #expect(inserted.allSatisfy { $0.entity.name == "Server" })

            let update = BatchUpdateRequest(entityName: "Server")
            update.propertiesToUpdate = ["unreadCount": 5]
            update.resultType = .updatedObjectsCountResultType
            #expect((try context.execute(update) as! BatchUpdateResult).result as! Int == 3)

            let fetch = Server.fetchRequest()
            fetch.predicate = Predicate(format: "name == %@", "a")
            let delete = BatchDeleteRequest(fetchRequest: fetch)
            #expect((try context.execute(delete) as! BatchDeleteResult).result as! Bool == true)

            let byName = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Server"))
            byName.resultType = .resultTypeObjectIDs
            let deleted = (try context.execute(byName) as! BatchDeleteResult).result as! [ManagedObjectID]
            #expect(Set(deleted) == Set(inserted.dropFirst()))
            #expect(try context.count(for: Server.fetchRequest()) == 0)
        }
    }
}
