/// A store that could not be opened, read or written. Nothing was changed
/// when a store operation throws.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The coordinator has no store loaded.
    case noPersistentStore
    /// The object is not in the store (it was deleted, or never saved).
    case objectNotFound(ManagedObjectID)
    /// The object's entity is not part of the store's model.
    case unknownEntity(String)
    /// The store was saved by someone else since the object was read.
    case versionConflict(ManagedObjectID, expected: Int64, found: Int64)
    /// A store with this identifier is already loaded.
    case duplicateStore(String)
    /// A store of this kind cannot be opened here.
    case unsupportedStoreType(String)

    public var description: String {
        switch self {
        case .noPersistentStore:
            "no persistent store is loaded; call loadPersistentStores() first"
        case .objectNotFound(let id):
            "\(id.entityName) \(id) is not in the store"
        case .unknownEntity(let name):
            "the entity \(name) is not part of the store's model"
        case .versionConflict(let id, let expected, let found):
            "\(id.entityName) \(id) was changed in the store (version \(found), expected \(expected))"
        case .duplicateStore(let identifier):
            "a store with identifier \(identifier) is already loaded"
        case .unsupportedStoreType(let type):
            "stores of type \(type) are not supported"
        }
    }
}
