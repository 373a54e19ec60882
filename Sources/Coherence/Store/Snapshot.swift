/// The committed values of one object, immutable and `Sendable`: what a store
/// returns, what objects keep as their last committed state, and what a save
/// hands back for each saved object.
public final class Snapshot: Sendable, CustomStringConvertible {
    /// The object the values belong to.
    public let objectID: ManagedObjectID
    /// One value per property of the entity, attributes first, in the
    /// entity's property order.
    public let values: [StoreValue]
    /// Incremented by every save of the object; used for optimistic locking.
    public let version: Int64

    /// The snapshot of `objectID` at `version`.
    public init(objectID: ManagedObjectID, values: [StoreValue], version: Int64) {
        self.objectID = objectID
        self.values = values
        self.version = version
    }

    public var description: String {
        "Snapshot(\(objectID), v\(version), \(values))"
    }
}
