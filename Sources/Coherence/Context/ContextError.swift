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
    /// The property is `@Derived`: Coherence computes it (batch updates).
    case readOnlyProperty(entity: String, property: String)
    /// The property is transient (``AttributeOption/transient``): batch
    /// requests and dictionary fetches work on the store, which does not
    /// keep it.
    case transientProperty(entity: String, property: String)
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
        case .transientProperty(let entity, let property):
            "\(entity).\(property) is transient; no store keeps it"
        case .entityNotInModel(let name):
            "the entity \(name) is not part of the context's model"
        case .noCoordinator:
            "the context has no persistent store coordinator"
        }
    }
}
