import Foundation

/// What a batch request returns besides the count, with Core Data's names
/// for each request's result type as aliases.
public enum BatchResultType: Sendable, Hashable {
    /// Whether the request succeeded: ``BatchResult/result`` is `true`
    /// (the default, as in Core Data).
    case statusOnly
    /// The number of affected objects.
    case count
    /// The number and the IDs of the affected objects.
    case objectIDs

    /// `NSBatchUpdateRequestResultType.statusOnlyResultType`.
    public static let statusOnlyResultType = BatchResultType.statusOnly
    /// `NSBatchUpdateRequestResultType.updatedObjectIDsResultType`.
    public static let updatedObjectIDsResultType = BatchResultType.objectIDs
    /// `NSBatchUpdateRequestResultType.updatedObjectsCountResultType`.
    public static let updatedObjectsCountResultType = BatchResultType.count
    /// `NSBatchDeleteRequestResultType.resultTypeStatusOnly`.
    public static let resultTypeStatusOnly = BatchResultType.statusOnly
    /// `NSBatchDeleteRequestResultType.resultTypeObjectIDs`.
    public static let resultTypeObjectIDs = BatchResultType.objectIDs
    /// `NSBatchDeleteRequestResultType.resultTypeCount`.
    public static let resultTypeCount = BatchResultType.count
}

/// Inserts objects straight into the store, without creating managed objects
/// and without context notifications (as Core Data's
/// `NSBatchInsertRequest`). Missing attributes take their initial values; a
/// to-one relationship takes a permanent ``ManagedObjectID``.
///
/// A class configured in place, as Core Data's; its properties are read
/// and written under a lock (`@unchecked Sendable`: hand in only values,
/// never managed objects).
public final class BatchInsertRequest<Entity: ManagedObject>: @unchecked Sendable {
    private struct State {
        var objects: [[String: Any]]
        var resultType = BatchResultType.statusOnly
        var entityName: String?
    }

    private let state: Locked<State>

    /// One dictionary of property values per object, keyed by property name.
    /// Values must be of the attributes' Swift types.
    public var objects: [[String: Any]] {
        get { state.withLock { $0.objects } }
        set { state.withLock { $0.objects = newValue } }
    }
    /// What the ``BatchResult`` carries besides the count (Core Data's
    /// `resultType`); ``BatchResultType/statusOnly`` by default.
    public var resultType: BatchResultType {
        get { state.withLock { $0.resultType } }
        set { state.withLock { $0.resultType = newValue } }
    }
    /// The entity to insert into, by name; `nil` for `Entity`'s own.
    public var entityName: String? {
        get { state.withLock { $0.entityName } }
        set { state.withLock { $0.entityName = newValue } }
    }

    /// A request inserting one object per dictionary of `objects`.
    public init(objects: [[String: Any]]) {
        state = Locked(State(objects: objects))
    }
}

extension BatchInsertRequest where Entity == ManagedObject {
    /// A request inserting objects of the entity named `entityName`, as
    /// Core Data's `NSBatchInsertRequest(entityName:objects:)`.
    /// <https://developer.apple.com/documentation/coredata/nsbatchinsertrequest/init(entityname:objects:)>
    public convenience init(entityName: String, objects: [[String: Any]]) {
        self.init(objects: objects)
        self.entityName = entityName
    }
}

/// Sets attributes of every matching object straight in the store, without
/// loading objects and without context notifications (Core Data's
/// `NSBatchUpdateRequest`). Each row's version is incremented. A class
/// configured in place, as Core Data's; its properties are read and written
/// under a lock.
public final class BatchUpdateRequest<Entity: ManagedObject>: @unchecked Sendable {
    private struct State {
        var predicate: Predicate<Entity>?
        var propertiesToUpdate: [String: Any]
        var resultType = BatchResultType.statusOnly
        var includesSubentities = true
        var entityName: String?
    }

    private let state: Locked<State>

    /// Which objects to update; all of the entity when `nil`.
    public var predicate: Predicate<Entity>? {
        get { state.withLock { $0.predicate } }
        set { state.withLock { $0.predicate = newValue } }
    }
    /// The new values by attribute name, of the attributes' Swift types.
    public var propertiesToUpdate: [String: Any] {
        get { state.withLock { $0.propertiesToUpdate } }
        set { state.withLock { $0.propertiesToUpdate = newValue } }
    }
    /// What the ``BatchResult`` carries besides the count (Core Data's
    /// `resultType`); ``BatchResultType/statusOnly`` by default.
    public var resultType: BatchResultType {
        get { state.withLock { $0.resultType } }
        set { state.withLock { $0.resultType = newValue } }
    }
    /// Whether objects of the entity's sub-entities are updated too (the
    /// default, as Core Data's `NSBatchUpdateRequest.includesSubentities`).
    /// <https://developer.apple.com/documentation/coredata/nsbatchupdaterequest/includessubentities>
    public var includesSubentities: Bool {
        get { state.withLock { $0.includesSubentities } }
        set { state.withLock { $0.includesSubentities = newValue } }
    }
    /// The entity to update, by name; `nil` for `Entity`'s own.
    public var entityName: String? {
        get { state.withLock { $0.entityName } }
        set { state.withLock { $0.entityName = newValue } }
    }

    /// A request setting `propertiesToUpdate` on every object matching
    /// `predicate` (every object of the entity when `nil`).
    public init(predicate: Predicate<Entity>? = nil, propertiesToUpdate: [String: Any] = [:]) {
        state = Locked(State(predicate: predicate, propertiesToUpdate: propertiesToUpdate))
    }
}

extension BatchUpdateRequest where Entity == ManagedObject {
    /// A request updating objects of the entity named `entityName`,
    /// configured in place, as Core Data's `NSBatchUpdateRequest(entityName:)`:
    ///
    /// ```swift
    /// let request = BatchUpdateRequest(entityName: "Car")
    /// request.propertiesToUpdate = ["checked": true]
    /// request.resultType = .updatedObjectIDsResultType
    /// ```
    /// <https://developer.apple.com/documentation/coredata/nsbatchupdaterequest/init(entityname:)>
    public convenience init(entityName: String) {
        self.init()
        self.entityName = entityName
    }
}

/// Deletes every matching object straight in the store, without loading
/// objects and without context notifications (Core Data's
/// `NSBatchDeleteRequest`). Delete rules apply in the store: `.cascade`
/// deletes destinations, `.nullify` clears inverses, `.deny` refuses the
/// whole request. A class configured in place, as Core Data's; its
/// properties are read and written under a lock.
public final class BatchDeleteRequest<Entity: ManagedObject>: @unchecked Sendable {
    private struct State {
        var predicate: Predicate<Entity>?
        var resultType = BatchResultType.statusOnly
        var includesSubentities = true
        var entityName: String?
    }

    private let state: Locked<State>

    /// Which objects to delete; all of the entity when `nil`.
    public var predicate: Predicate<Entity>? {
        get { state.withLock { $0.predicate } }
        set { state.withLock { $0.predicate = newValue } }
    }
    /// What the ``BatchResult`` carries besides the count (Core Data's
    /// `resultType`); ``BatchResultType/statusOnly`` by default.
    public var resultType: BatchResultType {
        get { state.withLock { $0.resultType } }
        set { state.withLock { $0.resultType = newValue } }
    }
    /// Whether objects of the entity's sub-entities are deleted too (the
    /// default, as for the fetch request Core Data's `NSBatchDeleteRequest`
    /// is made with, whose `includesSubentities` is true by default).
    public var includesSubentities: Bool {
        get { state.withLock { $0.includesSubentities } }
        set { state.withLock { $0.includesSubentities = newValue } }
    }
    /// The entity to delete from, by name; `nil` for `Entity`'s own.
    public var entityName: String? {
        get { state.withLock { $0.entityName } }
        set { state.withLock { $0.entityName = newValue } }
    }

    /// A request deleting every object matching `predicate` (every object
    /// of the entity when `nil`).
    public init(predicate: Predicate<Entity>? = nil) {
        state = Locked(State(predicate: predicate))
    }

    /// A request deleting the objects `fetchRequest` matches (its entity,
    /// predicate and `includesSubentities`), as Core Data's
    /// `NSBatchDeleteRequest(fetchRequest:)`. The fetch request's sort and
    /// window are not used.
    /// <https://developer.apple.com/documentation/coredata/nsbatchdeleterequest/init(fetchrequest:)>
    public convenience init(fetchRequest: FetchRequest<Entity>) {
        self.init(predicate: fetchRequest.predicate)
        includesSubentities = fetchRequest.includesSubentities
        entityName = fetchRequest.entityName
    }
}

extension BatchDeleteRequest where Entity == ManagedObject {
    /// ``init(fetchRequest:)-(FetchRequest<Entity>)`` for a request whose
    /// results are not objects (`FetchRequest<FetchRequestResult>`,
    /// `FetchRequest<ManagedObjectID>`), as Core Data code passes one. The
    /// request must name its entity, and its predicate must read objects by
    /// name (`Predicate(format:)`); otherwise the program stops with a
    /// message saying so, as Core Data raises.
    @_disfavoredOverload
    public convenience init<Result>(fetchRequest: FetchRequest<Result>) {
        guard let name = fetchRequest.entityName ?? (Result.self as? ManagedObject.Type).flatMap({ EntityRegistry.entity(of: $0)?.name }) else {
            fatalError("Coherence: BatchDeleteRequest(fetchRequest:) needs a request that names its entity; this FetchRequest<\(Result.self)> names none")
        }
        var predicate: Predicate<ManagedObject>?
        if let original = fetchRequest.predicate {
            guard let retyped = retypedPredicate(original, as: ManagedObject.self) else {
                fatalError("Coherence: BatchDeleteRequest(fetchRequest:) for \(name): the predicate of a FetchRequest<\(Result.self)> "
                           + "must be a format predicate to be read on \(name) objects")
            }
            predicate = retyped
        }
        self.init(predicate: predicate)
        includesSubentities = fetchRequest.includesSubentities
        entityName = name
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
