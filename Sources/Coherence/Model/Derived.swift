import Foundation

/// Declares an attribute whose value is derived from related objects and
/// kept current by the context at every change — the seed article's "unread
/// count" as a declaration:
///
/// ```swift
/// final class Server: ManagedObject {
///     @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
///     var feedItems: Set<FeedItem>
///     @Derived(count: \Server.feedItems, where: #Predicate<FeedItem> { $0.read == false })
///     var unreadCount: Int
///     @Derived(sum: \Server.feedItems, of: \FeedItem.size) var totalSize: Int
///     @Derived(\Server.owner, \Owner.name) var ownerName: String?
/// }
/// ```
///
/// Aggregates (`count`, `sum`, `min`, `max`, `average`, each with an
/// optional predicate on the child) follow a to-many relationship whose
/// inverse is to-one; a copy follows a to-one relationship. The value is
/// stored in the object's row (fetches can filter and sort on it), is current
/// after every `processPendingChanges()` — so before any save — and after
/// merges, nested saves, rollback, refresh, reset and merged batch requests,
/// and a change of it is reported as an update of the object.
///
/// **Complexity:** a changed child costs O(1) for `count` and `sum`,
/// O(log n) for `min`, `max` and `average` once the parent's n children
/// were read (the first change of a parent in a context reads them); a
/// copied value costs O(objects that copy it). Derived properties are read-only.
@propertyWrapper
public struct Derived<Value> {
    var storage: Value?
    let declaration: DerivationDeclaration

    /// The number of objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject>(
        count relationship: KeyPath<Parent, Set<Child>> & Sendable, where predicate: Predicate<Child>? = nil
    ) where Value == Int {
        storage = 0
        declaration = DerivationDeclaration(kind: .count, relationship: relationship, attribute: nil, predicate: predicate)
    }

    /// The sum of `attribute` over the objects in `relationship` that match `predicate`.
    public init<Parent: ManagedObject, Child: ManagedObject>(
        sum relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Value> & Sendable,
        where predicate: Predicate<Child>? = nil
    ) where Value: AttributeValue & AdditiveArithmetic {
        storage = .zero
        declaration = DerivationDeclaration(kind: .sum, relationship: relationship, attribute: attribute, predicate: predicate)
    }

    /// The smallest `attribute` among the matching objects, `nil` when none.
    public init<Parent: ManagedObject, Child: ManagedObject, Element: AttributeValue & Comparable>(
        min relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Element> & Sendable,
        where predicate: Predicate<Child>? = nil
    ) where Value == Element? {
        storage = .some(nil)
        declaration = DerivationDeclaration(kind: .min, relationship: relationship, attribute: attribute, predicate: predicate)
    }

    /// The largest `attribute` among the matching objects, `nil` when none.
    public init<Parent: ManagedObject, Child: ManagedObject, Element: AttributeValue & Comparable>(
        max relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Element> & Sendable,
        where predicate: Predicate<Child>? = nil
    ) where Value == Element? {
        storage = .some(nil)
        declaration = DerivationDeclaration(kind: .max, relationship: relationship, attribute: attribute, predicate: predicate)
    }

    /// The mean of `attribute` over the matching objects, `nil` when none.
    public init<Parent: ManagedObject, Child: ManagedObject, Number: AttributeValue & Numeric>(
        average relationship: KeyPath<Parent, Set<Child>> & Sendable, of attribute: KeyPath<Child, Number> & Sendable,
        where predicate: Predicate<Child>? = nil
    ) where Value == Double? {
        storage = .some(nil)
        declaration = DerivationDeclaration(kind: .average, relationship: relationship, attribute: attribute, predicate: predicate)
    }

    /// `attribute` of the object at the end of the to-one `relationship`,
    /// `nil` when there is none.
    public init<Parent: ManagedObject, Destination: ManagedObject, Copied: AttributeValue>(
        _ relationship: KeyPath<Parent, Destination?> & Sendable, _ attribute: KeyPath<Destination, Copied> & Sendable
    ) where Value == Copied? {
        storage = .some(nil)
        declaration = DerivationDeclaration(kind: .copy, relationship: relationship, attribute: attribute, predicate: Predicate<Destination>?.none)
    }

    @available(*, unavailable, message: "@Derived is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Derived is only available on properties of ManagedObject subclasses") }
    }

    /// Accessor used by Swift for properties of classes; read-only.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: KeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Derived<Value>>
    ) -> Value {
        if object._needsAccessCheck {
            object._prepareForRead { fieldOffset(of: storageKeyPath, in: object) }
            object._observeRead(object, wrappedKeyPath)
        }
        return object[keyPath: storageKeyPath].storage!
    }
}

/// What a ``Derived`` property derives.
enum DerivationKind: Sendable, Hashable {
    case count, sum, min, max, average, copy
}

/// A ``Derived`` property's declaration, as the model reads it.
struct DerivationDeclaration: @unchecked Sendable {
    let kind: DerivationKind
    let relationship: AnyKeyPath
    let attribute: AnyKeyPath?
    /// Evaluates the predicate on a child (true without a predicate).
    let matches: @Sendable (ManagedObject) throws -> Bool
    /// The predicate for SQL (batch requests recompute in the store).
    let expression: (any StandardPredicateExpression<Bool>)?
    let variable: PredicateExpressions.VariableID?

    init<Child: ManagedObject>(kind: DerivationKind, relationship: AnyKeyPath, attribute: AnyKeyPath?, predicate: Predicate<Child>?) {
        self.kind = kind
        self.relationship = relationship
        self.attribute = attribute
        expression = predicate?.expression
        variable = predicate?.variable.key
        if let predicate {
            matches = { object in
                guard let child = object as? Child else { return false }
                return try predicate.evaluate(child)
            }
        } else {
            matches = { _ in true }
        }
    }
}

/// Implemented by ``Derived`` so the model can describe its fields.
protocol DerivedWrapper {
    static func describe(name: String, entity: String, index: Int, offset: Int, prototype: ManagedObject)
        throws(ModelError) -> (AttributeDescription, DerivationDeclaration)
}

extension Derived: DerivedWrapper {
    static func describe(name: String, entity: String, index: Int, offset: Int, prototype: ManagedObject)
        throws(ModelError) -> (AttributeDescription, DerivationDeclaration) {
        guard let codec = ValueCodec<Value>.make() else {
            throw .unsupportedAttributeType(entity: entity, property: name, type: String(reflecting: Value.self))
        }
        let slot = AttributeSlot<Derived<Value>>(offset: offset, codec: codec)
        let wrapper = UnsafeRawPointer(Unmanaged.passUnretained(prototype).toOpaque())
            .advanced(by: offset).assumingMemoryBound(to: Derived<Value>.self).pointee
        let defaultValue = try? slot.storeValue(of: prototype)
        let attribute = AttributeDescription(name: name, index: index, attributeType: codec.attributeType,
                                             isOptional: codec.isOptional, defaultValue: defaultValue, access: slot,
                                             storageOffset: offset + MemoryLayout<Derived<Value>>.offset(of: \.storage)!,
                                             isDerived: true)
        return (attribute, wrapper.declaration)
    }
}
