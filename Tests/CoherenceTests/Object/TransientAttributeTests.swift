import Coherence
import Foundation
import Testing

/// Transient attributes: "properties that you define as part of the model,
/// but which are not saved to the persistent store"; Core Data tracks their
/// changes. `refresh(_:mergeChanges:)`: "If flag is true, this method doesn't
/// affect any transient properties. If flag is false, the object disposes
/// the value of transient properties."
/// https://developer.apple.com/documentation/coredata/nspropertydescription/istransient
/// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/refresh(_:mergechanges:)
/// SwiftData's spelling: `@Attribute(.ephemeral)`.
/// https://developer.apple.com/documentation/swiftdata/schema/attribute/option/ephemeral
@Suite("Transient attributes")
struct TransientAttributeTests {
    final class Note: ManagedObject {
        @Attribute var text = ""
        @Attribute(.transient) var isExpanded = false
        @Attribute(.ephemeral) var draft: String?
        @Attribute(.transient) var score: Int?
        @Attribute var rank = 0
    }

    static func stack(_ store: StoreKind) throws -> (PersistentStoreCoordinator, PersistentStoreDescription) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Note.self]))
        let description = try store.makeDescription()
        try coordinator.addPersistentStore(description)
        return (coordinator, description)
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    @Test func theModelMarksTransientAttributes() throws {
        let entity = try #require(try ManagedObjectModel(entities: [Note.self]).entitiesByName["Note"])
        let transient = entity.attributes.filter(\.isTransient).map(\.name)
        #expect(transient == ["isExpanded", "draft", "score"])
        #expect(entity.attribute(named: "text")?.isTransient == false)
        #expect(entity.attribute(named: "draft")?.isOptional == true)
    }

    @Test func objectsMadeOutsideTheModelKeepTheirInitialValues() throws {
        _ = try ManagedObjectModel(entities: [Note.self])
        let note = Note()
        let context = Self.context(try Self.stack(.inMemory).0)
        context.performAndWait {
            context.insert(note)
            #expect(note.isExpanded == false)
            #expect(note.draft == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aTransientValueIsNeverStored(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let writer = Self.context(coordinator)
        try writer.performAndWait {
            let note = Note(context: writer)
            note.text = "kept"
            note.isExpanded = true
            note.draft = "unsent"
            note.score = 7
            try writer.save()
            #expect(note.isExpanded, "the saving context keeps its value")
            #expect(note.draft == "unsent")
        }
        let reader = Self.context(coordinator)
        try reader.performAndWait {
            let notes = try reader.fetch(FetchRequest<Note>())
            #expect(notes.map(\.text) == ["kept"])
            #expect(notes.map(\.isExpanded) == [false], "another context loads the initial value")
            #expect(notes.map(\.draft) == [nil])
            #expect(notes.map(\.score) == [nil])
        }
    }

    @Test func aTransientAttributeHasNoColumnAndAddingOneNeedsNoMigration() throws {
        final class Plain: ManagedObject {
            @Attribute var text = ""
        }
        final class Annotated: ManagedObject {
            override class var entityName: String { "Plain" }
            @Attribute var text = ""
            @Attribute(.transient) var isSelected = false
        }
        let url = TestFiles.newURL("transient.sqlite")
        let first = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Plain.self]))
        try first.addPersistentStore(.sqlite(url))
        let context = Self.context(first)
        try context.performAndWait {
            Plain(context: context).text = "a"
            try context.save()
        }
        let second = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Annotated.self]))
        try second.addPersistentStore(.sqlite(url))
        let reader = Self.context(second)
        try reader.performAndWait {
            let rows = try reader.fetch(FetchRequest<Annotated>())
            #expect(rows.map(\.text) == ["a"])
            rows[0].isSelected = true
            try reader.save()
            #expect(try reader.fetchDictionaries(FetchRequest<Annotated>(), propertiesToFetch: ["text"]).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func aChangeIsTrackedAnnouncedAndUndone(store: StoreKind) async throws {
        let (coordinator, _) = try Self.stack(store)
        let context = Self.context(coordinator)
        let note = try context.performAndWait {
            let note = Note(context: context)
            try context.save()
            return note
        }
        let announced = NotificationWaiter(ManagedObjectContext.didChangeObjectsNotification, object: context)
        context.performAndWait {
            note.isExpanded = true
            #expect(context.hasChanges)
            #expect(context.updatedObjects == [note])
            // "This method only reports changes to properties that are
            // persistent properties of the receiver, not changes to transient
            // properties" (NSManagedObject.changedValues()).
            #expect(note.changedValues().isEmpty)
            #expect(note.isUpdated)
            context.processPendingChanges()
        }
        let updated = try #require(announced.notifications.last?.userInfo?[ManagedObjectContext.NotificationKey.updatedObjects.rawValue] as? Set<ManagedObject>)
        #expect(updated == [note])
        context.performAndWait {
            context.rollback()
            #expect(note.isExpanded == false, "rollback restores the committed value")
            #expect(!context.hasChanges)
        }
    }

    /// Apple, `didTurnIntoFault()`: "transient values declared as entity
    /// properties are typically already cleared out" when an object becomes
    /// a fault; refreshing an unchanged object turns it into one, whatever
    /// `mergeChanges` says, and so does `refreshAllObjects()`. A changed
    /// object refreshed with `mergeChanges: true` keeps its changes,
    /// transient ones included. (CoreDataPlus's
    /// `test_InvestigationTransientProperties`, run on Core Data, reads 0
    /// after `refreshAllObjects()` and after `reset()`.)
    /// https://developer.apple.com/documentation/coredata/nsmanagedobject/didturnintofault()
    @Test(arguments: StoreKind.allCases) func refreshKeepsTransientValuesOnlyOfChangedObjectsWhenMerging(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let context = Self.context(coordinator)
        try context.performAndWait {
            let note = Note(context: context)
            note.isExpanded = true
            try context.save()
            #expect(note.isExpanded, "saved: committed in this context")

            context.refresh(note, mergeChanges: true)
            #expect(note.isExpanded == false, "an unchanged object became a fault, which cleared it")
            note.isExpanded = true
            note.score = 3
            note.text = "changed"
            context.refresh(note, mergeChanges: true)
            #expect(note.score == 3 && note.isExpanded && note.text == "changed")
            context.rollback()
            #expect(note.score == nil, "rollback goes back to the committed value")
            #expect(note.isExpanded == false, "which for isExpanded is the initial one")

            note.isExpanded = true
            context.refresh(note, mergeChanges: false)
            #expect(note.isExpanded == false, "mergeChanges: false disposes of transient values")

            note.isExpanded = true
            try context.save()
            context.refreshAllObjects()
            #expect(note.isExpanded == false, "refreshAllObjects turns the unchanged object into a fault")
            note.isExpanded = true
            context.reset()
            #expect(note.isExpanded == false, "an invalidated object's transient values are gone")
        }
    }

    /// A child context's save hands its transient values to the parent,
    /// as Core Data's does (CoreDataPlus's
    /// test_InvestigationTransientPropertiesBehaviorInParentChildContextRelationship),
    /// also when a transient attribute is all the child changed.
    @Test(arguments: StoreKind.allCases) func aChildSavesItsTransientValuesIntoItsParent(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let parent = Self.context(coordinator)
        let id = try parent.performAndWait {
            let note = Note(context: parent)
            note.text = "saved"
            try parent.save()
            return note.objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let note = try #require(child.existingObject(with: id) as? Note)
            note.isExpanded = true
            note.score = 20
            try child.save()
        }
        try parent.performAndWait {
            let note = try #require(parent.registeredObject(for: id) as? Note)
            #expect(note.isExpanded && note.score == 20 && note.text == "saved")
        }
    }

    @Test(arguments: StoreKind.allCases) func mergingAnotherContextsSaveKeepsTransientValues(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let view = Self.context(coordinator)
        let kept = try view.performAndWait {
            let note = Note(context: view)
            try view.save()
            note.isExpanded = true
            try view.save()
            return note
        }
        let id = view.performAndWait { kept.objectID }
        let background = Self.context(coordinator)
        let saved = try background.performAndWait {
            let note = try #require(background.existingObject(with: id) as? Note)
            note.text = "edited elsewhere"
            let recorder = NotificationWaiter(ManagedObjectContext.didSaveObjectsNotification, object: background)
            try background.save()
            return try #require(recorder.notifications.last)
        }
        try view.performAndWait {
            view.mergeChanges(fromContextDidSave: saved)
            let note = try #require(view.registeredObject(for: id) as? Note)
            #expect(note.text == "edited elsewhere")
            #expect(note.isExpanded, "the merge refreshes with mergeChanges: true")
            #expect(note === kept)
        }
    }

    @Test(arguments: StoreKind.allCases) func fetchesFilterInMemoryAndSortByTransientValues(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let context = Self.context(coordinator)
        try context.performAndWait {
            for (text, score) in [("b", 2), ("a", 1), ("c", 3)] {
                let note = Note(context: context)
                note.text = text
                note.score = score
            }
            try context.save()
            let request = FetchRequest<Note>(predicate: #Predicate { $0.isExpanded == true })
            if store != .inMemory {
                #expect(throws: FetchError.self) { try context.fetch(request) }
            }
            request.evaluatesPredicateInMemory = true
            #expect(try context.fetch(request).isEmpty)
            let formatted = FetchRequest<Note>(predicate: Predicate<Note>(format: "score > 1"))
            if store != .inMemory {
                #expect(throws: FetchError.self) { try context.fetch(formatted) }
            }
            formatted.evaluatesPredicateInMemory = true
            #expect(try context.fetch(formatted).map(\.text).sorted() == ["b", "c"], "the context's own transient values")
            let sorted = try context.fetch(FetchRequest<Note>(sortBy: [SortDescriptor(\.score)]))
            #expect(sorted.map(\.text) == ["a", "b", "c"])
        }
    }

    @Test(arguments: StoreKind.allCases) func batchRequestsRefuseTransientAttributes(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let context = Self.context(coordinator)
        context.performAndWait {
            #expect(throws: ContextError.transientProperty(entity: "Note", property: "isExpanded")) {
                try context.execute(BatchUpdateRequest<Note>(propertiesToUpdate: ["isExpanded": true]))
            }
            #expect(throws: ContextError.transientProperty(entity: "Note", property: "draft")) {
                try context.execute(BatchInsertRequest<Note>(objects: [["text": "x", "draft": "y"]]))
            }
            #expect(throws: ContextError.transientProperty(entity: "Note", property: "score")) {
                try context.fetchDictionaries(FetchRequest<Note>(), propertiesToFetch: ["text", "score"])
            }
            #expect(throws: ContextError.transientProperty(entity: "Note", property: "score")) {
                try context.fetchDictionaries(FetchRequest<Note>(), propertiesToFetch: [.expression(
                    ExpressionDescription(name: "total", expression: .sum("score"), resultType: .integer64))])
            }
        }
    }
    /// A save that meets a row changed elsewhere resolves the conflict by
    /// property; transient values are the context's own and stay.
    @Test(arguments: StoreKind.allCases) func conflictResolutionKeepsTransientValues(store: StoreKind) throws {
        let (coordinator, _) = try Self.stack(store)
        let mine = Self.context(coordinator)
        mine.mergePolicy = .mergeByPropertyObjectTrump
        let note = try mine.performAndWait {
            let note = Note(context: mine)
            note.text = "first"
            try mine.save()
            return note
        }
        let id = mine.performAndWait { note.objectID }
        let theirs = Self.context(coordinator)
        try theirs.performAndWait {
            let copy = try #require(try theirs.existingObject(with: id) as? Note)
            copy.rank = 7
            try theirs.save()
        }
        try mine.performAndWait {
            note.isExpanded = true
            note.text = "second"
            try mine.save()
            #expect(note.isExpanded, "the transient value survives the resolution")
            #expect(note.rank == 7 && note.text == "second")
            mine.rollback()
            #expect(note.isExpanded, "and is the committed one")
        }
    }

    @Test func aDerivationCannotReadATransientAttribute() throws {
        final class Shelf: ManagedObject {
            @Relationship(inverse: \Box.shelf) var boxes: Set<Box>
            @Derived(sum: \Shelf.boxes, of: \Box.weight) var weight: Int
        }
        final class Box: ManagedObject {
            @Attribute(.transient) var weight = 0
            @Relationship var shelf: Shelf?
        }
        #expect(throws: ModelError.self) { try ManagedObjectModel(entities: [Shelf.self, Box.self]) }
    }
}
