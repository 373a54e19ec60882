import Coherence
import Foundation
import Testing

/// Uniqueness constraints: "an array of arrays of attribute names; each inner
/// array is a constraint" (NSEntityDescription.uniquenessConstraints). A save
/// that breaks one is a constraint conflict (NSConstraintConflict: the
/// database object, the conflicting objects, the constraint values), which
/// the error merge policy reports and the property merge policies resolve by
/// merging the new object into the existing one.
/// https://developer.apple.com/documentation/coredata/nsentitydescription/uniquenessconstraints
/// https://developer.apple.com/documentation/coredata/nsconstraintconflict
/// https://developer.apple.com/documentation/coredata/nsmergepolicy/mergebypropertyobjecttrump
@Suite("Uniqueness constraints")
struct UniquenessConstraintTests {
    final class Account: ManagedObject {
        override class var uniquenessConstraints: [[String]] { [["email"], ["region", "handle"]] }
        @Attribute var email: String?
        @Attribute var region = ""
        @Attribute var handle: String?
        @Attribute var name = ""
        @Relationship(inverse: \Device.account, deleteRule: .cascade) var devices: Set<Device>

        override func validateForUpdate() throws {
            try super.validateForUpdate()
            if name == "forbidden" { throw ValidationError.invalidValue(entity: "Account", property: "name", reason: "forbidden") }
        }
    }

    final class Device: ManagedObject {
        @Attribute var serial = ""
        @Relationship var account: Account?
    }

    static func coordinator(_ store: StoreKind) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Account.self, Device.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator, _ policy: MergePolicy) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        context.mergePolicy = policy
        return context
    }

    static func accounts(_ coordinator: PersistentStoreCoordinator) throws -> [(email: String?, name: String, devices: [String])] {
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<Account>(sortBy: [SortDescriptor(\.name)]))
                .map { ($0.email, $0.name, $0.devices.map(\.serial).sorted()) }
        }
    }

    @Test func theModelChecksTheNames() throws {
        final class Broken: ManagedObject {
            override class var uniquenessConstraints: [[String]] { [["missing"]] }
            @Attribute var name = ""
        }
        #expect(throws: ModelError.invalidUniquenessConstraint(entity: "Broken", property: "missing",
                                                               reason: "only stored attributes of Broken that are not derived can be constrained")) {
            try ManagedObjectModel(entities: [Broken.self])
        }
        let model = try ManagedObjectModel(entities: [Account.self, Device.self])
        #expect(model.entitiesByName["Account"]?.uniquenessConstraints == [["email"], ["region", "handle"]])
    }

    @Test(arguments: StoreKind.allCases) func theErrorPolicyReportsTheConflictAndSavesNothing(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .error)
        try context.performAndWait {
            let stored = Account(context: context)
            stored.email = "ada@example.com"
            stored.name = "Ada"
            try context.save()

            let duplicate = Account(context: context)
            duplicate.email = "ada@example.com"
            duplicate.name = "Ada L."
            let other = Account(context: context)
            other.email = "grace@example.com"
            other.name = "Grace"
            let error = try #require(throws: MergeError.self) { try context.save() }
            #expect(error.conflicts.isEmpty)
            let conflict = try #require(error.constraintConflicts.first)
            #expect(error.constraintConflicts.count == 1)
            #expect(conflict.entityName == "Account")
            #expect(conflict.constraint == ["email"])
            #expect(conflict.constraintValues == ["email": .string("ada@example.com")])
            #expect(conflict.databaseObjectID == stored.objectID)
            #expect(conflict.databaseSnapshot?["name"] == .string("Ada"))
            #expect(conflict.conflictingObjects(in: context) == [duplicate])
            #expect(error.description.contains("Account (email = "))
            #expect(context.insertedObjects == [duplicate, other], "the changes stay pending")
        }
        #expect(try Self.accounts(coordinator).map(\.name) == ["Ada"], "nothing was written, not even the other insert")
    }

    @Test(arguments: StoreKind.allCases) func duplicatesWithinOneSaveConflictToo(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .error)
        try context.performAndWait {
            let first = Account(context: context)
            first.region = "eu"
            first.handle = "ada"
            let second = Account(context: context)
            second.region = "eu"
            second.handle = "ada"
            // Compound: another region, or a nil handle, is no conflict.
            let elsewhere = Account(context: context)
            elsewhere.region = "us"
            elsewhere.handle = "ada"
            for _ in 0..<2 { Account(context: context).region = "eu" }
            let error = try #require(throws: MergeError.self) { try context.save() }
            #expect(error.constraintConflicts.count == 1)
            #expect(error.constraintConflicts.first?.constraint == ["region", "handle"])
            #expect(error.constraintConflicts.first?.databaseObjectID == nil)
            #expect(Set(error.constraintConflicts.first?.conflictingObjectIDs ?? []) == [first.objectID, second.objectID])
        }
    }

    @Test(arguments: StoreKind.allCases) func objectTrumpUpdatesTheStoredObjectWithTheInsertedValues(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let stored = Account(context: context)
            stored.email = "ada@example.com"
            stored.name = "Ada"
            let phone = Device(context: context)
            phone.serial = "phone"
            phone.account = stored
            try context.save()
            let storedID = stored.objectID
            context.reset()

            let duplicate = Account(context: context)
            duplicate.email = "ada@example.com"
            duplicate.name = "Ada Lovelace"
            let laptop = Device(context: context)
            laptop.serial = "laptop"
            laptop.account = duplicate
            try context.save()

            #expect(duplicate.managedObjectContext == nil, "the inserted duplicate was merged and deleted")
            let survivor = try #require(context.registeredObject(for: storedID) as? Account)
            #expect(survivor.name == "Ada Lovelace")
            #expect(laptop.account === survivor)
            #expect(!context.hasChanges)
        }
        let accounts = try Self.accounts(coordinator)
        #expect(accounts.map(\.name) == ["Ada Lovelace"], "one row: the insert became an update (an upsert)")
        #expect(accounts.first?.devices == ["laptop", "phone"])
    }

    @Test(arguments: StoreKind.allCases) func storeTrumpKeepsTheStoredValues(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyStoreTrump)
        try context.performAndWait {
            let stored = Account(context: context)
            stored.email = "ada@example.com"
            stored.name = "Ada"
            try context.save()

            let duplicate = Account(context: context)
            duplicate.email = "ada@example.com"
            duplicate.name = "Someone else"
            try context.save()
            #expect(stored.name == "Ada")
            #expect(duplicate.managedObjectContext == nil)
        }
        #expect(try Self.accounts(coordinator).map(\.name) == ["Ada"])
    }

    @Test(arguments: StoreKind.allCases) func duplicatesWithinASaveMergeIntoTheFirstInserted(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let first = Account(context: context)
            first.email = "x@example.com"
            first.name = "first"
            let second = Account(context: context)
            second.email = "x@example.com"
            second.name = "second"
            try context.save()
            #expect(first.managedObjectContext === context && !first.objectID.isTemporaryID)
            #expect(first.name == "second", "the later insertion's values win")
            #expect(second.managedObjectContext == nil)
        }
        #expect(try Self.accounts(coordinator).map(\.name) == ["second"])
    }

    @Test(arguments: StoreKind.allCases) func aChangedSavedObjectIsReportedUnderEveryPolicy(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let ada = Account(context: context)
            ada.email = "ada@example.com"
            let grace = Account(context: context)
            grace.email = "grace@example.com"
            try context.save()
            grace.email = "ada@example.com"
            let error = try #require(throws: MergeError.self) { try context.save() }
            #expect(error.constraintConflicts.first?.databaseObjectID == ada.objectID)
            #expect(grace.email == "ada@example.com", "the change stays pending")
        }
    }

    /// Two coordinators stand for two processes on one file: the second
    /// cannot insert what the first saved.
    @Test func anotherCoordinatorsRowsCount() throws {
        let url = TestFiles.newURL("constraints.sqlite")
        let model = try ManagedObjectModel(entities: [Account.self, Device.self])
        let first = PersistentStoreCoordinator(managedObjectModel: model)
        try first.addPersistentStore(.sqlite(url))
        let second = PersistentStoreCoordinator(managedObjectModel: model)
        try second.addPersistentStore(.sqlite(url))
        let writer = Self.context(first, .error)
        try writer.performAndWait {
            Account(context: writer).email = "ada@example.com"
            try writer.save()
        }
        let other = Self.context(second, .error)
        other.performAndWait {
            Account(context: other).email = "ada@example.com"
            #expect(throws: MergeError.self) { try other.save() }
        }
    }

    @Test(arguments: StoreKind.allCases) func batchInsertHonoursConstraints(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .error)
        try context.performAndWait {
            try context.execute(BatchInsertRequest<Account>(objects: [["email": "a@example.com", "name": "A"]]))
            #expect(throws: MergeError.self) {
                try context.execute(BatchInsertRequest<Account>(objects: [["email": "a@example.com", "name": "B"]]))
            }
            context.mergePolicy = .mergeByPropertyObjectTrump
            let result = (try context.execute(BatchInsertRequest<Account>(objects: [
                ["email": "a@example.com", "name": "A2"], ["email": "b@example.com", "name": "B"],
            ])) as! BatchInsertResult)
            #expect(result.count == 2)
        }
        #expect(try Self.accounts(coordinator).map(\.name) == ["A2", "B"])
    }
    /// Values that move between rows in one save: the check sees the final
    /// state, and so must the store's unique indexes.
    @Test(arguments: StoreKind.allCases) func valuesMayMoveBetweenRowsInOneSave(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .error)
        try context.performAndWait {
            let ada = Account(context: context)
            ada.email = "ada@example.com"
            ada.name = "Ada"
            let grace = Account(context: context)
            grace.email = "grace@example.com"
            grace.name = "Grace"
            try context.save()

            // A deleted row's value on a new one.
            context.delete(ada)
            let newAda = Account(context: context)
            newAda.email = "ada@example.com"
            newAda.name = "Ada 2"
            try context.save()

            // Two values swapped.
            newAda.email = "grace@example.com"
            grace.email = "ada@example.com"
            try context.save()

            // A value moved away and taken by a new row.
            grace.email = "grace2@example.com"
            let third = Account(context: context)
            third.email = "ada@example.com"
            third.name = "Third"
            try context.save()
        }
        let emails = try Self.accounts(coordinator).map { "\($0.name)=\($0.email ?? "-")" }
        #expect(emails == ["Ada 2=grace@example.com", "Grace=grace2@example.com", "Third=ada@example.com"])
    }

    /// The stored object is not loaded when the duplicate arrives (a reset
    /// context): merging loads it, and keeps its relationships.
    @Test(arguments: StoreKind.allCases) func aStoredObjectThatIsAFaultKeepsItsRelationships(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyStoreTrump)
        try context.performAndWait {
            let stored = Account(context: context)
            stored.email = "ada@example.com"
            stored.name = "Ada"
            let phone = Device(context: context)
            phone.serial = "phone"
            phone.account = stored
            try context.save()
            context.reset()

            let duplicate = Account(context: context)
            duplicate.email = "ada@example.com"
            duplicate.name = "Other"
            let laptop = Device(context: context)
            laptop.serial = "laptop"
            laptop.account = duplicate
            try context.save()
        }
        let accounts = try Self.accounts(coordinator)
        #expect(accounts.map(\.name) == ["Ada"])
        #expect(accounts.first?.devices == ["laptop", "phone"])
    }

    /// The common upsert: the stored object is loaded and changed in the same
    /// save as the duplicate; it survives.
    @Test(arguments: StoreKind.allCases) func aChangedStoredObjectKeepingItsValuesSurvives(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let stored = Account(context: context)
            stored.email = "ada@example.com"
            stored.name = "Ada"
            try context.save()
            stored.name = "Ada L."
            let duplicate = Account(context: context)
            duplicate.email = "ada@example.com"
            duplicate.name = "Ada Lovelace"
            try context.save()
            #expect(stored.name == "Ada Lovelace")
            #expect(duplicate.managedObjectContext == nil)
        }
        #expect(try Self.accounts(coordinator).map(\.name) == ["Ada Lovelace"])
    }

    /// A resolution whose retry fails is undone: the duplicate is inserted
    /// again and observers were told nothing of its deletion.
    @Test(arguments: StoreKind.allCases) func aResolutionThatStillFailsIsUndone(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyObjectTrump)
        try context.performAndWait {
            let stored = Account(context: context)
            stored.email = "ada@example.com"
            stored.name = "Ada"
            try context.save()
            let changes = NotificationWaiter(ManagedObjectContext.didChangeObjectsNotification, object: context)
            let duplicate = Account(context: context)
            duplicate.email = "ada@example.com"
            duplicate.name = "forbidden"
            context.processPendingChanges()
            let announced = changes.count
            #expect(throws: ValidationError.invalidValue(entity: "Account", property: "name", reason: "forbidden")) {
                try context.save()
            }
            #expect(context.insertedObjects == [duplicate])
            #expect(!duplicate.isDeleted)
            #expect(stored.name == "Ada")
            context.processPendingChanges()
            let deletedAnnounced = changes.notifications.dropFirst(announced).contains { note in
                (note.userInfo?[ManagedObjectContext.NotificationKey.deletedObjects.rawValue] as? Set<ManagedObject>)?.isEmpty == false
            }
            #expect(!deletedAnnounced, "no didChangeObjects announced the undone deletion")
        }
        #expect(try Self.accounts(coordinator).map(\.name) == ["Ada"])
    }

    /// A constraint the model no longer declares no longer holds in the file.
    @Test func droppingAConstraintDropsItsIndex() throws {
        final class Open: ManagedObject {
            override class var entityName: String { "Account" }
            @Attribute var email: String?
            @Attribute var region = ""
            @Attribute var handle: String?
            @Attribute var name = ""
        }
        final class Constrained: ManagedObject {
            override class var entityName: String { "Account" }
            override class var uniquenessConstraints: [[String]] { [["email"]] }
            @Attribute var email: String?
            @Attribute var region = ""
            @Attribute var handle: String?
            @Attribute var name = ""
        }
        let url = TestFiles.newURL("dropped.sqlite")
        let first = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Constrained.self]))
        try first.addPersistentStore(.sqlite(url))
        let second = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Open.self]))
        try second.addPersistentStore(.sqlite(url))
        let context = Self.context(second, .error)
        try context.performAndWait {
            for _ in 0..<2 { Open(context: context).email = "same@example.com" }
            try context.save()
            #expect(try context.count(for: FetchRequest<Open>()) == 2)
        }
        // The constraint back, on rows that break it: a typed error.
        let third = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Constrained.self]))
        #expect(throws: StoreError.self) { try third.addPersistentStore(.sqlite(url)) }
    }
    /// A save that meets a row changed elsewhere still sees that row's
    /// constrained values, whatever the store does to let values move.
    @Test func anOptimisticLockingConflictKeepsConstrainedValues() throws {
        let coordinator = try Self.coordinator(.sqlite)
        let mine = Self.context(coordinator, .mergeByPropertyObjectTrump)
        let account = try mine.performAndWait {
            let account = Account(context: mine)
            account.email = "ada@example.com"
            account.name = "Ada"
            try mine.save()
            return account
        }
        let id = mine.performAndWait { account.objectID }
        let theirs = Self.context(coordinator, .error)
        try theirs.performAndWait {
            let copy = try #require(try theirs.existingObject(with: id) as? Account)
            copy.region = "eu"
            try theirs.save()
        }
        try mine.performAndWait {
            account.name = "Ada L."
            try mine.save()
            #expect(account.email == "ada@example.com")
            #expect(account.region == "eu")
        }
        let stored = try Self.accounts(coordinator)
        #expect(stored.map(\.email) == ["ada@example.com"], "the email was not lost to the conflict")
    }

    /// Two constraints that share an object: the second conflict's survivor
    /// is chosen among the objects the first did not merge away.
    @Test(arguments: StoreKind.allCases) func conflictsOnTwoConstraintsLoseNoInsertion(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator, .mergeByPropertyObjectTrump)
        try context.performAndWait {
            for (email, handle, name) in [("x@example.com", "h", "A"), ("x@example.com", "k", "B"), ("y@example.com", "k", "C")] {
                let account = Account(context: context)
                account.email = email
                account.region = "eu"
                account.handle = handle
                account.name = name
            }
            try context.save()
        }
        let emails = try Self.accounts(coordinator).compactMap(\.email)
        #expect(emails.contains("y@example.com"), "C's values were merged, not lost with a deleted survivor")
        #expect(Set(emails).count == emails.count)
    }
}
