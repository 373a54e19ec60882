import Foundation

/// What every ``FetchedResultsController`` is, whatever its result type: the
/// type of the `controller` parameter of ``FetchedResultsControllerDelegate``,
/// where Core Data's delegate methods take an
/// `NSFetchedResultsController<NSFetchRequestResult>`.
///
/// Core Data's controller is an Objective-C generic, so every controller is
/// also an `NSFetchedResultsController<NSFetchRequestResult>`. A Swift
/// generic class is not: `FetchedResultsController<FeedItem>` and
/// `FetchedResultsController<ManagedObject>` are unrelated types. So every
/// ``FetchedResultsController`` inherits from this non-generic class, and
/// ported code writes `AnyFetchedResultsController` where Core Data code
/// writes `NSFetchedResultsController<NSFetchRequestResult>`:
///
/// ```swift
/// func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
///     if controller == itemsController { tableView.endUpdates() }
/// }
/// ```
///
/// It has everything but the typed members (``FetchedResultsController/fetchRequest``,
/// ``FetchedResultsController/fetchedObjects``,
/// ``FetchedResultsController/object(at:)``): cast it to your controller's
/// type for those. Controllers are equal when they are the same controller.
/// You don't create one; create a ``FetchedResultsController``.
public class AnyFetchedResultsController {
    /// The context whose objects and changes the controller follows.
    public let managedObjectContext: ManagedObjectContext
    /// The key path that names each object's section, as a string; `nil`
    /// without sections. For a controller created with a string, that string
    /// (`"server.name"`); for one created with a Swift key path, the name of
    /// the attribute it reads, or its description for another key path.
    public let sectionNameKeyPath: String?
    /// The `cacheName` the controller was created with. Nothing is written
    /// under this name: Coherence keeps no section cache on disk; sections
    /// are computed in memory by ``performFetch()`` and kept current from
    /// the context's changes. See ``deleteCache(withName:)``.
    public let cacheName: String?
    /// Receives the changes; not retained.
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    /// The fetched entity.
    let entity: EntityDescription
    /// How each object's section is found.
    let sectionKey: SectionKey
    /// The sort descriptors' rules, in order (of the request as the last
    /// `performFetch()` read it).
    private(set) var sortRules: [SortRule]
    /// Whether sections are in descending order (the first sort descriptor is).
    private(set) var sectionsDescending: Bool
    /// The to-one relationships whose destinations' changes update objects.
    private(set) var refreshing: [RelationshipDescription]

    /// The objects in order, with their keys; `nil` before `performFetch()`.
    var entries: [(object: ManagedObject, key: SortKey)]?
    /// The key each tracked object was placed with.
    var keys: [ObjectIdentifier: SortKey] = [:]
    /// The tracked objects, to find those that depend on a changed destination.
    var tracked: [ObjectIdentifier: ManagedObject] = [:]
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

    init(managedObjectContext: ManagedObjectContext, entity: EntityDescription, sectionKey: SectionKey,
         sectionNameKeyPath: String?, cacheName: String?, sortRules: [SortRule], refreshing: [String]) {
        self.managedObjectContext = managedObjectContext
        self.entity = entity
        self.sectionKey = sectionKey
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
        self.sortRules = sortRules
        sectionsDescending = sortRules.first?.reverse ?? false
        self.refreshing = refreshing.compactMap { entity.relationship(named: $0) }.filter { !$0.isToMany }
    }

    /// Takes the request's sort and refreshing key paths anew (Core Data's
    /// "Modifying the fetch request": change it, then `performFetch()`).
    func reconfigure(sortRules: [SortRule], refreshing: [String]) {
        self.sortRules = sortRules
        sectionsDescending = sortRules.first?.reverse ?? false
        self.refreshing = refreshing.compactMap { entity.relationship(named: $0) }.filter { !$0.isToMany }
    }

    /// Reads the fetch request as it is now, before a fetch (overridden by
    /// FetchedResultsController).
    func readFetchRequest() {}

    /// Does nothing: Core Data deletes the section cache files written under
    /// `name` (all of them for `nil`), and Coherence writes none. Kept so
    /// that ported code compiles.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/deletecache(withname:)>
    public static func deleteCache(withName name: String?) {}

    // MARK: The request's typed parts (overridden by FetchedResultsController)

    /// Fetches the results, unordered, ignoring any fetch limit or offset.
    func fetchResults() throws -> [ManagedObject] {
        fatalError("Coherence: AnyFetchedResultsController is only the base of FetchedResultsController")
    }

    /// Whether objects of the entity's sub-entities are results too
    /// (``FetchRequest/includesSubentities``).
    var includesSubentities: Bool { true }

    /// Whether `object` (of the fetched entity) matches the predicate.
    func matchesPredicate(_ object: ManagedObject) -> Bool {
        fatalError("Coherence: AnyFetchedResultsController is only the base of FetchedResultsController")
    }

    /// The values of the sort descriptors for `object`.
    func sortValues(of object: ManagedObject) -> [SortValue] {
        fatalError("Coherence: AnyFetchedResultsController is only the base of FetchedResultsController")
    }

    // MARK: Results

    /// Fetches the results and starts following the context's changes.
    /// - Throws: the fetch's errors (``FetchError``, ``StoreError``).
    public func performFetch() throws {
        readFetchRequest()
        let objects = try fetchResults()
        var fetched = objects.map { ($0, key(for: $0)) }
        fetched.sort { less($0.1, $1.1) }
        entries = fetched.map { (object: $0.0, key: $0.1) }
        keys = Dictionary(uniqueKeysWithValues: fetched.map { (ObjectIdentifier($0.0), $0.1) })
        tracked = Dictionary(uniqueKeysWithValues: objects.map { (ObjectIdentifier($0), $0) })
        dependents = [:]
        dependentTargets = [:]
        destinations = [:]
        for object in objects { track(object) }
        rebuildSections()
        if observation == nil {
            observation = managedObjectContext.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { [weak self] change in self?.process(change) }
        }
        snapshotStreams.yield(snapshot(sectionChanges: [], changes: []))
    }

    /// The sections; `nil` before `performFetch()`. Without a section key
    /// path, one section named "" holds every object.
    public var sections: [any FetchedResultsSectionInfo]? {
        guard entries != nil else { return nil }
        return sectionRanges.indices.map { section(at: $0) }
    }

    /// One section's info. **O(objects in it)**.
    func section(at index: Int) -> FetchedResultsSection {
        let range = sectionRanges[index]
        return FetchedResultsSection(name: range.name, indexTitle: indexTitle(forSectionName: range.name),
                                     objects: entries![range.start..<(range.start + range.count)].map(\.object))
    }

    /// The results as `Sendable` snapshots: the current one at once (if
    /// fetched), then one after every change, with the changes.
    public func snapshots() -> AsyncStream<FetchedResultsSnapshot> {
        let stream = snapshotStreams.add()
        if entries != nil { snapshotStreams.yield(snapshot(sectionChanges: [], changes: []), toLatest: true) }
        return stream
    }

    // MARK: Keys and positions

    func key(for object: ManagedObject) -> SortKey {
        let section = sectionKey.section(of: object)
        let id = object.objectID
        return SortKey(section: section.name, sectionValue: section.value, values: sortValues(of: object),
                       temporary: id.isTemporaryID ? 1 : 0, key: id.key)
    }

    func less(_ lhs: SortKey, _ rhs: SortKey) -> Bool {
        SortKey.isLess(lhs, rhs, by: sortRules, sectionsDescending: sectionsDescending)
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
    func position(of key: SortKey, object: ManagedObject) -> Int? {
        guard let entries else { return nil }
        let index = insertionIndex(for: key)
        return index < entries.count && entries[index].object === object ? index : nil
    }

    /// The index path of a tracked object, or `nil`. **O(log n)**.
    func indexPath(of object: ManagedObject) -> IndexPath? {
        guard let key = keys[ObjectIdentifier(object)], let index = position(of: key, object: object) else { return nil }
        return indexPath(at: index)
    }

    /// The entry at an index path.
    func entryIndex(at indexPath: IndexPath) -> Int {
        let range = sectionRanges[indexPath.sectionIndex]
        require(indexPath.itemIndex < range.count, "Coherence: \(indexPath) is outside the \(entity.name) results")
        return range.start + indexPath.itemIndex
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
        if !sectionKey.makesSections {
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

    func track(_ object: ManagedObject) {
        guard !refreshing.isEmpty else { return }
        let context = managedObjectContext
        let targets = refreshing.compactMap { relationship -> ObjectIdentifier? in
            guard let id = relationship.storage(of: object).loadedIDs?.first else { return nil }
            let destination = context.object(with: id)
            destinations[ObjectIdentifier(destination)] = destination
            return ObjectIdentifier(destination)
        }
        dependentTargets[ObjectIdentifier(object)] = targets
        for target in targets { dependents[target, default: []].insert(ObjectIdentifier(object)) }
    }

    func untrack(_ object: ManagedObject) {
        for target in dependentTargets.removeValue(forKey: ObjectIdentifier(object)) ?? [] {
            dependents[target]?.remove(ObjectIdentifier(object))
            if dependents[target]?.isEmpty == true {
                dependents[target] = nil
                destinations[target] = nil
            }
        }
    }
}

extension AnyFetchedResultsController: Hashable {
    /// Whether both are the same controller, as Core Data's controllers
    /// (`NSObject`s) compare.
    public static func == (lhs: AnyFetchedResultsController, rhs: AnyFetchedResultsController) -> Bool {
        lhs === rhs
    }

    /// Hashes the controller's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
