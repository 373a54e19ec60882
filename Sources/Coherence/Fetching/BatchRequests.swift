import Foundation

/// What a batch request hands back.
public struct BatchResult: Sendable, Hashable {
    /// How many objects the request inserted, updated or deleted.
    public let count: Int
    /// The IDs of those objects, when the request asked for them
    /// (``BatchResultType/objectIDs``).
    public let objectIDs: [ManagedObjectID]?
    /// Every object the store changed, including rows other than the
    /// request's own (a batch delete nullifies inverses and cascades): pass
    /// it to ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
    public let changes: ObjectIDChanges
}

/// What a batch request returns besides the count.
public enum BatchResultType: Sendable, Hashable {
    /// The number of affected objects.
    case count
    /// The number and the IDs of the affected objects.
    case objectIDs
}

/// Inserts objects straight into the store, without creating managed objects
/// and without context notifications (as Core Data's
/// `NSBatchInsertRequest`). Missing attributes take their initial values; a
/// to-one relationship takes a permanent ``ManagedObjectID``.
public struct BatchInsertRequest<Entity: ManagedObject>: @unchecked Sendable {
    /// One dictionary of property values per object, keyed by property name.
    /// Values must be of the attributes' Swift types (`@unchecked Sendable`:
    /// hand in only values, never managed objects).
    public var objects: [[String: Any]]
    public var resultType: BatchResultType = .count

    public init(objects: [[String: Any]]) {
        self.objects = objects
    }
}

/// Sets attributes of every matching object straight in the store, without
/// loading objects and without context notifications (Core Data's
/// `NSBatchUpdateRequest`). Each row's version is incremented.
public struct BatchUpdateRequest<Entity: ManagedObject>: @unchecked Sendable {
    /// Which objects to update; all of the entity when `nil`.
    public var predicate: Predicate<Entity>?
    /// The new values by attribute name, of the attributes' Swift types.
    public var propertiesToUpdate: [String: Any]
    public var resultType: BatchResultType = .count

    public init(predicate: Predicate<Entity>? = nil, propertiesToUpdate: [String: Any]) {
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

/// Deletes every matching object straight in the store, without loading
/// objects and without context notifications (Core Data's
/// `NSBatchDeleteRequest`). Delete rules apply in the store: `.cascade`
/// deletes destinations, `.nullify` clears inverses, `.deny` refuses the
/// whole request.
public struct BatchDeleteRequest<Entity: ManagedObject>: Sendable {
    /// Which objects to delete; all of the entity when `nil`.
    public var predicate: Predicate<Entity>?
    public var resultType: BatchResultType = .count

    public init(predicate: Predicate<Entity>? = nil) {
        self.predicate = predicate
    }
}

/// A batch request as a store sees it: store values, entity, predicate.
public enum StoreBatchRequest: Sendable {
    case insert(entity: EntityDescription, rows: [[StoreValue]])
    case update(entity: EntityDescription, predicate: (any StandardPredicateExpression<Bool>)?,
                variable: PredicateExpressions.VariableID?, values: [Int: StoreValue])
    case delete(entity: EntityDescription, predicate: (any StandardPredicateExpression<Bool>)?,
                variable: PredicateExpressions.VariableID?)
}
