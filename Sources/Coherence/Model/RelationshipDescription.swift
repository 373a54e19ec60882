/// One relationship of an entity, discovered from a `@Relationship` property.
public final class RelationshipDescription: Sendable, CustomStringConvertible {
    /// The property name, as written in Swift.
    public let name: String
    /// The name of the destination entity.
    public let destinationEntityName: String
    /// The name of the inverse relationship on the destination entity.
    public let inverseName: String
    /// `true` for a to-many relationship (`Set<Destination>`).
    public let isToMany: Bool
    /// `true` for an ordered to-many relationship, as Core Data's
    /// `NSRelationshipDescription.isOrdered`: its value is an
    /// `NSOrderedSet` whose order the stores keep. Only a model file
    /// declares one (`ordered="YES"`); its inverse is to-one.
    public let isOrdered: Bool
    /// `true` when the inverse is to-many (many-to-many, or to-one with a to-many inverse).
    public let inverseIsToMany: Bool
    /// What deleting the source object does to the destination objects.
    public let deleteRule: DeleteRule
    /// Whether the relationship may be empty, as Core Data's
    /// `NSPropertyDescription.isOptional`: a save of an object whose
    /// required relationship is empty throws
    /// ``ValidationError/missingValue(entity:property:)``. Relationships
    /// declared with `@Relationship` are optional; a model file says.
    public let isOptional: Bool
    /// The fewest destinations a non-empty to-many relationship may hold
    /// (0: no minimum), as Core Data's `minCount`.
    public let minCount: Int
    /// The most destinations a to-many relationship may hold (0: no
    /// maximum), as Core Data's `maxCount`.
    public let maxCount: Int
    /// The user info a model file gives the relationship, as Core Data's
    /// `NSPropertyDescription.userInfo` (empty for a Swift declaration).
    public let userInfo: [String: String]
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
    /// The Swift type: `Destination?` or `Set<Destination>`.
    let valueType: any RelationshipValue.Type

    init(name: String, index: Int, valueType: any RelationshipValue.Type, destinationType: ManagedObject.Type, destinationEntityName: String,
         inverseName: String, inverseIndex: Int, inverseAttributeCount: Int, isToMany: Bool, inverseIsToMany: Bool, deleteRule: DeleteRule,
         userInfo: [String: String] = [:], isOptional: Bool = true, minCount: Int = 0, maxCount: Int = 0, isOrdered: Bool = false) {
        self.isOrdered = isOrdered
        self.userInfo = userInfo
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
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
    }

    public var description: String {
        let type = isOrdered ? "NSOrderedSet<\(destinationEntityName)>" : isToMany ? "Set<\(destinationEntityName)>" : "\(destinationEntityName)?"
        return "\(name): \(type) (inverse \(inverseName), \(deleteRule))"
    }
}

extension RelationshipDescription {
    /// The destination IDs in `object`.
    func storage(of object: ManagedObject) -> RelationshipStorage {
        RelationshipStorage(storeValue: object._currentValue(at: index) ?? .null, isToMany: isToMany)
    }

    /// Sets the destination IDs in `object`, without change tracking or
    /// inverse upkeep.
    func setStorage(_ storage: RelationshipStorage, of object: ManagedObject) {
        object._setCurrentValue(storage.storeValue(for: self), at: index)
    }

    /// Sets the destinations of `object` to `ids`, without change tracking
    /// or inverse upkeep. An ordered relationship keeps the order of the
    /// destinations it had and appends the others, as Core Data appends an
    /// object whose inverse is set; with `returningToSavedPlaces` (a
    /// refresh undoing a move), one it had when saved goes back to its
    /// saved place. **Complexity:** O(n) for n destinations; O(n + s) with
    /// `returningToSavedPlaces`, for s saved ones.
    func setMembers(_ ids: Set<ManagedObjectID>, of object: ManagedObject, returningToSavedPlaces: Bool = false) {
        guard isOrdered else { return setStorage(RelationshipStorage(ids: ids, isToMany: isToMany), of: object) }
        var saved: [ManagedObjectID] = []
        if returningToSavedPlaces, case .orderedObjectIDs(let list)? = object._snapshot?.values[index] { saved = list }
        setStorage(.ordered(Self.order(ids, keeping: storage(of: object).loadedIDList ?? [], saved: saved)), of: object)
    }

    /// `ids` in the order of `current`; those `current` lacks go to their
    /// place in `saved` (after the nearest one before them there) or, if
    /// `saved` lacks them too, at the end by key (so that the order does
    /// not depend on hashing).
    static func order(_ ids: Set<ManagedObjectID>, keeping current: [ManagedObjectID], saved: [ManagedObjectID] = []) -> [ManagedObjectID] {
        var list = current.filter { ids.contains($0) }
        guard list.count < ids.count else { return list }
        let kept = Set(list)
        var added = ids.filter { !kept.contains($0) }
        if !saved.isEmpty {
            let place = Dictionary(saved.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
            for id in added.filter({ place[$0] != nil }).sorted(by: { place[$0]! < place[$1]! }) {
                let position = place[id]!
                let after = list.lastIndex { place[$0].map { $0 < position } ?? false }
                list.insert(id, at: after.map { $0 + 1 } ?? 0)
                added.remove(id)
            }
        }
        list += added.sorted { ($0.entityName, $0.key) < ($1.entityName, $1.key) }
        return list
    }

    /// `first`, then the IDs of `second` that `first` lacks, each once;
    /// with `members`, only those. How two orders of one ordered
    /// relationship combine (a merge, a nested save, a uniqueness merge).
    /// **Complexity:** O(n + m).
    static func order(_ first: [ManagedObjectID], then second: [ManagedObjectID],
                      within members: Set<ManagedObjectID>? = nil) -> [ManagedObjectID] {
        var seen = Set<ManagedObjectID>()
        return (first + second).filter { (members?.contains($0) ?? true) && seen.insert($0).inserted }
    }

    /// The value of this relationship when it has no destination.
    var emptyValue: StoreValue {
        isOrdered ? .orderedObjectIDs([]) : isToMany ? .objectIDs([]) : .null
    }
}

/// A relationship as read from its declaration, before its inverse is resolved.
struct DeclaredRelationship {
    let name: String
    let valueType: any RelationshipValue.Type
    let destinationType: ManagedObject.Type
    let isToMany: Bool
    let deleteRule: DeleteRule
    /// The inverse named by key path (a Swift declaration)…
    let inverse: AnyKeyPath?
    /// …or by name (a model file).
    var inverseName: String? = nil
    /// The user info of a model file's relationship.
    var userInfo: [String: String] = [:]
    /// A model file's `ordered`, `optional`, `minCount` and `maxCount`.
    var isOrdered = false
    var isOptional = true
    var minCount = 0
    var maxCount = 0
}
