import Coherence
import Foundation
import Testing

/// Stamps `modifiedAt` in `willSave()` with a primitive write, the way Core
/// Data code keeps a modification date.
final class Stamped: ManagedObject {
    @Attribute var title = ""
    @Attribute var modifiedAt: Date?
    /// How many stamps this object wrote; the stamp is 1000 s per stamp.
    var stamps = 0

    override func willSave() {
        guard !isDeleted else { return }
        stamps += 1
        setPrimitiveValue(Date(timeIntervalSince1970: Double(stamps) * 1_000), forKey: "modifiedAt")
    }
}

/// The same stamp written through the property.
final class SetterStamped: ManagedObject {
    @Attribute var title = ""
    @Attribute var modifiedAt: Date?

    override func willSave() {
        guard !isDeleted, modifiedAt == nil else { return }
        modifiedAt = Date(timeIntervalSince1970: 1_000)
    }
}

/// `primitiveValue(forKey:)` and `setPrimitiveValue(_:forKey:)` (issue 9,
/// part 3): Core Data's access to an object's own storage, without change
/// tracking, notifications or observation.
///
/// Core Data: `setPrimitiveValue(_:forKey:)` "does not invoke the change
/// notification methods"
/// (https://developer.apple.com/documentation/coredata/nsmanagedobject/setprimitivevalue(_:forkey:)),
/// `primitiveValue(forKey:)` returns "nil if no value has been set"
/// (https://developer.apple.com/documentation/coredata/nsmanagedobject/primitivevalue(forkey:)),
/// and in `willSave()` "If you change property values using primitive
/// accessors, you avoid the possibility of infinite recursion, but Core Data
/// will not notice the change you make"
/// (https://developer.apple.com/documentation/coredata/nsmanagedobject/willsave()).
@Suite("Primitive accessors")
struct PrimitiveAccessTests {
    private func context(_ store: StoreKind) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Stamped.self, SetterStamped.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    @Test(arguments: StoreKind.allCases) func aStampWrittenInWillSaveIsSavedWithOneDidChangePerSave(store: StoreKind) throws {
        let context = try context(store)
        let log = context.performAndWait { ChangeLog(context) }
        let posted = NotificationCounter(.NSManagedObjectContextObjectsDidChange, object: context)
        let stamped = try context.performAndWait {
            let stamped = Stamped(context: context)
            stamped.title = "first"
            try context.save()
            #expect(log.changes.count == 1, "the save's own didChangeObjects, announcing the insertion, and no other")
            #expect(posted.count == 1)
            #expect(log.changes.first?.inserted == [stamped])
            #expect(log.saves.last?.inserted == [stamped])
            #expect(stamped.modifiedAt == Date(timeIntervalSince1970: 1_000))
            #expect(!stamped.hasChanges && !context.hasChanges, "the stamp does not dirty the object again")

            log.clear()
            stamped.title = "second"
            try context.save()
            #expect(log.changes.count == 1)
            #expect(posted.count == 2)
            #expect(log.changes.first?.updated == [stamped])
            #expect(log.saves.last?.updated == [stamped])
            #expect(stamped.modifiedAt == Date(timeIntervalSince1970: 2_000))
            return stamped
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            let fetched = try #require(try reader.existingObject(with: stamped.objectID) as? Stamped)
            #expect(fetched.title == "second")
            #expect(fetched.modifiedAt == Date(timeIntervalSince1970: 2_000), "the primitive write of willSave is in the store")
        }
    }

    /// What the primitive setter avoids: a write through the property in
    /// `willSave()` is a change of its own, announced during the save.
    @Test(arguments: StoreKind.allCases) func aStampWrittenThroughThePropertyIsAnnouncedAgain(store: StoreKind) throws {
        let context = try context(store)
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let stamped = SetterStamped(context: context)
            try context.save()
            #expect(log.changes.count == 2)
            #expect(log.changes.last?.updated == [stamped])
        }
    }

    @Test(arguments: StoreKind.allCases) func primitiveAccessBypassesTrackingNotificationsAndObservation(store: StoreKind) throws {
        let context = try context(store)
        let log = context.performAndWait { ChangeLog(context) }
        let id = try context.performAndWait {
            let stamped = Stamped(context: context)
            stamped.title = "saved"
            try context.save()
            return stamped.objectID
        }
        try context.performAndWait {
            context.refreshAllObjects()
            context.processPendingChanges()
            log.clear()
            let stamped = try #require(context.object(with: id) as? Stamped)
            #expect(stamped.isFault)
            stamped.setPrimitiveValue("in memory", forKey: "title")
            #expect(!stamped.isFault, "a fault is filled before the primitive write, keeping its other values")
            #expect(stamped.modifiedAt == Date(timeIntervalSince1970: 1_000))
            context.isObservationEnabled = true
            let tracker = ObservationTests.Tracker { _ = stamped.title }
            stamped.setPrimitiveValue("primitive", forKey: "title")
            #expect(stamped.title == "primitive")
            #expect(stamped.primitiveValue(forKey: "title") as? String == "primitive")
            #expect(!stamped.hasChanges && !context.hasChanges, "not a change the context records")
            context.processPendingChanges()
            #expect(log.changes.isEmpty, "nothing is announced")
            #expect(tracker.changes == 0, "Observation is not told")

            stamped.setPrimitiveValue(nil, forKey: "modifiedAt")
            #expect(stamped.primitiveValue(forKey: "modifiedAt") == nil, "nil: no value")
            #expect(stamped.modifiedAt == nil)

            try context.save()
            #expect(log.saves.last?.updated.isEmpty == true, "an object changed only by primitive writes is not saved")
            stamped.title = "through the setter"
            #expect(tracker.changes == 1, "the same observer hears an ordinary write")
            context.rollback()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            let fetched = try #require(try reader.existingObject(with: id) as? Stamped)
            #expect(fetched.title == "saved")
        }
    }

    @Test func requiredAttributesAndRelationships() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let sample = Sample(context: context)
            #expect(sample.primitiveValue(forKey: "code") == nil, "a required attribute never set has no value")
            sample.setPrimitiveValue("c", forKey: "code")
            #expect(sample.code == "c")
            #expect(sample.primitiveValue(forKey: "optionalInt") as? Int == 7)
            sample.setPrimitiveValue(NSNull(), forKey: "code")
            #expect(sample.primitiveValue(forKey: "code") == nil)
            #expect(throws: ValidationError.missingValue(entity: "Sample", property: "code")) { try context.save() }
            sample.setPrimitiveValue("again", forKey: "code")

            let server = Server(context: context)
            let item = FeedItem(context: context)
            item.server = server
            #expect(item.primitiveValue(forKey: "server") as? Server === server)
            #expect(server.primitiveValue(forKey: "feedItems") as? Set<ManagedObject> == [item])
            #expect(FeedItem(context: context).primitiveValue(forKey: "server") == nil)
            try context.save()
        }
    }
}
