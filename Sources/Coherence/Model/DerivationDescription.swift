/// One ``Derived`` property, resolved against the model.
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

    init(id: Int, kind: DerivationKind, parentEntityName: String, propertyIndex: Int, propertyName: String,
         relationshipIndex: Int, inverseIndex: Int, childEntityName: String, childAttributeIndex: Int?,
         declaration: DerivationDeclaration) {
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

    /// Whether `child` matches the derivation's predicate.
    func matches(_ child: ManagedObject) -> Bool {
        (try? declaration.matches(child)) ?? false
    }
}
