import Foundation

/// One entity of a model: its class and the attributes and relationships
/// declared on it and its superclasses (``ManagedObjectModel/init(entities:)``)
/// or in a model file (``ManagedObjectModel/init(contentsOf:classes:)``).
///
/// Attributes come first in the entity's property order, relationships after
/// them; snapshots hold one ``StoreValue`` per property in that order.
///
/// A sub-entity (Core Data's `superentity`: a subclass of another listed
/// class, or a model file's `parentEntity`) has the parent's attributes first, at the
/// parent's indexes, then its own, then the parent's relationships, then its
/// own. A parent's relationship therefore sits further along in a sub-entity
/// that adds attributes; `localIndex(_:declaredWithAttributeCount:)`
/// translates.
public final class EntityDescription: Sendable, CustomStringConvertible {
    /// The entity name: the class's ``ManagedObject/entityName``, or the
    /// model file's.
    public let name: String
    /// The class whose instances are this entity's objects.
    public let managedObjectClass: ManagedObject.Type
    /// The parent entity, as Core Data's `NSEntityDescription.superentity`:
    /// a model file's `parentEntity`, or the entity of the nearest
    /// superclass listed in the model; `nil` for a root entity.
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/superentity>
    public let superentity: EntityDescription?
    /// The direct sub-entities, in model order, as Core Data's
    /// `NSEntityDescription.subentities`. An entity lists them while its
    /// model is alive (the model owns them all; a sub-entity owns its parent).
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/subentities>
    public var subentities: [EntityDescription] { _model?.subentities(of: self) ?? [] }
    // Set once, while the model is being built, before anyone can read it.
    @exclusivity(unchecked) nonisolated(unsafe) private weak var _model: ModelEntities?
    /// Whether the entity has sub-entities (set while the model is built).
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var hasSubentities = false

    /// Makes `model` the entities this entity looks its sub-entities up in.
    func belong(to model: ModelEntities) {
        _model = model
    }

    /// Whether the entity is abstract (``ManagedObject/isAbstract``): it has
    /// no objects of its own; inserting one traps.
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/isabstract>
    public let isAbstract: Bool
    /// The topmost entity of this entity's hierarchy (itself when it has no
    /// superentity); the SQLite store keeps a hierarchy in its root's table.
    public var rootEntity: EntityDescription { superentity?.rootEntity ?? self }
    /// Whether the entity has a superentity or sub-entities.
    public var isInHierarchy: Bool { superentity != nil || hasSubentities }
    /// Whether some to-one relationship leads to an entity with
    /// sub-entities (set while the model is built).
    @exclusivity(unchecked) nonisolated(unsafe) var referencesHierarchy = false
    /// The attributes, in declaration order.
    public let attributes: [AttributeDescription]
    /// The relationships, in declaration order.
    public let relationships: [RelationshipDescription]
    /// Whether one of the relationships is ordered.
    let hasOrderedRelationships: Bool
    /// Whether one of the relationships is many-to-many (kept in a join table).
    let hasManyToManyRelationships: Bool
    /// The fetch indexes (``ManagedObject/indexes``): attribute names, in order.
    public let indexes: [[String]]
    /// The entity's previous name, for lightweight migration, as Core
    /// Data's `NSEntityDescription.renamingIdentifier`: the class's
    /// ``ManagedObject/renamingIdentifier``, or a model file's renaming ID.
    /// <https://developer.apple.com/documentation/coredata/nspropertydescription/renamingidentifier>
    public let renamingIdentifier: String?
    /// The previous names of renamed properties, by current name (the
    /// class's ``ManagedObject/propertyRenamingIdentifiers``, or a model
    /// file's renaming IDs).
    public let propertyRenamingIdentifiers: [String: String]
    /// The user info a model file gives the entity, as Core Data's
    /// `NSEntityDescription.userInfo` (empty for a Swift declaration).
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/userinfo>
    public let userInfo: [String: String]
    /// Whether a model file declares the entity: its class names its
    /// properties with `@Managed`, whose key paths the model cannot list, so
    /// a `#Predicate` that reads one is evaluated on objects.
    let isFromModelFile: Bool
    /// The uniqueness constraints (``ManagedObject/uniquenessConstraints``):
    /// attribute names.
    public let uniquenessConstraints: [[String]]
    /// The same, as attribute indexes.
    let constraintIndexes: [[Int]]
    /// The attributes as the per-row paths walk them, in the same order.
    let attributeSlots: [AttributeSlotEntry]
    /// The attributes a store keeps: all but the transient ones, in order.
    let storedAttributes: [AttributeDescription]
    /// Whether some attribute is transient.
    var hasTransientAttributes: Bool { storedAttributes.count != attributes.count }
    /// The property indexes of the entity's own columns, in column order:
    /// the stored attributes, then the to-one relationships. Plain integers,
    /// so that walking them per row retains nothing.
    let columnPropertyIndexes: [Int]
    let indexByName: [String: Int]
    /// The property each key path reaches (rooted at this entity's class or
    /// a superclass that declares the property), by property index.
    private let keyPathIndexes: [SendableKeyPath: Int]
    /// A new object's current values (see `ManagedObject+Values.swift`):
    /// initial values written as literals, `.null` for optional attributes
    /// and empty relationships, no value for required attributes declared
    /// without one. Initial values computed for each object are filled in
    /// at insertion.
    let initialValues: ContiguousArray<StoreValue??>
    /// The attributes whose initial value is computed for each new object.
    let computedInitialValues: [Int]

    /// The `@Derived` properties of this entity.
    let derivations: [DerivationDescription]
    /// Derivations of other entities that this entity's objects feed (as
    /// children of an aggregate, or as the source of a copy).
    let dependentDerivations: [DerivationDescription]
    /// Whether the entity has derived attributes or feeds some: a plain
    /// `Bool`, tested on every write of a new object.
    let hasDerivations: Bool

    init(name: String, managedObjectClass: ManagedObject.Type, attributes: [AttributeDescription],
         relationships: [RelationshipDescription], keyPathIndexes: [SendableKeyPath: Int],
         derivations: [DerivationDescription] = [], dependentDerivations: [DerivationDescription] = [],
         indexes: [[String]] = [], uniquenessConstraints: [[String]] = [],
         superentity: EntityDescription? = nil, isAbstract: Bool = false,
         renamingIdentifier: String? = nil, propertyRenamingIdentifiers: [String: String] = [:], userInfo: [String: String] = [:],
         isFromModelFile: Bool = false) {
        self.isFromModelFile = isFromModelFile
        self.renamingIdentifier = renamingIdentifier
        self.propertyRenamingIdentifiers = propertyRenamingIdentifiers
        self.userInfo = userInfo
        self.superentity = superentity
        self.isAbstract = isAbstract
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
        constraintIndexes = uniquenessConstraints.map { names in
            names.compactMap { name in attributes.firstIndex { $0.name == name } }
        }
        self.derivations = derivations
        self.dependentDerivations = dependentDerivations
        hasDerivations = !derivations.isEmpty || !dependentDerivations.isEmpty
        self.keyPathIndexes = keyPathIndexes
        self.name = name
        self.managedObjectClass = managedObjectClass
        self.attributes = attributes
        self.relationships = relationships
        hasOrderedRelationships = relationships.contains(where: \.isOrdered)
        hasManyToManyRelationships = relationships.contains { $0.isToMany && $0.inverseIsToMany }
        require(attributes.indices.allSatisfy { attributes[$0].index == $0 }, "Coherence: \(name)'s attributes must come first, in order")
        attributeSlots = attributes.map(AttributeSlotEntry.init)
        storedAttributes = attributes.filter { !$0.isTransient }
        columnPropertyIndexes = storedAttributes.map(\.index) + relationships.filter { !$0.isToMany }.map(\.index)
        var byName: [String: Int] = [:]
        for attribute in attributes { byName[attribute.name] = attribute.index }
        for relationship in relationships { byName[relationship.name] = relationship.index }
        indexByName = byName
        initialValues = ContiguousArray(attributes.map { .some($0.defaultValue) }
            + relationships.map { .some($0.emptyValue) })
        computedInitialValues = attributes.filter { $0.makeInitialValue != nil }.map(\.index)
        superentity?.hasSubentities = true
    }

    /// Whether this entity is the one named `name` or a sub-entity of it.
    func isKind(ofEntityNamed name: String) -> Bool {
        var entity: EntityDescription? = self
        while let next = entity {
            if next.name == name { return true }
            entity = next.superentity
        }
        return false
    }

    /// This entity and all of its sub-entities, depth first.
    public var selfAndDescendants: [EntityDescription] {
        [self] + subentities.flatMap(\.selfAndDescendants)
    }

    /// Whether an object of `entity` is one a fetch of this entity returns:
    /// of this very entity or, with `subentities`, of a sub-entity.
    /// **Complexity:** O(1) for an entity without sub-entities.
    @inline(__always)
    func matches(_ entity: EntityDescription?, subentities: Bool = true) -> Bool {
        entity === self || (subentities && hasSubentities && entity?.isKind(of: self) == true)
    }

    /// Whether this entity is `entity` or one of its sub-entities.
    public func isKind(of entity: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The index in this entity of the property at `index` in an ancestor
    /// (or this entity) with `count` attributes: attributes keep their
    /// index, relationships move past the attributes this entity adds.
    @inline(__always)
    func localIndex(_ index: Int, declaredWithAttributeCount count: Int) -> Int {
        index < count ? index : index + attributes.count - count
    }

    /// The inverse of `relationship` (of another entity, or of this one) on
    /// an object of this entity, its destination or a sub-entity of it.
    @inline(__always)
    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        self.relationship(at: localIndex(relationship.inverseIndex, declaredWithAttributeCount: relationship.inverseAttributeCount))
    }

    /// The number of properties (attributes and relationships).
    var propertyCount: Int { attributes.count + relationships.count }

    /// The attribute with this name, if any.
    public func attribute(named name: String) -> AttributeDescription? {
        guard let index = indexByName[name], index < attributes.count else { return nil }
        return attributes[index]
    }

    /// The relationship with this name, if any.
    public func relationship(named name: String) -> RelationshipDescription? {
        guard let index = indexByName[name], index >= attributes.count else { return nil }
        return relationships[index - attributes.count]
    }

    /// The index of the property that `keyPath` (a single-component key path
    /// rooted at this entity's class, or at a superclass that declares the
    /// property) reads, or `nil` for anything else (a computed property).
    /// **Complexity:** O(1).
    func propertyIndex(for keyPath: AnyKeyPath) -> Int? {
        keyPathIndexes[SendableKeyPath(keyPath)]
    }

    /// The Swift type of property `index`.
    func valueType(at index: Int) -> Any.Type {
        if let relationship = relationship(at: index) { return relationship.valueType }
        return attributes[index].valueType
    }

    /// The name of the property at `index`.
    func propertyName(at index: Int) -> String {
        index < attributes.count ? attributes[index].name : relationships[index - attributes.count].name
    }

    /// The relationship at property `index`, if that property is one.
    @inline(__always)
    func relationship(at index: Int) -> RelationshipDescription? {
        index >= attributes.count ? relationships[index - attributes.count] : nil
    }

    /// The default values of a new object, in property order.
    var propertyNames: [String] { attributes.map(\.name) + relationships.map(\.name) }

    public var description: String {
        "\(name) { \((attributes.map(\.description) + relationships.map(\.description)).joined(separator: "; ")) }"
    }
}

/// Whether `type` is `ancestor` or a subclass of it: Swift's own dynamic
/// cast, `type is Ancestor.Type`, with `ancestor` opened as a generic
/// parameter (an existential of a class-and-protocol composition opens to
/// the dynamic class it holds, where a class metatype does not). Classes
/// outside ``ManagedObject``'s hierarchy are related only to themselves.
/// **Complexity:** O(depth of `type`'s class hierarchy), one dynamic cast.
func isSameOrSubclass(_ type: AnyClass, of ancestor: AnyClass) -> Bool {
    if type == ancestor { return true }
    guard let opened = ancestor as? any (ManagedObject & _EntityClass).Type else { return false }
    func isSubclass<Ancestor: ManagedObject & _EntityClass>(of _: Ancestor.Type) -> Bool { type is Ancestor.Type }
    return isSubclass(of: opened)
}

/// A key path as a dictionary key across threads; key paths are immutable.
struct SendableKeyPath: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath

    init(_ keyPath: AnyKeyPath) {
        self.keyPath = keyPath
    }
}
