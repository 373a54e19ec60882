import Coherence
import Foundation
import Testing

@Suite("Saving")
struct SavingTests {
    @Test(arguments: StoreKind.allCases) func willSaveThenDidSaveAfterCommitWithPermanentIDs(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        let idNotes = NotificationBox()
        let token = NotificationCenter.default.addObserver(
            forName: .NSManagedObjectContextDidSaveObjectIDs, object: context, queue: nil) { idNotes.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            #expect(log.willSaves == 1)
            let didSave = try #require(log.saves.last)
            #expect(didSave.inserted == [server])
            #expect(didSave.updated.isEmpty && didSave.deleted.isEmpty)
            #expect(didSave.inserted.allSatisfy { !$0.objectID.isTemporaryID }, "IDs are permanent in didSave")
            #expect(didSave.objectIDs.inserted == [server.objectID])

            let ids = try #require(idNotes.last?.userInfo)
            #expect(ids[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> == [server.objectID])

            server.name = "updated"
            try context.save()
            #expect(log.saves.last?.updated == [server])
            context.delete(server)
            try context.save()
            #expect(log.saves.last?.deleted == [server])
            #expect(log.saves.count == 3)
        }
    }

    /// Core Data posts willSave and didSave for every `save()`, also one with
    /// nothing to save (then with empty sets); see CoreDataPayloadTests.
    @Test(arguments: StoreKind.allCases) func saveWithoutChangesWritesNothingButPostsEmptyDidSave(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            try context.save()
            let server = Server(context: context)
            try context.save()
            server.name = "x"
            server.name = ""
            try context.save()
            #expect(log.saves.count == 3)
            #expect(log.willSaves == 3)
            #expect(log.saves.map(\.inserted.count) == [0, 1, 0])
            #expect(log.saves.allSatisfy { $0.updated.isEmpty && $0.deleted.isEmpty }, "an undone change is not saved")
        }
    }

    @Test(arguments: StoreKind.allCases) func changesMadeInWillSaveAreSaved(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            let token = context.addObserver(for: ManagedObjectContext.WillSaveMessage.self) { _ in server.name = "stamped" }
            try context.save()
            token.cancel()
            let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
            let name = try reader.performAndWait { (try reader.existingObject(with: server.objectID) as! Server).name }
            #expect(name == "stamped")
        }
    }

    @Test(arguments: StoreKind.allCases) func missingRequiredValueFailsAndLeavesEverythingPending(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let sample = Sample(context: context)
            let server = Server(context: context)
            context.processPendingChanges()
            log.clear()
            #expect(throws: ValidationError.missingValue(entity: "Sample", property: "code")) {
                try context.save()
            }
            #expect(log.willSaves == 1, "willSave comes before validation")
            #expect(log.saves.isEmpty, "no didSave for a failed save")
            #expect(sample.isInserted && server.isInserted)
            #expect(sample.objectID.isTemporaryID && server.objectID.isTemporaryID)
            #expect(context.insertedObjects == [sample, server])
            #expect(try context.fetch(FetchRequest<Server>(), includingPendingChanges: false).isEmpty, "the store is untouched")
            sample.code = "set"
            try context.save()
            #expect(log.saves.count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func severalValidationErrorsAreReportedTogether(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            _ = Sample(context: context)
            _ = Sample(context: context)
            let error = try #require(throws: ValidationError.self) { try context.save() }
            #expect(error.errors == [
                .missingValue(entity: "Sample", property: "code"), .missingValue(entity: "Sample", property: "code"),
            ])
        }
    }

    @Test(arguments: StoreKind.allCases) func failedStoreWriteLeavesContextAsItWas(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let (server, id) = try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            return (server, server.objectID)
        }
        try other.performAndWait {
            try other.delete(other.existingObject(with: id))
            try other.save()
        }
        try context.performAndWait {
            server.name = "edited after the row was deleted"
            let fresh = FeedItem(context: context)
            let error = try #require(throws: MergeError.self) { try context.save() }
            #expect(error.conflicts.map(\.objectID) == [server.objectID])
            #expect(error.conflicts.first?.persistedSnapshot == nil, "deleted from the store")
            #expect(server.isUpdated, "the change is still pending")
            #expect(fresh.isInserted && fresh.objectID.isTemporaryID, "the insert was not applied either")
            let stored = try context.fetch(FetchRequest<FeedItem>(), includingPendingChanges: false)
            #expect(stored.isEmpty)
        }
    }
}

extension ManagedObjectContext {
    /// A fetch with `includesPendingChanges` set, for brevity in tests.
    func fetch<T: ManagedObject>(_ request: FetchRequest<T>, includingPendingChanges: Bool) throws -> [T] {
        let request = request.copy()
        request.includesPendingChanges = includingPendingChanges
        return try fetch(request)
    }
}
