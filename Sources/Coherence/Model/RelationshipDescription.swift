/// One relationship of an entity, discovered from a ``Relationship`` property.
public final class RelationshipDescription: Sendable, CustomStringConvertible {
    /// The property name, as written in Swift.
    public let name: String
    /// The name of the destination entity.
    public let destinationEntityName: String
    /// The name of the inverse relationship on the destination entity.
    public let inverseName: String
    /// `true` for a to-many relationship (`Set<Destination>`).
    public let isToMany: Bool
    /// `true` when the inverse is to-many (many-to-many, or to-one with a to-many inverse).
    public let inverseIsToMany: Bool
    /// What deleting the source object does to the destination objects.
    public let deleteRule: DeleteRule
    /// The position of this property in the entity's snapshots.
    let index: Int
    /// The position of the inverse in the destination entity's snapshots.
    let inverseIndex: Int
    /// The destination entity's number of attributes: a sub-entity of the
    /// destination holds the inverse further along when it adds attributes
    /// (see ``EntityDescription/inverse(of:)``).
    let inverseAttributeCount: Int
    let destinationType: ManagedObject.Type
    /// Whether the destination entity has sub-entities, so that a
    /// destination's ID must name its concrete entity (set while the model
    /// is built, before anyone reads it).
    @exclusivity(unchecked) nonisolated(unsafe) var destinationHasSubentities = false
    /// The root entity of the destination's hierarchy (the destination
    /// itself without a superentity): the SQLite table its rows are in.
    @exclusivity(unchecked) nonisolated(unsafe) var destinationRootEntityName = ""
    let access: any RelationshipAccess
    /// The Swift type: `Destination?` or `Set<Destination>`.
    let valueType: any RelationshipValue.Type

    init(name: String, index: Int, valueType: any RelationshipValue.Type, destinationType: ManagedObject.Type, destinationEntityName: String,
         inverseName: String, inverseIndex: Int, inverseAttributeCount: Int, isToMany: Bool, inverseIsToMany: Bool, deleteRule: DeleteRule,
         access: any RelationshipAccess) {
        self.inverseAttributeCount = inverseAttributeCount
        self.name = name
        self.index = index
        self.valueType = valueType
        self.destinationType = destinationType
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.inverseIndex = inverseIndex
        self.isToMany = isToMany
        self.inverseIsToMany = inverseIsToMany
        self.deleteRule = deleteRule
        self.access = access
    }

    public var description: String {
        "\(name): \(isToMany ? "Set<\(destinationEntityName)>" : "\(destinationEntityName)?") (inverse \(inverseName), \(deleteRule))"
    }
}

/// Reads and writes one relationship's destination IDs inside objects.
protocol RelationshipAccess: Sendable {
    func storage(of object: ManagedObject) -> RelationshipStorage
    func setStorage(_ storage: RelationshipStorage, of object: ManagedObject)
}

/// The ``RelationshipAccess`` of a `Relationship<Value>` at a byte offset.
struct RelationshipSlot<Value: RelationshipValue>: RelationshipAccess {
    let offset: Int

    @inline(__always)
    private func pointer(_ object: ManagedObject) -> UnsafeMutablePointer<Relationship<Value>> {
        UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            .advanced(by: offset)
            .assumingMemoryBound(to: Relationship<Value>.self)
    }

    func storage(of object: ManagedObject) -> RelationshipStorage {
        pointer(object).pointee.storage
    }

    func setStorage(_ storage: RelationshipStorage, of object: ManagedObject) {
        pointer(object).pointee.storage = storage
    }
}

/// What the model learns from one `@Relationship` field before inverses are resolved.
struct DeclaredRelationship {
    let name: String
    let valueType: any RelationshipValue.Type
    let offset: Int
    let destinationType: ManagedObject.Type
    let isToMany: Bool
    let deleteRule: DeleteRule
    let inverse: AnyKeyPath?
    let access: any RelationshipAccess
}

/// Implemented by ``Relationship`` so the model can describe its fields.
protocol RelationshipWrapper {
    static func declare(name: String, offset: Int, prototype: ManagedObject) -> DeclaredRelationship
}

extension Relationship: RelationshipWrapper {
    static func declare(name: String, offset: Int, prototype: ManagedObject) -> DeclaredRelationship {
        let wrapper = UnsafeRawPointer(Unmanaged.passUnretained(prototype).toOpaque())
            .advanced(by: offset)
            .assumingMemoryBound(to: Relationship<Value>.self)
            .pointee
        return DeclaredRelationship(
            name: name, valueType: Value.self, offset: offset, destinationType: Value._destinationType, isToMany: Value._isToMany,
            deleteRule: wrapper.deleteRule, inverse: wrapper.inverse, access: RelationshipSlot<Value>(offset: offset)
        )
    }
}
