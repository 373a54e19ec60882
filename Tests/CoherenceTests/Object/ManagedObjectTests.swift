import Coherence
import Foundation
import Testing

@Suite("Managed objects")
struct ManagedObjectTests {
    @Test(arguments: StoreKind.allCases) func newObjectIsInsertedWithTemporaryIDAndDefaults(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let item = FeedItem(context: context)
            #expect(item.managedObjectContext === context)
            #expect(item.isInserted)
            #expect(!item.isUpdated)
            #expect(!item.isDeleted)
            #expect(!item.isFault)
            #expect(item.hasChanges)
            #expect(item.objectID.isTemporaryID)
            #expect(item.objectID.entityName == "FeedItem")
            #expect(item.title == "")
            #expect(item.read == false)
            #expect(item.server == nil)
            #expect(context.insertedObjects == [item])
            try context.save()
            #expect(!item.objectID.isTemporaryID)
            #expect(!item.isInserted)
            #expect(!item.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func everyAttributeTypeRoundTripsThroughTheStore(store: StoreKind) throws {
        let context = try TestStack.context(store)
        let id: ManagedObjectID = try context.performAndWait {
            let sample = Sample(context: context)
            sample.flag = true
            sample.int = -5
            sample.int16 = 16
            sample.int32 = 32
            sample.int64 = .max
            sample.double = 2.5
            sample.float = 1.5
            sample.string = "héllo"
            sample.date = Date(timeIntervalSince1970: 1_000)
            sample.data = Data([1, 2, 3])
            sample.uuid = UUID(uuidString: "11111111-2222-3333-4444-555555555555")!
            sample.url = URL(string: "https://coherence.example/feed")!
            sample.decimal = Decimal(string: "12.34")!
            sample.optionalString = "present"
            sample.optionalInt = nil
            sample.priority = .high
            sample.level = .two
            sample.address = Address(street: "Elm", zip: 90210)
            sample.code = "X1"
            try context.save()
            return sample.objectID
        }
        // A second context reads the committed row, not the first context's object.
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try other.performAndWait {
            let sample = try #require(try other.existingObject(with: id) as? Sample)
            #expect(sample.flag == true)
            #expect(sample.int == -5)
            #expect(sample.int16 == 16)
            #expect(sample.int32 == 32)
            #expect(sample.int64 == .max)
            #expect(sample.double == 2.5)
            #expect(sample.float == 1.5)
            #expect(sample.string == "héllo")
            #expect(sample.date == Date(timeIntervalSince1970: 1_000))
            #expect(sample.data == Data([1, 2, 3]))
            #expect(sample.uuid == UUID(uuidString: "11111111-2222-3333-4444-555555555555")!)
            #expect(sample.url == URL(string: "https://coherence.example/feed")!)
            #expect(sample.decimal == Decimal(string: "12.34")!)
            #expect(sample.optionalString == "present")
            #expect(sample.optionalInt == nil)
            #expect(sample.priority == .high)
            #expect(sample.level == .two)
            #expect(sample.address == Address(street: "Elm", zip: 90210))
            #expect(sample.code == "X1")
            #expect(sample.transientNote == "not stored")
        }
    }

    @Test(arguments: StoreKind.allCases) func lifecycleHooksRunAtCoreDataMoments(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let tracked = Tracked(context: context)
            #expect(tracked.calls == ["awakeFromInsert"])
            #expect(tracked.createdAt == Date(timeIntervalSince1970: 42), "awakeFromInsert may set initial values")
            try context.save()
            #expect(tracked.calls == ["awakeFromInsert", "willSave", "didSave"])

            tracked.calls = []
            context.refresh(tracked, mergeChanges: false)
            #expect(tracked.calls == ["willTurnIntoFault", "didTurnIntoFault"])
            #expect(tracked.isFault)
            _ = tracked.name
            #expect(tracked.calls == ["willTurnIntoFault", "didTurnIntoFault", "awakeFromFetch"])
            #expect(!tracked.isFault)

            tracked.calls = []
            context.delete(tracked)
            #expect(tracked.calls == [], "deletion is applied by processPendingChanges")
            context.processPendingChanges()
            #expect(tracked.calls == ["prepareForDeletion"])
            try context.save()
            #expect(tracked.calls == ["prepareForDeletion", "willSave", "didSave", "willTurnIntoFault", "didTurnIntoFault"])
            #expect(tracked.managedObjectContext == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func changedValuesAndCommittedValues(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "alpha"
            let inserted = server.changedValues()
            #expect(inserted["name"] as? String == "alpha")
            #expect(inserted["unreadCount"] as? Int == 0, "an inserted object reports every property")
            #expect(server.committedValues(forKeys: nil).isEmpty, "nothing committed yet")
            try context.save()

            #expect(server.changedValues().isEmpty)
            server.name = "beta"
            server.unreadCount = 3
            let changed = server.changedValues()
            #expect(Set(changed.keys) == ["name", "unreadCount"])
            #expect(changed["name"] as? String == "beta")
            #expect(server.isUpdated)
            let committed = server.committedValues(forKeys: ["name"])
            #expect(committed.count == 1)
            #expect(committed["name"] as? String == "alpha")

            server.name = "alpha"
            server.unreadCount = 0
            #expect(server.changedValues().isEmpty, "changes that were undone do not count")
            #expect(!server.isUpdated)
            #expect(!context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func valueForKeyAndSetValueForKey(store: StoreKind) throws {
        let context = try TestStack.context(store)
        context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            item.setValue("from KVC", forKey: "title")
            item.setValue(server, forKey: "server")
            #expect(item.title == "from KVC")
            #expect(item.value(forKey: "title") as? String == "from KVC")
            #expect(server.feedItems == [item], "the inverse follows a KVC write")
            item.setValue(NSNull(), forKey: "server")
            #expect(item.server == nil && server.feedItems.isEmpty, "NSNull clears a to-one relationship")
            server.setValue([item], forKey: "feedItems")
            #expect(item.server == server, "a to-many KVC write takes any sequence of its entity's objects")
            // An unknown key or a value of the wrong type traps: see MisuseTests.

            // No value reads as nil, as Core Data's value(forKey:) returns
            // it: an optional attribute that is nil, an empty to-one
            // relationship.
            let tracked = Tracked(context: context)
            tracked.createdAt = nil
            #expect(tracked.value(forKey: "createdAt") == nil)
            #expect(tracked.primitiveValue(forKey: "createdAt") == nil)
            item.setValue(NSNull(), forKey: "server")
            #expect(item.value(forKey: "server") == nil)
            #expect(server.value(forKey: "feedItems") as? Set<ManagedObject> == [])
        }
    }

    /// Core Data's key-value coding takes any number (an NSNumber) for a
    /// numeric attribute, and nil for a required one, which the next save
    /// reports missing, also for an attribute declared with an initial value:
    /// https://developer.apple.com/documentation/coredata/nsmanagedobject/setvalue(_:forkey:),
    /// https://developer.apple.com/documentation/coredata/nsvalidationmissingmandatorypropertyerror
    @Test func setValueForKeyConvertsNumbersAndClearsRequiredAttributes() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.code = "set"
            sample.setValue(5, forKey: "int16")
            sample.setValue(7, forKey: "float")
            sample.setValue(2.0, forKey: "int32")
            sample.setValue(NSNumber(value: 9), forKey: "int64")
            sample.setValue(Int8(3), forKey: "double")
            #expect(sample.int16 == 5 && sample.float == 7 && sample.int32 == 2 && sample.int64 == 9 && sample.double == 3)
            sample.setValue(nil, forKey: "code")
            #expect(throws: ValidationError.missingValue(entity: "Sample", property: "code")) { try context.save() }
            sample.setValue("again", forKey: "code")
            sample.setValue(nil, forKey: "string")
            #expect(throws: ValidationError.missingValue(entity: "Sample", property: "string")) { try context.save() }
            sample.setValue("again", forKey: "string")
            try context.save()
        }
    }

    @Test(arguments: StoreKind.allCases) func equalityIsIdentityAndObjectsAreUniquedPerContext(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            let again = context.object(with: server.objectID)
            #expect(again === server)
            #expect(try context.existingObject(with: server.objectID) === server)
            #expect(server == again)
            #expect(server != Server(context: context))
        }
    }
}
