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
    /// it to ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-(ObjectIDChanges,_)``.
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
    /// What the ``BatchResult`` carries besides the count (Core Data's
    /// `resultType`); ``BatchResultType/count`` by default.
    public var resultType: BatchResultType = .count

    /// A request inserting one object per dictionary of `objects`.
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
    /// What the ``BatchResult`` carries besides the count (Core Data's
    /// `resultType`); ``BatchResultType/count`` by default.
    public var resultType: BatchResultType = .count
    /// Whether objects of the entity's sub-entities are updated too (the
    /// default, as Core Data's `NSBatchUpdateRequest.includesSubentities`).
    /// <https://developer.apple.com/documentation/coredata/nsbatchupdaterequest/includessubentities>
    public var includesSubentities = true

    /// A request setting `propertiesToUpdate` on every object matching
    /// `predicate` (every object of the entity when `nil`).
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
    /// What the ``BatchResult`` carries besides the count (Core Data's
    /// `resultType`); ``BatchResultType/count`` by default.
    public var resultType: BatchResultType = .count
    /// Whether objects of the entity's sub-entities are deleted too (the
    /// default, as for the fetch request Core Data's `NSBatchDeleteRequest`
    /// is made with, whose `includesSubentities` is true by default).
    public var includesSubentities = true

    /// A request deleting every object matching `predicate` (every object
    /// of the entity when `nil`).
    public init(predicate: Predicate<Entity>? = nil) {
        self.predicate = predicate
    }
}

/// A batch request as a store sees it: store values, entity, predicate.
public enum StoreBatchRequest: Sendable {
    /// Insert one row per element of `rows` (values in the entity's
    /// property order).
    case insert(entity: EntityDescription, rows: [[StoreValue]])
    /// Set `values` (by property index) on every row matching `predicate`
    /// (every row when `nil`), whose expression uses `variable`.
    case update(entity: EntityDescription, predicate: (any StandardPredicateExpression<Bool>)?,
                variable: PredicateExpressions.VariableID?, values: [Int: StoreValue], includesSubentities: Bool = true)
    /// Delete every row matching `predicate` (every row when `nil`),
    /// applying delete rules.
    case delete(entity: EntityDescription, predicate: (any StandardPredicateExpression<Bool>)?,
                variable: PredicateExpressions.VariableID?, includesSubentities: Bool = true)
}
