/// Declares a relationship of a ``ManagedObject`` subclass: to-one as an
/// optional (`Server?`), to-many as a set (`Set<FeedItem>`).
///
/// ```swift
/// final class Server: ManagedObject {
///     @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
///     var feedItems: Set<FeedItem>
/// }
/// final class FeedItem: ManagedObject {
///     @Relationship var server: Server?
/// }
/// ```
///
/// Every relationship has an inverse, declared on one side (or on both, if
/// they agree). SwiftData's argument order,
/// `@Relationship(deleteRule: .cascade, inverse: \FeedItem.server)`, is
/// accepted too. Setting either side updates the other at once; deleting an
/// object applies its ``DeleteRule`` in
/// ``ManagedObjectContext/processPendingChanges()``.
///
/// The object keeps the destinations' object IDs, not the objects, so related
/// objects never form retain cycles. **Complexity:** reading a to-one is O(1);
/// reading a to-many of n objects is O(n); setting a to-many costs O(n + m)
/// for n old and m new destinations.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
    /// The destination IDs.
    var storage: RelationshipStorage = .empty
    let inverse: AnyKeyPath?
    let deleteRule: DeleteRule

    /// A relationship whose inverse is declared on the destination side.
    public init(deleteRule: DeleteRule = .nullify) {
        inverse = nil
        self.deleteRule = deleteRule
    }

    /// A relationship with its inverse, for example `\FeedItem.server`.
    public init<Destination: ManagedObject, Inverse: RelationshipValue>(
        inverse: KeyPath<Destination, Inverse>, deleteRule: DeleteRule = .nullify
    ) {
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// A relationship with its inverse, in SwiftData's argument order:
    /// `@Relationship(deleteRule: .cascade, inverse: \FeedItem.server)`.
    public init<Destination: ManagedObject, Inverse: RelationshipValue>(
        deleteRule: DeleteRule, inverse: KeyPath<Destination, Inverse>
    ) {
        self.init(inverse: inverse, deleteRule: deleteRule)
    }

    /// Accepts the empty initial value `nil` or `[]`; relationships start empty.
    public init(wrappedValue: Value, deleteRule: DeleteRule = .nullify) {
        require(wrappedValue._relatedObjects.isEmpty, "a relationship's initial value must be empty (nil or [])")
        self.init(deleteRule: deleteRule)
    }

    /// Accepts the empty initial value `nil` or `[]`; relationships start empty.
    public init<Destination: ManagedObject, Inverse: RelationshipValue>(
        wrappedValue: Value, inverse: KeyPath<Destination, Inverse>, deleteRule: DeleteRule = .nullify
    ) {
        require(wrappedValue._relatedObjects.isEmpty, "a relationship's initial value must be empty (nil or [])")
        self.init(inverse: inverse, deleteRule: deleteRule)
    }

    /// Accepts the empty initial value `nil` or `[]`, in SwiftData's
    /// argument order.
    public init<Destination: ManagedObject, Inverse: RelationshipValue>(
        wrappedValue: Value, deleteRule: DeleteRule, inverse: KeyPath<Destination, Inverse>
    ) {
        self.init(wrappedValue: wrappedValue, inverse: inverse, deleteRule: deleteRule)
    }

    @available(*, unavailable, message: "@Relationship is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Relationship is only available on properties of ManagedObject subclasses") }
        set { fatalError("@Relationship is only available on properties of ManagedObject subclasses") }
    }

    /// Accessor used by Swift for properties of classes.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value {
        get {
            if object._needsAccessCheck {
                object._prepareForRead { fieldOffset(of: storageKeyPath, in: object) }
                object._observeRead(object, wrappedKeyPath)
            }
            let storage = object[keyPath: storageKeyPath].storage
            return Value._makeValue(object._resolve(storage) { fieldOffset(of: storageKeyPath, in: object) })
        }
        set {
            object._observeWrite(object, wrappedKeyPath) {
                object._setRelationship(offset: fieldOffset(of: storageKeyPath, in: object), to: newValue._relatedObjects)
            }
        }
    }
}

/// The destination IDs a relationship holds inside its object.
enum RelationshipStorage {
    case empty
    case one(ManagedObjectID)
    case many(Set<ManagedObjectID>)
    /// A to-many relationship not loaded from the store yet.
    case fault

    /// The destination IDs, or `nil` for a to-many fault (load it first).
    var loadedIDs: Set<ManagedObjectID>? {
        switch self {
        case .empty: []
        case .one(let id): [id]
        case .many(let ids): ids
        case .fault: nil
        }
    }

    init(storeValue: StoreValue, isToMany: Bool) {
        if case .toManyFault = storeValue {
            self = .fault
        } else {
            self.init(ids: storeValue.referencedIDs, isToMany: isToMany)
        }
    }

    init(ids: Set<ManagedObjectID>, isToMany: Bool) {
        if isToMany {
            self = ids.isEmpty ? .empty : .many(ids)
        } else {
            self = ids.first.map { .one($0) } ?? .empty
        }
    }

    func storeValue(isToMany: Bool) -> StoreValue {
        switch self {
        case .empty: isToMany ? .objectIDs([]) : .null
        case .one(let id): isToMany ? .objectIDs([id]) : .objectID(id)
        case .many(let ids): isToMany ? .objectIDs(ids) : (ids.first.map { .objectID($0) } ?? .null)
        case .fault: .toManyFault
        }
    }
}

/// The Swift types a ``Relationship`` can have: `Destination?` for to-one and
/// `Set<Destination>` for to-many, where `Destination` is a ``ManagedObject``
/// subclass. The requirements are Coherence's, not for your own types.
public protocol RelationshipValue: SendableMetatype {
    /// The destination class.
    static var _destinationType: ManagedObject.Type { get }
    /// `true` for to-many.
    static var _isToMany: Bool { get }
    /// Builds the value from the related objects.
    static func _makeValue(_ objects: [ManagedObject]) -> Self
    /// The related objects in this value.
    var _relatedObjects: [ManagedObject] { get }
    /// `\.count` of a to-many value and of its filtered array, as predicates use them.
    static var _countKeyPaths: [AnyKeyPath] { get }
    /// `\.isEmpty` of a to-many value and of its filtered array.
    static var _isEmptyKeyPaths: [AnyKeyPath] { get }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    public static var _destinationType: ManagedObject.Type { Wrapped.self }
    public static var _isToMany: Bool { false }
    public static func _makeValue(_ objects: [ManagedObject]) -> Self {
        objects.first.map { $0 as! Wrapped }
    }
    public var _relatedObjects: [ManagedObject] { self.map { [$0] } ?? [] }
    public static var _countKeyPaths: [AnyKeyPath] { [] }
    public static var _isEmptyKeyPaths: [AnyKeyPath] { [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public static var _destinationType: ManagedObject.Type { Element.self }
    public static var _isToMany: Bool { true }
    public static func _makeValue(_ objects: [ManagedObject]) -> Self {
        Set(objects.map { $0 as! Element })
    }
    public var _relatedObjects: [ManagedObject] { map { $0 } }
    public static var _countKeyPaths: [AnyKeyPath] { countKeyPaths(Element.self) }
    public static var _isEmptyKeyPaths: [AnyKeyPath] { isEmptyKeyPaths(Element.self) }
}

// Outside the conditional extension: forming these key paths inside it
// crashes the Swift 6.3 compiler.
private func countKeyPaths<Element: Hashable>(_: Element.Type) -> [AnyKeyPath] { [\Set<Element>.count, \[Element].count] }
private func isEmptyKeyPaths<Element: Hashable>(_: Element.Type) -> [AnyKeyPath] { [\Set<Element>.isEmpty, \[Element].isEmpty] }
