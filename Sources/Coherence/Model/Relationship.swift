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
/// Every relationship has an inverse, declared on one side only (naming it
/// on both sides makes Swift report a circular reference between the two
/// macros, as with SwiftData); the model finds the other side. SwiftData's argument order,
/// `@Relationship(deleteRule: .cascade, inverse: \FeedItem.server)`, is
/// accepted too. Setting either side updates the other at once; deleting an
/// object applies its ``DeleteRule`` in
/// ``ManagedObjectContext/processPendingChanges()``.
///
/// The object keeps the destinations' object IDs, not the objects, so related
/// objects never form retain cycles. **Complexity:** reading a to-one is O(1);
/// reading a to-many of n objects is O(n); setting a to-many costs O(n + m)
/// for n old and m new destinations.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Relationship(deleteRule: DeleteRule = .nullify) = #externalMacro(module: "CoherenceMacros", type: "RelationshipMacro")

/// A relationship with its inverse, for example `\FeedItem.server`.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Relationship<Destination: ManagedObject, Inverse: RelationshipValue>(
    inverse: KeyPath<Destination, Inverse>, deleteRule: DeleteRule = .nullify
) = #externalMacro(module: "CoherenceMacros", type: "RelationshipMacro")

/// A relationship with its inverse, in SwiftData's argument order:
/// `@Relationship(deleteRule: .cascade, inverse: \FeedItem.server)`.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(__Coherence_))
public macro Relationship<Destination: ManagedObject, Inverse: RelationshipValue>(
    deleteRule: DeleteRule, inverse: KeyPath<Destination, Inverse>
) = #externalMacro(module: "CoherenceMacros", type: "RelationshipMacro")

/// A `@Relationship`'s declaration: what the macro generates for each
/// relationship, as static data. Not for your code;
/// ``RelationshipDescription`` describes relationships.
public final class RelationshipDeclaration<Value: RelationshipValue>: PropertyDeclaration, @unchecked Sendable {
    // @unchecked: immutable; the key path is immutable too.

    /// The inverse named here, if any.
    let inverse: AnyKeyPath?
    /// What deleting the object does to its destinations.
    let deleteRule: DeleteRule

    /// A relationship whose inverse is declared on the destination side.
    public init(deleteRule: DeleteRule = .nullify, name: String) {
        inverse = nil
        self.deleteRule = deleteRule
        super.init(name: name)
    }

    /// A relationship with its inverse.
    public init<Destination: ManagedObject, Inverse: RelationshipValue>(
        inverse: KeyPath<Destination, Inverse>, deleteRule: DeleteRule = .nullify, name: String
    ) {
        self.inverse = inverse
        self.deleteRule = deleteRule
        super.init(name: name)
    }

    /// A relationship with its inverse, in SwiftData's argument order.
    public init<Destination: ManagedObject, Inverse: RelationshipValue>(
        deleteRule: DeleteRule, inverse: KeyPath<Destination, Inverse>, name: String
    ) {
        self.inverse = inverse
        self.deleteRule = deleteRule
        super.init(name: name)
    }
}

/// The destination IDs a relationship holds inside its object.
enum RelationshipStorage {
    case empty
    case one(ManagedObjectID)
    case many(Set<ManagedObjectID>)
    /// An ordered to-many relationship's destinations, in order.
    case ordered([ManagedObjectID])
    /// A to-many relationship not loaded from the store yet.
    case fault

    /// The destination IDs, or `nil` for a to-many fault (load it first).
    var loadedIDs: Set<ManagedObjectID>? {
        switch self {
        case .empty: []
        case .one(let id): [id]
        case .many(let ids): ids
        case .ordered(let ids): Set(ids)
        case .fault: nil
        }
    }

    /// The destination IDs, in order for an ordered relationship; `nil`
    /// for a to-many fault.
    var loadedIDList: [ManagedObjectID]? {
        switch self {
        case .ordered(let ids): ids
        case .fault: nil
        default: loadedIDs.map(Array.init)
        }
    }

    init(storeValue: StoreValue, isToMany: Bool) {
        switch storeValue {
        case .toManyFault: self = .fault
        case .orderedObjectIDs(let ids): self = .ordered(ids)
        default: self.init(ids: storeValue.referencedIDs, isToMany: isToMany)
        }
    }

    init(ids: Set<ManagedObjectID>, isToMany: Bool) {
        if isToMany {
            self = ids.isEmpty ? .empty : .many(ids)
        } else {
            self = ids.first.map { .one($0) } ?? .empty
        }
    }

    /// The value in store form for `relationship`.
    func storeValue(for relationship: RelationshipDescription) -> StoreValue {
        if case .fault = self { return .toManyFault }
        if relationship.isOrdered { return .orderedObjectIDs(loadedIDList ?? []) }
        let isToMany = relationship.isToMany
        switch self {
        case .empty: return isToMany ? .objectIDs([]) : .null
        case .one(let id): return isToMany ? .objectIDs([id]) : .objectID(id)
        case .many(let ids): return isToMany ? .objectIDs(ids) : (ids.first.map { .objectID($0) } ?? .null)
        case .ordered(let ids): return isToMany ? .objectIDs(Set(ids)) : (ids.first.map { .objectID($0) } ?? .null)
        case .fault: return .toManyFault
        }
    }
}

/// The Swift types a `@Relationship` can have: `Destination?` for to-one and
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
