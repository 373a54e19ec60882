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
/// The untyped part (sections, section index, delegate, ``AnyFetchedResultsController/performFetch()``)
/// is in ``AnyFetchedResultsController``, the class its delegate receives.
///
/// Use it on its context's queue. **Complexity,** for k changed objects in
/// n results and s sections: up to 64 changed objects, O(k (log n + s))
/// plus moving array elements; more than that, one pass, O(n + k log k).
/// A listener of ``AnyFetchedResultsController/snapshots()`` adds O(n) per change.
public final class FetchedResultsController<Result: ManagedObject>: AnyFetchedResultsController {
    /// The request whose results the controller keeps: its predicate, sort
    /// descriptors and ``FetchRequest/relationshipKeyPathsForRefreshing``.
    public let fetchRequest: FetchRequest<Result>
    /// ``fetchRequest`` as the last `performFetch()` read it.
    private var active: FetchRequest<Result>
    /// `active`'s predicate and `includesSubentities`, read once per fetch
    /// rather than under the request's lock for every changed object.
    private var activePredicate: Predicate<Result>?
    private var activeIncludesSubentities = true
    /// How each sort descriptor of `active` reads an object.
    private var sortReaders: [(Result) -> SortValue] = []

    /// A controller over `fetchRequest`'s results in `managedObjectContext`,
    /// grouped into sections by the string `sectionNameKeyPath` if given, as
    /// Core Data's initializer takes it: an attribute's name (`"section"`),
    /// or a path of to-one relationships ending at an attribute
    /// (`"server.name"`), or a computed property of the class that it
    /// offers by name through ``ManagedObject/value(forUndefinedKey:)``
    /// (Core Data reads `@objc` computed properties by name). A section's
    /// name is the value: a string as it is, a Boolean "1" or "0", another
    /// value its description, "" for `nil`. Traps, naming the entity and
    /// the key, for a relationship where an attribute must be, and, when
    /// sections are first made, for a key neither the model nor the class
    /// offers (Core Data raises).
    ///
    /// Sort by the section first, as Core Data requires, so that objects are
    /// contiguous within their section; sections are in the order of their
    /// values (10 after 9), in the first sort descriptor's direction and,
    /// for strings, its comparison. A path through a
    /// relationship follows a change of the destination (a renamed server)
    /// only if ``FetchRequest/relationshipKeyPathsForRefreshing`` names that
    /// relationship.
    ///
    /// `cacheName` is kept in ``AnyFetchedResultsController/cacheName`` and
    /// otherwise unused: nothing is persisted; sections are computed in
    /// memory. Nothing is fetched until ``AnyFetchedResultsController/performFetch()``.
    ///
    /// Core Data: <https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/init(fetchrequest:managedobjectcontext:sectionnamekeypath:cachename:)>
    public init(fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
                sectionNameKeyPath: String?, cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        active = fetchRequest.copy()
        let entity = managedObjectContext.entity(forController: fetchRequest)
        let sectionKey = sectionNameKeyPath.map { SectionKey.resolve($0, entity: entity, in: managedObjectContext) } ?? .none
        super.init(managedObjectContext: managedObjectContext, entity: entity, sectionKey: sectionKey,
                   sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName,
                   sortRules: fetchRequest.sortDescriptors.map(SortRule.init), refreshing: fetchRequest.relationshipKeyPathsForRefreshing)
    }

    /// A controller over `fetchRequest`'s results in `managedObjectContext`,
    /// grouped into sections by the Swift key path `sectionNameKeyPath` if
    /// given: any key path to a `String`, computed ones included.
    ///
    /// Sort by the section first, as Core Data requires, so that objects are
    /// contiguous within their section; sections are ordered by name, in the
    /// first sort descriptor's direction and string comparison. `cacheName` is kept in
    /// ``AnyFetchedResultsController/cacheName`` and otherwise unused:
    /// nothing is persisted. Nothing is fetched until
    /// ``AnyFetchedResultsController/performFetch()``.
    @_disfavoredOverload
    public init(fetchRequest: FetchRequest<Result>, managedObjectContext: ManagedObjectContext,
                sectionNameKeyPath: KeyPath<Result, String>? = nil, cacheName: String? = nil) {
        self.fetchRequest = fetchRequest
        active = fetchRequest.copy()
        let entity = managedObjectContext.entity(forController: fetchRequest)
        var sectionKey = SectionKey.none
        var name: String?
        if let keyPath = sectionNameKeyPath {
            sectionKey = .name { object in unsafeDowncast(object, to: Result.self)[keyPath: keyPath] }
            if let index = entity.propertyIndex(for: keyPath), index < entity.attributes.count {
                name = entity.attributes[index].name
            } else {
                name = String(describing: keyPath)
            }
        }
        super.init(managedObjectContext: managedObjectContext, entity: entity, sectionKey: sectionKey,
                   sectionNameKeyPath: name, cacheName: cacheName,
                   sortRules: fetchRequest.sortDescriptors.map(SortRule.init), refreshing: fetchRequest.relationshipKeyPathsForRefreshing)
    }

    // MARK: Typed results

    /// The fetched objects in order; `nil` before `performFetch()`.
    public var fetchedObjects: [Result]? { entries?.map { unsafeDowncast($0.object, to: Result.self) } }

    /// The object at an index path.
    public func object(at indexPath: IndexPath) -> Result {
        unsafeDowncast(entries![entryIndex(at: indexPath)].object, to: Result.self)
    }

    /// The index path of an object, or `nil` if it is not in the results.
    /// **Complexity:** O(log n).
    public func indexPath(forObject object: Result) -> IndexPath? {
        indexPath(of: object)
    }

    // MARK: The request's typed parts

    /// The request as the last `performFetch()` read it: a copy, so that
    /// changes to ``fetchRequest`` take effect at the next `performFetch()`,
    /// as Core Data's "Modifying the fetch request" describes.
    override func readFetchRequest() {
        active = fetchRequest.copy()
        activePredicate = active.predicate
        activeIncludesSubentities = active.includesSubentities
        reconfigure(sortRules: active.sortDescriptors.map(SortRule.init), refreshing: active.relationshipKeyPathsForRefreshing)
        sortReaders = Self.sortReaders(for: active.sortDescriptors, entity: entity)
    }

    override func fetchResults() throws -> [ManagedObject] {
        let request = active.copy()
        request.fetchLimit = 0
        request.fetchOffset = 0
        return try managedObjectContext.fetch(request)
    }

    override var includesSubentities: Bool { activeIncludesSubentities }

    override func matchesPredicate(_ object: ManagedObject) -> Bool {
        (try? activePredicate?.evaluate(unsafeDowncast(object, to: Result.self))) ?? true
    }

    override func sortValues(of object: ManagedObject) -> [SortValue] {
        let result = unsafeDowncast(object, to: Result.self)
        return sortReaders.map { $0(result) }
    }

    /// One reader per sort descriptor: a key path to a stored attribute is
    /// read straight from the object's storage in store form (no key-path
    /// projection, no dynamic casts of `Any`), any other through the key path.
    private static func sortReaders(for descriptors: [SortDescriptor<Result>], entity: EntityDescription) -> [(Result) -> SortValue] {
        descriptors.map { descriptor in
            guard let keyPath = descriptor.keyPath else { return { _ in .none } }
            let viaKeyPath: (Result) -> SortValue = { SortValue($0[keyPath: keyPath] as Any) }
            guard let index = entity.propertyIndex(for: keyPath), index < entity.attributes.count,
                  SortValue.sortsByStoreValue(entity.attributes[index].attributeType) else {
                return viaKeyPath
            }
            let attribute = entity.attributes[index]
            return { object in
                if object._needsAccessCheck { object._prepareForRead() }
                guard let value = attribute.storeValue(of: object), let sortValue = SortValue(storeValue: value) else {
                    return viaKeyPath(object)
                }
                return sortValue
            }
        }
    }
}
