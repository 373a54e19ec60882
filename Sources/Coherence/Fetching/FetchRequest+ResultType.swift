import Foundation

/// What a fetch returns, as Core Data's `NSFetchRequestResultType`.
/// <https://developer.apple.com/documentation/coredata/nsfetchrequestresulttype>
public enum FetchRequestResultType: Sendable, Hashable {
    /// The matching objects (the default).
    case managedObjectResultType
    /// Their ``ManagedObjectID``s.
    case managedObjectIDResultType
    /// One `NSDictionary` per object (or group), holding
    /// ``FetchRequest/propertiesToFetch``.
    case dictionaryResultType
    /// One `NSNumber`: how many objects match.
    case countResultType
}

extension FetchRequest {
    /// What the fetch returns: objects (the default), their IDs,
    /// dictionaries or a count, as Core Data's `resultType`. The request's
    /// `Result` must be able to hold it: `ManagedObjectID`, `NSDictionary`,
    /// `NSNumber`, or `FetchRequestResult` for any of them; a result type
    /// `Result` cannot hold stops the program when the fetch runs, naming
    /// both, as the cast of Core Data's result would.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/resulttype>
    public var resultType: FetchRequestResultType {
        get { state.withLock { $0.resultType } }
        set { state.withLock { $0.resultType = newValue } }
    }

    /// With ``FetchRequestResultType/dictionaryResultType``: the attributes
    /// and to-one relationships each dictionary holds, by name, and computed
    /// columns (``ExpressionDescription``); every stored attribute and to-one
    /// relationship when `nil`. Core Data's `propertiesToFetch`.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestofetch>
    public var propertiesToFetch: [PropertyToFetch]? {
        get { state.withLock { $0.propertiesToFetch } }
        set { state.withLock { $0.propertiesToFetch = newValue } }
    }

    /// With ``FetchRequestResultType/dictionaryResultType``: the properties
    /// to group by, one dictionary per group (Core Data's
    /// `propertiesToGroupBy`).
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestogroupby>
    public var propertiesToGroupBy: [String]? {
        get { state.withLock { $0.propertiesToGroupBy } }
        set { state.withLock { $0.propertiesToGroupBy = newValue } }
    }

    /// With ``propertiesToGroupBy``: the condition a group must meet (Core
    /// Data's `havingPredicate`, as a typed ``HavingPredicate``).
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/havingpredicate>
    public var havingPredicate: HavingPredicate? {
        get { state.withLock { $0.havingPredicate } }
        set { state.withLock { $0.havingPredicate = newValue } }
    }

    /// With ``FetchRequestResultType/dictionaryResultType``: whether equal
    /// dictionaries are returned once (Core Data's `returnsDistinctResults`).
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/returnsdistinctresults>
    public var returnsDistinctResults: Bool {
        get { state.withLock { $0.returnsDistinctResults } }
        set { state.withLock { $0.returnsDistinctResults = newValue } }
    }

    /// The stores to search, as Core Data's `affectedStores`; every store
    /// of the coordinator when `nil`. Unsaved insertions count only when
    /// the coordinator's first store is among these (Core Data assigns a
    /// new object to the first store that can hold it). Fetches, counts and
    /// dictionary fetches honour it; a fetched results controller applies it
    /// to its fetch, not to the changes it follows afterwards.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/affectedstores>
    public var affectedStores: [any PersistentStore]? {
        get { state.withLock { $0.affectedStores } }
        set { state.withLock { $0.affectedStores = newValue } }
    }
}
