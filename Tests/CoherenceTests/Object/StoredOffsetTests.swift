@testable import Coherence
import Testing

/// Attribute accessors read the offset of their storage from the key path the
/// compiler passes them (`StoredOffset`); these tests hold that reading to
/// offsets measured directly, and to `nil` for key paths of any other shape.
// Serialized: one test sets the process-wide layout state that another checks.
@Suite("Stored offsets from key paths", .serialized)
struct StoredOffsetTests {
    class Base {
        // `final`, as the storage the compiler makes for a wrapper is: an
        // overridable property is reached through its accessors (see below).
        final var inherited = Attribute<Int64>(wrappedValue: 1)
        var overridable: Int = 0
    }

    final class Derived: Base {
        var own = Attribute<String>(wrappedValue: "")
        var optional = Attribute<Double?>(wrappedValue: nil)
        let constant = 3
        var computed: Int { 0 }
    }

    final class Generic<Element>: Base {
        var elements: [Element] = []
        var own = Attribute<Element?>(wrappedValue: nil)
    }

    struct Plain {
        var field = 0
    }

    /// The offset of a field of `object` at `field`, measured without key paths.
    static func distance<Field>(_ object: AnyObject, _ field: UnsafeMutablePointer<Field>) -> Int {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).distance(to: UnsafeRawPointer(field))
    }

    #if os(Linux)
    @Test func theLayoutCheckPassesOnThisToolchain() {
        // Otherwise every attribute access would take the slower path:
        // correct, but the cost StoredOffset removes would silently return.
        #expect(StoredOffset.layoutIsKnown)
        #expect(StoredOffset.offset(of: \Derived.own) != nil)
        #expect(StoredOffset.layoutState.load(ordering: .relaxed) == 1)
    }
    #endif

    @Test func storedPropertiesOfSubclassesAndGenericClassesReadAsTheirOffsets() {
        let derived = Derived()
        let ownOffset = withUnsafeMutablePointer(to: &derived.own) { Self.distance(derived, $0) }
        let optionalOffset = withUnsafeMutablePointer(to: &derived.optional) { Self.distance(derived, $0) }
        let inheritedOffset = withUnsafeMutablePointer(to: &derived.inherited) { Self.distance(derived, $0) }
        #expect(StoredOffset.read(\Derived.own) == ownOffset)
        #expect(StoredOffset.read(\Derived.optional) == optionalOffset)
        #expect(StoredOffset.read(\Derived.inherited) == inheritedOffset)
        #expect(StoredOffset.read(\Base.inherited) == inheritedOffset)
        #expect(Set([ownOffset, optionalOffset, inheritedOffset]).count == 3)

        let generic = Generic<String>()
        let genericOffset = withUnsafeMutablePointer(to: &generic.own) { Self.distance(generic, $0) }
        #expect(StoredOffset.read(\Generic<String>.own) == genericOffset)
    }

    @Test func keyPathsOfOtherShapesReadAsNil() {
        #expect(StoredOffset.read(\Derived.computed) == nil, "a computed property")
        #expect(StoredOffset.read(\Base.overridable) == nil, "an overridable property is reached through its accessors")
        #expect(StoredOffset.read(\Derived.own.storage) == nil, "two components")
        #expect(StoredOffset.read(\Plain.field) == nil, "a struct's property")
        #expect(StoredOffset.read(\Derived.self) == nil, "no component")
    }

    @Test(arguments: StoreKind.allCases) func everyAttributeWrittenThroughItsAccessorIsReadBackFromItsSlot(store: StoreKind) throws {
        // The accessors write at the offset they read from the key path; the
        // model reads each attribute at the offset it measured when it was
        // built. Both must be the same place for every attribute.
        let context = try TestStack.context(store)
        try context.performAndWait {
            let item = FeedItem(context: context)
            item.title = "a title"
            item.read = true
            let entity = item.entity
            let values = try item._storeValues(entity: entity)
            let title = try #require(entity.attributes.firstIndex { $0.name == "title" })
            let read = try #require(entity.attributes.firstIndex { $0.name == "read" })
            #expect(values[title] == .string("a title"))
            #expect(values[read] == .bool(true))
            try context.save()
            context.refresh(item, mergeChanges: false)
            #expect(item.title == "a title")
            #expect(item.read)
        }
    }

    @Test(arguments: StoreKind.allCases) func withoutTheLayoutAccessorsTakeTheirSlowerPathsAndAgree(store: StoreKind) throws {
        // Where the layout check fails, the getter applies the key path and
        // the setter asks the context's memo: the same values must come back.
        StoredOffset.layoutState.store(2, ordering: .relaxed)
        defer { StoredOffset.layoutState.store(StoredOffset.layoutIsKnown ? 1 : 2, ordering: .relaxed) }
        #expect(StoredOffset.offset(of: \Derived.own) == nil)
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "first"
            let item = FeedItem(context: context)
            item.title = "a title"
            item.server = server
            try context.save()
            item.title = "changed"
            item.read = true
            #expect(item.title == "changed")
            #expect(item.changedValues().keys.sorted() == ["read", "title"])
            try context.save()
            context.refresh(item, mergeChanges: false)
            #expect(item.title == "changed")
            #expect(item.read)
            #expect(server.name == "first")
        }
    }
}
