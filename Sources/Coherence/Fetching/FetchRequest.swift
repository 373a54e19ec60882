import Foundation

/// What to fetch: the objects of one entity that match a predicate, in an
/// order, optionally a window of them. A class configured in place, as Core
/// Data's `NSFetchRequest`:
///
/// ```swift
/// let request = FeedItem.fetchRequest()
/// request.predicate = #Predicate { $0.read == false }
/// request.sortDescriptors = [SortDescriptor(\.title)]
/// request.fetchLimit = 20
/// let unread = try context.fetch(request)
/// ```
///
/// Each property is read and written under a lock, so a request may be
/// handed to another queue (`Sendable`); a fetch reads the request when it
/// starts. ``copy()`` makes an independent request.
///
/// `Result` is usually the entity's class. As in Core Data, a request for
/// an entity given by name may ask for other results with ``resultType``:
/// `FetchRequest<ManagedObjectID>`, `FetchRequest<NSDictionary>`,
/// `FetchRequest<NSNumber>` (a count) or `FetchRequest<FetchRequestResult>`
/// (any of them); see ``ManagedObjectContext/fetch(_:)-9t4sm``.
///
/// **Complexity:** O(1) to read or set a property.
public final class FetchRequest<Result>: @unchecked Sendable {
    /// The request's settings, as one value (under `lock`).
    struct Settings {
        var predicate: Predicate<Result>? = nil
        var sortDescriptors: [SortDescriptor<Result>] = []
        var fetchLimit: Int = 0
        var fetchOffset: Int = 0
        var includesPendingChanges: Bool = true
        var evaluatesPredicateInMemory: Bool = false
        var returnsObjectsAsFaults: Bool = true
        var fetchBatchSize: Int = 0
        var relationshipKeyPathsForPrefetching: [String] = []
        var relationshipKeyPathsForRefreshing: [String] = []
        var includesSubentities: Bool = true
        var entityName: String? = nil
        var includesPropertyValues: Bool = true
        var resultType: FetchRequestResultType = .managedObjectResultType
        var propertiesToFetch: [PropertyToFetch]? = nil
        var propertiesToGroupBy: [String]? = nil
        var havingPredicate: HavingPredicate? = nil
        var returnsDistinctResults: Bool = false
        var affectedStores: [any PersistentStore]? = nil
    }

    /// The settings, read and written under the lock.
    let state: Locked<Settings>

    /// All the settings at once, as a fetch reads them when it starts.
    var snapshot: Settings { state.withLock { $0 } }

    /// Which objects match; `nil` for all objects of the entity.
    public var predicate: Predicate<Result>? {
        get { state.withLock { $0.predicate } }
        set { state.withLock { $0.predicate = newValue } }
    }
    /// The order of the results; unordered when empty.
    public var sortDescriptors: [SortDescriptor<Result>] {
        get { state.withLock { $0.sortDescriptors } }
        set { state.withLock { $0.sortDescriptors = newValue } }
    }
    /// The largest number of objects to return; 0 for no limit.
    public var fetchLimit: Int {
        get { state.withLock { $0.fetchLimit } }
        set { state.withLock { $0.fetchLimit = newValue } }
    }
    /// How many matching objects to skip before the first one returned.
    public var fetchOffset: Int {
        get { state.withLock { $0.fetchOffset } }
        set { state.withLock { $0.fetchOffset = newValue } }
    }
    /// Whether unsaved insertions, changes and deletions in the context count
    /// (the default, as in Core Data). When `false`, objects are matched and
    /// ordered by their committed values only, and unsaved insertions are
    /// left out; the objects returned are still the context's own, changes
    /// included.
    public var includesPendingChanges: Bool {
        get { state.withLock { $0.includesPendingChanges } }
        set { state.withLock { $0.includesPendingChanges = newValue } }
    }
    /// Whether to evaluate the predicate on objects in memory rather than in
    /// the store. Needed only for predicates the store cannot translate (a
    /// fetch with such a predicate throws ``FetchError/unsupportedPredicate(entity:construct:)``
    /// otherwise); it loads every object of the entity.
    public var evaluatesPredicateInMemory: Bool {
        get { state.withLock { $0.evaluatesPredicateInMemory } }
        set { state.withLock { $0.evaluatesPredicateInMemory = newValue } }
    }
    /// Whether fetched objects stay faults until first used (the default), or
    /// arrive with their values loaded.
    public var returnsObjectsAsFaults: Bool {
        get { state.withLock { $0.returnsObjectsAsFaults } }
        set { state.withLock { $0.returnsObjectsAsFaults = newValue } }
    }
    /// Core Data's `fetchBatchSize`: with a positive value, the fetch reads
    /// only the matching objects' IDs, and objects not loaded in the context
    /// yet arrive as faults holding nothing but their ID. The first use of
    /// one of them loads, with one store query, the values of its batch: the
    /// `fetchBatchSize` objects of the result it is among (positions 0 to
    /// `fetchBatchSize - 1`, and so on: fixed slices of the result). Walking the
    /// result in any order costs one query per batch and no more memory than
    /// the batches used. 0 (the default) reads every value with the fetch.
    ///
    /// Core Data returns a proxy array that fetches objects as they are
    /// accessed; Coherence returns an ordinary array of faults that fire in
    /// batches, which costs the same queries. The batch size applies when
    /// the store answers the whole fetch, with ``returnsObjectsAsFaults`` on
    /// and no ``relationshipKeyPathsForPrefetching``: a context whose
    /// coordinator has one store that evaluates fetches (SQLite), not a
    /// nested context; no unsaved change of the entity to include; no
    /// predicate evaluated in memory; and a sort the store can do (by
    /// attributes other than `Decimal`, `UUID`, `URL`, `Data` and `Codable`
    /// ones, strings compared as `SortDescriptor` does by default or
    /// `.lexical`). Otherwise the objects come with their values, as with no
    /// batch size. As for any fault, a row
    /// another context deleted before its batch was loaded cannot be
    /// loaded: merge that context's save first (its deletion then removes
    /// the object).
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/fetchbatchsize>
    public var fetchBatchSize: Int {
        get { state.withLock { $0.fetchBatchSize } }
        set { state.withLock { $0.fetchBatchSize = newValue } }
    }
    /// Relationships to load together with the results, by name, with dots
    /// for deeper paths (`["feedItems"]`, `["server.feedItems"]`): one query
    /// per relationship instead of one per object.
    public var relationshipKeyPathsForPrefetching: [String] {
        get { state.withLock { $0.relationshipKeyPathsForPrefetching } }
        set { state.withLock { $0.relationshipKeyPathsForPrefetching = newValue } }
    }
    /// To-one relationships of the fetched entity, by name, whose
    /// destinations a ``FetchedResultsController`` watches: a change of the
    /// destination (a renamed server) updates, and if needed moves, the
    /// objects that point to it (items sorted by `server?.name`). One level
    /// only: to-many names and dotted paths are ignored.
    public var relationshipKeyPathsForRefreshing: [String] {
        get { state.withLock { $0.relationshipKeyPathsForRefreshing } }
        set { state.withLock { $0.relationshipKeyPathsForRefreshing = newValue } }
    }
    /// Whether objects of the entity's sub-entities match too (the default),
    /// as Core Data's `includesSubentities`: a fetch of `Car` returns its
    /// `SportCar`s unless this is `false`.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/includessubentities>
    public var includesSubentities: Bool {
        get { state.withLock { $0.includesSubentities } }
        set { state.withLock { $0.includesSubentities = newValue } }
    }
    /// The name of the entity to fetch, set by
    /// ``init(entityName:predicate:sortBy:)``; `nil` for `Result`'s own entity.
    public var entityName: String? {
        get { state.withLock { $0.entityName } }
        set { state.withLock { $0.entityName = newValue } }
    }
    /// Whether the fetched objects arrive with their property values, as
    /// Core Data's `includesPropertyValues` (`true` by default). With
    /// `false`, they are returned as faults whatever
    /// ``returnsObjectsAsFaults`` says; their rows are still read with the
    /// fetch, so the first use of an object needs no further query.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/includespropertyvalues>
    public var includesPropertyValues: Bool {
        get { state.withLock { $0.includesPropertyValues } }
        set { state.withLock { $0.includesPropertyValues = newValue } }
    }

    /// A request for the objects of `Result`'s entity.
    public init(predicate: Predicate<Result>? = nil, sortBy sortDescriptors: [SortDescriptor<Result>] = []) {
        state = Locked(Settings(predicate: predicate, sortDescriptors: sortDescriptors))
    }

    private init(settings: Settings) {
        state = Locked(settings)
    }

    /// An independent request with the same settings, as Core Data's
    /// `copy()`: changing one leaves the other as it was.
    public func copy() -> FetchRequest<Result> {
        FetchRequest(settings: snapshot)
    }
}

/// A fetch that could not be carried out.
public enum FetchError: Error, Sendable, CustomStringConvertible {
    /// Evaluating the predicate threw.
    case predicateEvaluationFailed(entity: String, reason: String)
    /// The store cannot translate this part of the predicate. Rewrite it, or
    /// set ``FetchRequest/evaluatesPredicateInMemory`` to evaluate it on
    /// objects instead.
    case unsupportedPredicate(entity: String, construct: String)
    /// A sort descriptor made by name (`SortDescriptor(key:order:)`)
    /// names no attribute of the entity that can be ordered.
    case unknownSortKey(entity: String, key: String)
    /// A fetch request names an entity the model does not have
    /// (``FetchRequest/init(entityName:predicate:sortBy:)``).
    case unknownEntity(name: String)
    /// A request whose `Result` is not an entity's class
    /// (`FetchRequest<NSDictionary>`, `FetchRequest<FetchRequestResult>`)
    /// names no entity: set its ``FetchRequest/entityName`` or
    /// ``FetchRequest/entity``, as Core Data requires.
    case noEntity(resultType: String)
    /// A request for results that are not objects has a predicate Coherence
    /// cannot read on the entity's objects: only format predicates
    /// (`Predicate(format:)`, `Predicate(value:)` and ``CompoundPredicate``s
    /// of them) can be.
    case predicateNotOnObjects(resultType: String)

    public var description: String {
        switch self {
        case .noEntity(let type):
            "a FetchRequest<\(type)> names no entity; set its entityName or entity"
        case .predicateNotOnObjects(let type):
            "the predicate of a FetchRequest<\(type)> is not a format predicate, so it cannot be read on the entity's objects; use Predicate(format:)"
        case .predicateEvaluationFailed(let entity, let reason):
            "the predicate of a \(entity) fetch could not be evaluated: \(reason)"
        case .unsupportedPredicate(let entity, let construct):
            "the predicate of a \(entity) fetch uses \(construct), which the store cannot translate to SQL; rewrite it or set evaluatesPredicateInMemory"
        case .unknownSortKey(let entity, let key):
            "a \(entity) fetch sorts by \"\(key)\", which is not an attribute of \(entity) that can be ordered"
        case .unknownEntity(let name):
            "the model has no entity named \"\(name)\""
        }
    }
}
