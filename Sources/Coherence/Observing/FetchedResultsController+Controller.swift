import Foundation

/// The results of a fetch request, kept current as the context changes and
/// reported as precise changes, as Core Data's `NSFetchedResultsController`.
///
/// ```swift
/// let controller = FetchedResultsController(
///     fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]),
///     managedObjectContext: context, sectionNameKeyPath: \.feedName)
/// controller.delegate = self
/// try controller.performFetch()
/// ```
///
/// On every didChangeObjects of its context (merges included), it decides in
/// memory which objects entered, left, moved or changed, without fetching
/// again: section insertions and deletions first, then objects deleted (at
/// their old index paths), inserted (at new ones), moved (a move implies the
/// update) and updated. Applying deletions, then insertions, to the previous
/// results gives exactly the new ones. Objects along
/// ``FetchRequest/relationshipKeyPathsForRefreshing`` update too when their
/// destination changes.
///
/// Use it on its context's queue. **Complexity,** for k changed objects in
/// n results and s sections: up to 64 changed objects, O(k (log n + s))
/// plus moving array elements; more than that, one pass, O(n + k log k).
/// A listener of ``snapshots()`` adds O(n) per change.
public final class FetchedResultsController<Result: ManagedObject> {
    /// The request whose results the controller keeps: its predicate, sort
    /// descriptors and ``FetchRequest/relationshipKeyPathsForRefreshing``.
    public let fetchRequest: FetchRequest<Result>
    /// The context whose objects and changes the controller follows.
    public let managedObjectContext: ManagedObjectContext
    /// The key path whose value names each object's section.
    public let sectionNameKeyPath: KeyPath<Result, String>?
    /// Receives the changes; not retained.
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    /// The objects in order, with their keys; `nil` before `performFetch()`.
    var entries: [(object: Result, key: SortKey)]?
    /// The key each tracked object was placed with.
    var keys: [ObjectIdentifier: SortKey] = [:]
    /// The tracked objects, to find those that depend on a changed destination.
    var tracked: [ObjectIdentifier: Result] = [:]
    /// Sections as (name, first index, count).
    var sectionRanges: [(name: String, start: Int, count: Int)] = []
    /// For each watched destination, the tracked objects that point to it.
    /// Keyed by the destination object, which keeps its identity when a save
    /// makes its ID permanent; ``destinations`` holds those objects.
    var dependents: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
    var dependentTargets: [ObjectIdentifier: [ObjectIdentifier]] = [:]
    /// The watched destinations, retained so that their identities stay valid.
    var destinations: [ObjectIdentifier: ManagedObject] = [:]
    private var observation: ContextObservation?
    let snapshotStreams = SnapshotStreams()
    private let sectionsDescending: Bool
    private let refreshing: [RelationshipDescription]

    /// A controller over `fetchRequest`'s results in `managedObjectContext`,
    /// grouped into sections by `sectionNameKeyPath` if given. Sections are
    /// ordered by name, descending if the first sort descriptor is the
    /// section key path in reverse; sort by the section first, as in Core
    /// Data, so that objects are contiguous within their section. Nothing is
    /// fetched until ``performFetch()``.
    public init(fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
                sectionNameKeyPath: KeyPath<Result, String>? = nil) {
        self.fetchRequest = fetchRequest
        self.managedObjectContext = managedObjectContext
        self.sectionNameKeyPath = sectionNameKeyPath
        if let first = fetchRequest.sortDescriptors.first, let section = sectionNameKeyPath,
           first.keyPath == section as AnyKeyPath {
            sectionsDescending = first.order == .reverse
        } else {
            sectionsDescending = false
        }
        let entity = managedObjectContext.entity(for: Result.self)
        refreshing = fetchRequest.relationshipKeyPathsForRefreshing.compactMap { entity.relationship(named: $0) }.filter { !$0.isToMany }
    }

    // MARK: Results

    /// Fetches the results and starts following the context's changes.
    /// - Throws: the fetch's errors (``FetchError``, ``StoreError``).
    public func performFetch() throws {
        let context = managedObjectContext
        var request = fetchRequest
        request.fetchLimit = 0
        request.fetchOffset = 0
        let objects = try context.fetch(request)
        var fetched = objects.map { ($0, key(for: $0)) }
        fetched.sort { SortKey.isLess($0.1, $1.1, by: fetchRequest.sortDescriptors, sectionsDescending: sectionsDescending) }
        entries = fetched.map { (object: $0.0, key: $0.1) }
        keys = Dictionary(uniqueKeysWithValues: fetched.map { (ObjectIdentifier($0.0), $0.1) })
        tracked = Dictionary(uniqueKeysWithValues: objects.map { (ObjectIdentifier($0), $0) })
        dependents = [:]
        dependentTargets = [:]
        destinations = [:]
        for object in objects { track(object) }
        rebuildSections()
        if observation == nil {
            observation = context.addObserver(for: ObjectsDidChange.self) { [weak self] change in self?.process(change) }
        }
        snapshotStreams.yield(snapshot(sectionChanges: [], changes: []))
    }

    /// The fetched objects in order; `nil` before `performFetch()`.
    public var fetchedObjects: [Result]? { entries?.map(\.object) }

    /// The sections; `nil` before `performFetch()`. Without a section key
    /// path, one section named "" holds every object.
    public var sections: [FetchedResultsSectionInfo]? {
        guard let entries else { return nil }
        return sectionRanges.map { range in
            FetchedResultsSectionInfo(name: range.name, objects: entries[range.start..<(range.start + range.count)].map(\.object))
        }
    }

    /// The object at an index path.
    public func object(at indexPath: IndexPath) -> Result {
        let range = sectionRanges[indexPath.sectionIndex]
        precondition(indexPath.itemIndex < range.count, "Coherence: \(indexPath) is outside the results")
        return entries![range.start + indexPath.itemIndex].object
    }

    /// The index path of an object, or `nil` if it is not in the results.
    /// **Complexity:** O(log n).
    public func indexPath(forObject object: Result) -> IndexPath? {
        guard let key = keys[ObjectIdentifier(object)], let index = position(of: key, object: object) else { return nil }
        return indexPath(at: index)
    }

    /// The results as `Sendable` snapshots: the current one at once (if
    /// fetched), then one after every change, with the changes.
    public func snapshots() -> AsyncStream<FetchedResultsSnapshot> {
        let stream = snapshotStreams.add()
        if entries != nil { snapshotStreams.yield(snapshot(sectionChanges: [], changes: []), toLatest: true) }
        return stream
    }

    // MARK: Keys and positions

    func key(for object: Result) -> SortKey {
        let section = sectionNameKeyPath.map { object[keyPath: $0] } ?? ""
        let values = fetchRequest.sortDescriptors.map { descriptor in
            descriptor.keyPath.map { SortValue(object[keyPath: $0] as Any) } ?? .none
        }
        let id = object.objectID
        return SortKey(section: section, values: values, temporary: id.isTemporaryID ? 1 : 0, key: id.key)
    }

    func less(_ lhs: SortKey, _ rhs: SortKey) -> Bool {
        SortKey.isLess(lhs, rhs, by: fetchRequest.sortDescriptors, sectionsDescending: sectionsDescending)
    }

    /// The first index whose key is not less than `key`. **O(log n)**.
    func insertionIndex(for key: SortKey) -> Int {
        guard let entries else { return 0 }
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if less(entries[middle].key, key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where `object`, placed with `key`, is now.
    func position(of key: SortKey, object: Result) -> Int? {
        guard let entries else { return nil }
        let index = insertionIndex(for: key)
        return index < entries.count && entries[index].object === object ? index : nil
    }

    func indexPath(at index: Int) -> IndexPath {
        // Sections are few; a linear walk keeps them simple.
        for (section, range) in sectionRanges.enumerated() where index < range.start + range.count {
            return IndexPath(item: index - range.start, section: section)
        }
        return IndexPath(item: index, section: max(sectionRanges.count - 1, 0))
    }

    func rebuildSections() {
        sectionRanges = []
        guard let entries else { return }
        if sectionNameKeyPath == nil {
            sectionRanges = [("", 0, entries.count)]
            return
        }
        for (index, entry) in entries.enumerated() {
            if let last = sectionRanges.last, last.name == entry.key.section {
                sectionRanges[sectionRanges.count - 1].count += 1
            } else {
                sectionRanges.append((entry.key.section, index, 1))
            }
        }
    }

    // MARK: Dependencies along relationshipKeyPathsForRefreshing

    func track(_ object: Result) {
        guard !refreshing.isEmpty else { return }
        let context = managedObjectContext
        let targets = refreshing.compactMap { relationship -> ObjectIdentifier? in
            guard let id = relationship.access.storage(of: object).loadedIDs?.first else { return nil }
            let destination = context.object(with: id)
            destinations[ObjectIdentifier(destination)] = destination
            return ObjectIdentifier(destination)
        }
        dependentTargets[ObjectIdentifier(object)] = targets
        for target in targets { dependents[target, default: []].insert(ObjectIdentifier(object)) }
    }

    func untrack(_ object: Result) {
        for target in dependentTargets.removeValue(forKey: ObjectIdentifier(object)) ?? [] {
            dependents[target]?.remove(ObjectIdentifier(object))
            if dependents[target]?.isEmpty == true {
                dependents[target] = nil
                destinations[target] = nil
            }
        }
    }
}
