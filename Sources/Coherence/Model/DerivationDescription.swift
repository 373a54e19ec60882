/// One `@Derived` property, resolved against the model.
final class DerivationDescription: Sendable {
    /// Position in the model's list of derivations.
    let id: Int
    let kind: DerivationKind
    /// The entity owning the derived property, and the property.
    let parentEntityName: String
    let propertyIndex: Int
    let propertyName: String
    /// The relationship followed: to-many (aggregates) or to-one (copy).
    let relationshipIndex: Int
    /// The child's (or destination's) relationship back to the parent.
    let inverseIndex: Int
    let childEntityName: String
    /// The child's (or destination's) attribute aggregated or copied.
    let childAttributeIndex: Int?
    let declaration: DerivationDeclaration
    /// The attribute counts of the parent and child entities the indexes
    /// above were resolved in: a sub-entity that adds attributes holds the
    /// relationships further along (``EntityDescription/localIndex(_:declaredWithAttributeCount:)``).
    let parentAttributeCount: Int
    let childAttributeCount: Int

    init(id: Int, kind: DerivationKind, parentEntityName: String, propertyIndex: Int, propertyName: String,
         relationshipIndex: Int, inverseIndex: Int, childEntityName: String, childAttributeIndex: Int?,
         declaration: DerivationDeclaration, parentAttributeCount: Int, childAttributeCount: Int) {
        self.parentAttributeCount = parentAttributeCount
        self.childAttributeCount = childAttributeCount
        self.id = id
        self.kind = kind
        self.parentEntityName = parentEntityName
        self.propertyIndex = propertyIndex
        self.propertyName = propertyName
        self.relationshipIndex = relationshipIndex
        self.inverseIndex = inverseIndex
        self.childEntityName = childEntityName
        self.childAttributeIndex = childAttributeIndex
        self.declaration = declaration
    }

    /// The relationship followed, on an object of `entity` (the parent
    /// entity or a sub-entity of it).
    func relationship(in entity: EntityDescription) -> RelationshipDescription? {
        entity.relationship(at: entity.localIndex(relationshipIndex, declaredWithAttributeCount: parentAttributeCount))
    }

    /// The relationship back to the parent, on an object of `entity` (the
    /// child entity or a sub-entity of it).
    func inverse(in entity: EntityDescription) -> RelationshipDescription? {
        entity.relationship(at: entity.localIndex(inverseIndex, declaredWithAttributeCount: childAttributeCount))
    }

    /// Whether `object` is of the child entity or one of its sub-entities.
    func isChild(_ object: ManagedObject) -> Bool {
        var entity = object._entity
        while let current = entity {
            if current.name == childEntityName { return true }
            entity = current.superentity
        }
        return false
    }

    /// Whether `child` matches the derivation's predicate.
    func matches(_ child: ManagedObject) -> Bool {
        (try? declaration.matches(child)) ?? false
    }
}
