/// The entities of one ``ManagedObjectModel``, by class, and each entity's
/// direct sub-entities: what the registry of models and
/// ``EntityDescription/subentities`` reach through a weak reference.
///
/// Neither refers to an entity weakly: a weak reference gives its target a
/// side table, and every later retain and release of that target goes the
/// slow way, through it. Entities are retained on every object's path
/// (inserting, saving, fetching), so they are never the target of one; this
/// object, which only the model owns, is.
///
/// **Complexity:** O(1) to look up a class's entity or an entity's
/// sub-entities.
final class ModelEntities: Sendable {
    /// The entities, in model order.
    let all: [EntityDescription]
    /// The entity of each class of the model.
    let byClass: [ObjectIdentifier: EntityDescription]
    /// The direct sub-entities of each entity that has some, in model order.
    private let subentitiesByParent: [ObjectIdentifier: [EntityDescription]]

    /// The entities of a model being built, in model order; each entity is
    /// told it belongs to them.
    init(_ entities: [EntityDescription]) {
        all = entities
        byClass = Dictionary(uniqueKeysWithValues: entities.map { (ObjectIdentifier($0.managedObjectClass), $0) })
        var children: [ObjectIdentifier: [EntityDescription]] = [:]
        for entity in entities {
            if let parent = entity.superentity { children[ObjectIdentifier(parent), default: []].append(entity) }
        }
        subentitiesByParent = children
        for entity in entities { entity.belong(to: self) }
    }

    /// The direct sub-entities of `entity`, in model order.
    func subentities(of entity: EntityDescription) -> [EntityDescription] {
        subentitiesByParent[ObjectIdentifier(entity)] ?? []
    }
}
