import Foundation

/// What ``ManagedObjectContext/execute(_:)-(BatchInsertRequest<Entity>)``
/// returns for a batch or persistent history request, as Core Data's
/// `NSPersistentStoreResult`: cast it to the result class of the request,
/// as Core Data code does.
///
/// ```swift
/// let result = try context.execute(request) as! BatchDeleteResult
/// let deleted = result.result as! [ManagedObjectID]
/// ```
///
/// Results are immutable, so they may cross queues.
/// <https://developer.apple.com/documentation/coredata/nspersistentstoreresult>
public class PersistentStoreResult: @unchecked Sendable {
    init() {}
}

/// The result of a batch request, the base of Core Data's
/// `NSBatchInsertResult`, `NSBatchUpdateResult` and `NSBatchDeleteResult`.
public class BatchResult: PersistentStoreResult, @unchecked Sendable {
    /// What the request asked for (``BatchResultType/statusOnly`` by default).
    public let resultType: BatchResultType
    /// How many objects the request inserted, updated or deleted (always
    /// counted, whatever the result type).
    public let count: Int
    /// The IDs of those objects, when the request asked for them
    /// (``BatchResultType/objectIDs``).
    public let objectIDs: [ManagedObjectID]?
    /// Every object the store changed, including rows other than the
    /// request's own (a batch delete nullifies inverses and cascades): pass
    /// it to ``ManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)-(ObjectIDChanges,_)``.
    public let changes: ObjectIDChanges

    init(resultType: BatchResultType, affected: [ManagedObjectID], changes: ObjectIDChanges) {
        self.resultType = resultType
        self.count = affected.count
        self.objectIDs = resultType == .objectIDs ? affected : nil
        self.changes = changes
    }

    /// The result as Core Data gives it: `true` for
    /// ``BatchResultType/statusOnly``, the count as `Int` for
    /// ``BatchResultType/count``, `[ManagedObjectID]` for
    /// ``BatchResultType/objectIDs`` (so `result as! [NSManagedObjectID]`
    /// ports as `result as! [ManagedObjectID]`).
    public var result: Any? {
        switch resultType {
        case .statusOnly: true
        case .count: count
        case .objectIDs: objectIDs ?? []
        }
    }
}

/// The result of a ``BatchInsertRequest``, as Core Data's `NSBatchInsertResult`.
/// <https://developer.apple.com/documentation/coredata/nsbatchinsertresult>
public final class BatchInsertResult: BatchResult, @unchecked Sendable {}

/// The result of a ``BatchUpdateRequest``, as Core Data's `NSBatchUpdateResult`.
/// <https://developer.apple.com/documentation/coredata/nsbatchupdateresult>
public final class BatchUpdateResult: BatchResult, @unchecked Sendable {}

/// The result of a ``BatchDeleteRequest``, as Core Data's `NSBatchDeleteResult`.
/// <https://developer.apple.com/documentation/coredata/nsbatchdeleteresult>
public final class BatchDeleteResult: BatchResult, @unchecked Sendable {}
