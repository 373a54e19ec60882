/// A model that cannot be built, naming the entity and the property at fault.
public enum ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Two entities have the same name.
    case duplicateEntity(name: String)
    /// An `@Attribute` has a Swift type Coherence cannot store.
    case unsupportedAttributeType(entity: String, property: String, type: String)
    /// An attribute's initial value cannot be converted to its store form.
    case invalidDefaultValue(entity: String, property: String, reason: String)
    /// A relationship's destination entity is not part of the model.
    case destinationNotInModel(entity: String, property: String, destination: String)
    /// Neither side of a relationship declares its inverse.
    case missingInverse(entity: String, property: String)
    /// The declared inverse does not lead back to this relationship.
    case mismatchedInverse(entity: String, property: String, reason: String)
    /// A `@Derived` property follows something it cannot derive from.
    case invalidDerivation(entity: String, property: String, reason: String)
    /// A fetch index (``ManagedObject/indexes``) names something that is not
    /// an attribute of the entity, or nothing.
    case invalidIndex(entity: String, property: String, reason: String)
    /// A uniqueness constraint (``ManagedObject/uniquenessConstraints``)
    /// names something that is not a stored, settable attribute, or nothing.
    case invalidUniquenessConstraint(entity: String, property: String, reason: String)
    /// Two entities of one hierarchy (sub-entities of one root) declare
    /// properties of the same name that cannot share a column: the
    /// hierarchy is stored in one table.
    case conflictingSubentityProperty(entity: String, property: String, reason: String)
    /// A model file (``ManagedObjectModel/init(contentsOf:classes:)``) that
    /// cannot be read, or that uses something Coherence does not support:
    /// the file, the line of its XML, and the entity and property when the
    /// fault is in one (empty otherwise).
    case modelFile(file: String, line: Int, entity: String, property: String, reason: String)

    public var description: String {
        switch self {
        case .duplicateEntity(let name):
            "the model has two entities named \(name)"
        case .unsupportedAttributeType(let entity, let property, let type):
            "\(entity).\(property): an attribute cannot store values of type \(type); use a supported type, an optional of one, a RawRepresentable or a Codable type"
        case .invalidDefaultValue(let entity, let property, let reason):
            "\(entity).\(property): the initial value cannot be stored: \(reason)"
        case .destinationNotInModel(let entity, let property, let destination):
            "\(entity).\(property): the destination entity \(destination) is not in the model"
        case .missingInverse(let entity, let property):
            "\(entity).\(property): the relationship has no inverse; declare it with @Relationship(inverse:) on one side"
        case .mismatchedInverse(let entity, let property, let reason):
            "\(entity).\(property): the inverse does not match: \(reason)"
        case .invalidDerivation(let entity, let property, let reason):
            "\(entity).\(property): cannot derive the value: \(reason)"
        case .invalidIndex(let entity, let property, let reason):
            "\(entity).\(property): cannot index it: \(reason)"
        case .invalidUniquenessConstraint(let entity, let property, let reason):
            "\(entity).\(property): cannot constrain it: \(reason)"
        case .conflictingSubentityProperty(let entity, let property, let reason):
            "\(entity).\(property): \(reason); entities of one hierarchy share a table, so rename one of them"
        case .modelFile(let file, let line, let entity, let property, let reason):
            "\(file):\(line): \(entity.isEmpty ? "" : property.isEmpty ? "\(entity): " : "\(entity).\(property): ")\(reason)"
        }
    }
}

extension ModelError {
    /// The entity and property the error names (the property empty for an
    /// entity); `nil` for a model file's error, which names its line too.
    var place: (entity: String, property: String)? {
        switch self {
        case .duplicateEntity(let name): (name, "")
        case .unsupportedAttributeType(let entity, let property, _), .invalidDefaultValue(let entity, let property, _),
             .destinationNotInModel(let entity, let property, _), .missingInverse(let entity, let property),
             .mismatchedInverse(let entity, let property, _), .invalidDerivation(let entity, let property, _),
             .invalidIndex(let entity, let property, _), .invalidUniquenessConstraint(let entity, let property, _),
             .conflictingSubentityProperty(let entity, let property, _):
            (entity, property)
        case .modelFile: nil
        }
    }
}
