/// A context operation that was refused; nothing was changed.
public enum ContextError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No object with this ID exists (never saved, or deleted and saved).
    case objectNotFound(ManagedObjectID)
    /// The object is marked for deletion in this context.
    case objectDeleted(ManagedObjectID)
    /// The store could not read the object's row (it holds a value the
    /// attribute's type cannot take, or the database failed); `reason` is
    /// the store's error.
    case unreadableObject(ManagedObjectID, reason: String)
    /// The entity has no property with this name.
    case unknownProperty(entity: String, property: String)
    /// The value has the wrong type for the property.
    case typeMismatch(entity: String, property: String, expected: String)
    /// The property is ``Derived``: Coherence computes it (batch updates).
    case readOnlyProperty(entity: String, property: String)
    /// The ID's entity is not part of this context's model.
    case entityNotInModel(String)
    /// The context has no persistent store coordinator.
    case noCoordinator

    public var description: String {
        switch self {
        case .objectNotFound(let id):
            "\(id.entityName) \(id) does not exist in the store"
        case .objectDeleted(let id):
            "\(id.entityName) \(id) is deleted in this context"
        case .unreadableObject(let id, let reason):
            "\(id.entityName) \(id) could not be read from the store: \(reason)"
        case .unknownProperty(let entity, let property):
            "\(entity) has no property named \(property)"
        case .typeMismatch(let entity, let property, let expected):
            "\(entity).\(property) expects a value of type \(expected)"
        case .readOnlyProperty(let entity, let property):
            "\(entity).\(property) is derived; Coherence keeps it current"
        case .entityNotInModel(let name):
            "the entity \(name) is not part of the context's model"
        case .noCoordinator:
            "the context has no persistent store coordinator"
        }
    }
}

/// Why a save was refused. The store and the context are left as they were,
/// the changes still pending.
public enum ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A required (non-optional) attribute has no value: declared without
    /// an initial value and never set, or set to `nil` through key-value
    /// coding or `setPrimitiveValue`.
    case missingValue(entity: String, property: String)
    /// A relationship with the `.deny` delete rule still has destinations, so
    /// its object cannot be deleted.
    case deleteDenied(entity: String, property: String)
    /// A relationship was given an object of another context (or of no
    /// context, or an invalidated one).
    case crossContextRelationship(entity: String, property: String, destination: String)
    /// A relationship points at an object that is deleted (or was inserted
    /// and deleted again), for example after a `.noAction` delete rule.
    case danglingReference(entity: String, property: String, destination: String)
    /// An attribute's value cannot be converted to its store form.
    case invalidValue(entity: String, property: String, reason: String)
    /// Several of the above, in the order found.
    case multiple([ValidationError])

    /// The individual errors (one, unless ``multiple(_:)``).
    public var errors: [ValidationError] {
        if case .multiple(let errors) = self { return errors }
        return [self]
    }

    public var description: String {
        switch self {
        case .missingValue(let entity, let property):
            "\(entity).\(property) is required but has no value"
        case .deleteDenied(let entity, let property):
            "\(entity) cannot be deleted: its relationship \(property) has the deny rule and is not empty"
        case .crossContextRelationship(let entity, let property, let destination):
            "\(entity).\(property) refers to \(destination), which belongs to another context or to none"
        case .danglingReference(let entity, let property, let destination):
            "\(entity).\(property) refers to \(destination), which is deleted"
        case .invalidValue(let entity, let property, let reason):
            "\(entity).\(property) cannot be stored: \(reason)"
        case .multiple(let errors):
            errors.map(\.description).joined(separator: "; ")
        }
    }
}
