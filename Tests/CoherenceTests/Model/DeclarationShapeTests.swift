import Coherence
import Foundation
import Testing

/// A class named like a generic parameter (the macros name theirs
/// `__CoherenceRoot`), with a property whose name needs backticks, an
/// implicitly unwrapped optional, initial values computed for each object
/// and relationships declared with their (empty) initial values.
final class Root: ManagedObject {
    @Attribute var `default` = 0
    @Attribute var nickname: String!
    @Attribute var identifier = UUID()
    @Attribute var tags: [String] = []
    @Relationship var leaves: Set<Leaf> = []
}

final class Leaf: ManagedObject {
    @Relationship(inverse: \Root.leaves) var root: Root? = nil
}

/// A required transient attribute declared without an initial value, and a
/// `Double` set by key with an integer.
final class Draft: ManagedObject {
    @Attribute(.transient) var text: String
    @Attribute var amount = 0.0
}

/// The declaration shapes the property macros must expand, compiled and used
/// on every store (the expansion tests check the generated text; these check
/// that it compiles and means what it says).
@Suite("Declaration shapes")
struct DeclarationShapeTests {
    @Test(arguments: StoreKind.allCases) func unusualDeclarationsWork(store kind: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Root.self, Leaf.self]))
        try coordinator.addPersistentStore(try kind.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let first = Root(context: context), second = Root(context: context)
            // `UUID()` is evaluated for each inserted object, a literal once.
            #expect(first.identifier != second.identifier)
            #expect(first.default == 0)
            #expect(first.nickname == nil)
            #expect(first.tags.isEmpty)
            first.default = 3
            first.nickname = "fern"
            first.tags = ["a", "b"]
            let leaf = Leaf(context: context)
            #expect(leaf.root == nil)
            leaf.root = first
            #expect(first.leaves == [leaf])
            try context.save()
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try reader.performAndWait {
            // The backticked property in a key path and a predicate.
            let found = try reader.fetch(FetchRequest<Root>(predicate: #Predicate { $0.default == 3 }))
            #expect(found.count == 1)
            let root = try #require(found.first)
            #expect(root.nickname == "fern")
            #expect(root.tags == ["a", "b"])
            #expect(root.leaves.count == 1)
            let sorted = try reader.fetch(FetchRequest<Root>(sortBy: [SortDescriptor(\.default, order: .reverse)]))
            #expect(sorted.map(\.default) == [3, 0])
            #expect(root.entity.attribute(named: "default")?.defaultValue == .integer(0))
        }
    }

    /// An object made with `init()` reads and writes before it is inserted,
    /// with the entity of the last model built with its class: its initial
    /// values, computed once (a `UUID()` does not change at insertion), and
    /// what was written before the insertion is what is saved.
    @Test func anObjectReadsAndWritesBeforeItIsInserted() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Root.self, Leaf.self]))
        try coordinator.addPersistentStore(try StoreKind.inMemory.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let root = Root()
        #expect(root.default == 0)
        #expect(root.tags.isEmpty)
        let identifier = root.identifier
        root.nickname = "early"
        try context.performAndWait {
            context.insert(root)
            #expect(root.identifier == identifier)
            #expect(root.nickname == "early")
            #expect(root.changedValues()["nickname"] as? String == "early")
            try context.save()
            #expect(root.committedValues(forKeys: ["identifier"])["identifier"] as? UUID == identifier)
        }
    }

    /// A number set by key is stored in the attribute's own form, so that
    /// setting the value it already has changes nothing (Core Data's
    /// key-value coding converts an `NSNumber` to the attribute's type); and
    /// a required transient attribute without an initial value keeps its
    /// value when its context is reset (there is no initial value to put
    /// back).
    @Test func valuesSetByKeyAndClearedTransientsKeepTheirForm() throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Draft.self]))
        try coordinator.addPersistentStore(try StoreKind.inMemory.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let draft = Draft(context: context)
            draft.text = "notes"
            draft.amount = 5
            try context.save()
            draft.setValue(5, forKey: "amount")
            #expect(draft.amount == 5)
            #expect(!draft.hasChanges, "5 set by key equals the 5.0 saved")
            draft.setValue(7, forKey: "amount")
            #expect(draft.changedValues()["amount"] as? Double == 7)
            context.reset()
            #expect(draft.text == "notes")
        }
    }
}
