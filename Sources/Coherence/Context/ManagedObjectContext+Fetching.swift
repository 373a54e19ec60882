import Foundation

extension ManagedObjectContext {
    /// The objects that match `request`, registered in this context.
    ///
    /// Pending changes are processed first (posting didChangeObjects). With
    /// `includesPendingChanges` (the default) unsaved insertions count,
    /// deleted objects do not, and objects of the entity with unsaved changes
    /// are matched and ordered by their current values; the rest is matched
    /// by the store (in SQL for the SQLite store). Without pending changes,
    /// the SQLite store does the matching, ordering and windowing alone.
    ///
    /// With ``FetchRequest/returnsObjectsAsFaults`` off, each object is filled,
    /// and its `awakeFromFetch()` called, as it is made from its row, in the
    /// result's order: an object that `awakeFromFetch()` reaches further on
    /// in the same result is not registered yet and fires as a fault of its
    /// own. With relationships to prefetch, objects are filled after them.
    ///
    /// - Throws: ``FetchError/unsupportedPredicate(entity:construct:)`` when
    ///   the store cannot translate the predicate (see
    ///   ``FetchRequest/evaluatesPredicateInMemory``),
    ///   ``FetchError/predicateEvaluationFailed(entity:reason:)`` when
    ///   evaluating it in memory throws, ``StoreError`` when the store cannot
    ///   be read.
    ///
    /// **Complexity:** one store query (with a ``FetchRequest/fetchBatchSize``,
    /// one more per batch used later); with an in-memory store or in-memory
    /// evaluation, O(n log n) in the objects of the entity.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        _assertOnQueue()
        requireObjectResults(request)
        if let stores = request.affectedStores, let filter = affectedStoreFilter(stores) {
            return try window(fetch(filter.unwindowed(request)).filter { filter.contains($0.objectID) }, request)
        }
        processPendingChanges()
        // Without prefetching, objects are filled (and `awakeFromFetch()`
        // called) as the store's rows are turned into objects, while their
        // memory is still in the cache, or after in-memory matching; with
        // prefetching, once it is done.
        let prefetches = !request.relationshipKeyPathsForPrefetching.isEmpty
        let loaded = !request.returnsObjectsAsFaults && request.includesPropertyValues
        let objects = try matchingObjects(request, fulfilling: loaded && !prefetches)
        if prefetches {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects, entity: entity(of: request))
            if loaded {
                for object in objects where object.isFault { _fulfillFault(object) }
            }
        }
        return objects
    }

    /// The IDs of the objects `fetch(request)` would return.
    public func fetchObjectIDs<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [ManagedObjectID] {
        _assertOnQueue()
        if let stores = request.affectedStores, let filter = affectedStoreFilter(stores) {
            return try window(fetchObjectIDs(filter.unwindowed(request)).filter(filter.contains), request)
        }
        processPendingChanges()
        // An ID fetch registers no object, as Core Data's: the store gives
        // the IDs when it can; otherwise the objects registered here only
        // to evaluate the request are let go again.
        let entity = try entity(of: request)
        if !(request.includesPendingChanges && hasPendingChanges(of: entity, subentities: request.includesSubentities)),
           let ids = try storeObjectIDs(request, entity: entity) {
            return ids
        }
        var registeredHere: [ManagedObjectID] = []
        let ids = try matchingObjects(request, fulfilling: false, registeredHere: &registeredHere).map(\.objectID)
        forgetEvicted(registeredHere.compactMap { registered.evictIfUnreferenced($0, evenIfRetained: true) })
        return ids
    }

    /// The IDs `request` matches among committed objects, from the store
    /// alone; `nil` when the store cannot evaluate its predicate, order or
    /// window.
    private func storeObjectIDs<Result: ManagedObject>(_ request: FetchRequest<Result>, entity: EntityDescription) throws -> [ManagedObjectID]? {
        guard request.predicate == nil || !request.evaluatesPredicateInMemory,
              let sort = storeSortDescriptors(request.sortDescriptors, entity: entity) else { return nil }
        for descriptor in request.sortDescriptors { _ = try descriptor.keyedAttributeIndex(in: entity) }
        var storeRequest = StoreFetchRequest(entity: entity, predicate: request.predicate?.expression,
                                             variable: request.predicate?.variable.key, sortDescriptors: sort)
        storeRequest.includesSubentities = request.includesSubentities
        storeRequest.fetchLimit = request.fetchLimit
        storeRequest.fetchOffset = request.fetchOffset
        return try source.fetchObjectIDs(storeRequest)
    }

    /// The number of objects `fetch(request)` would return; counted by the
    /// store when no pending change of the entity can affect it.
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
        _assertOnQueue()
        if let stores = request.affectedStores, affectedStoreFilter(stores) != nil { return try fetchObjectIDs(request).count }
        processPendingChanges()
        let entity = try entity(of: request)
        if !request.evaluatesPredicateInMemory,
           !(request.includesPendingChanges && hasPendingChanges(of: entity, subentities: request.includesSubentities)) {
            var storeRequest = StoreFetchRequest(entity: entity, predicate: request.predicate?.expression,
                                                 variable: request.predicate?.variable.key)
            storeRequest.includesSubentities = request.includesSubentities
            storeRequest.fetchLimit = request.fetchLimit
            storeRequest.fetchOffset = request.fetchOffset
            if let count = try source.count(storeRequest) { return count }
        }
        return try matchingObjects(request).count
    }

    /// The committed values of the matching objects, as Core Data's
    /// dictionary result type gives them: one dictionary per object, keyed by
    /// property name, holding attribute values and the object IDs of to-one
    /// destinations (absent for `nil`). Unsaved changes are not included.
    /// - Parameter request: which objects, in which order.
    /// - Parameter propertiesToFetch: the names to include; all attributes
    ///   but transient ones, and to-one relationships, when `nil`. A transient
    ///   attribute throws ``ContextError/transientProperty(entity:property:)``:
    ///   the store does not keep it.
    public func fetchDictionaries<Result: ManagedObject>(
        _ request: FetchRequest<Result>, propertiesToFetch: [String]? = nil
    ) throws -> [[String: Any]] {
        let committed = request.copy()
        committed.resultType = .managedObjectResultType // the dictionaries are made from the objects
        committed.includesPendingChanges = false
        committed.fetchBatchSize = 0 // the dictionaries need every row's values now
        let entity = try entity(of: request)
        let names = propertiesToFetch ?? (entity.storedAttributes.map(\.name) + entity.relationships.filter { !$0.isToMany }.map(\.name))
        // The names are checked before fetching, so a bad one throws even
        // when nothing matches.
        let indexes = try names.map { name in
            guard let index = entity.indexByName[name] else {
                throw ContextError.unknownProperty(entity: entity.name, property: name)
            }
            if let relationship = entity.relationship(at: index), relationship.isToMany {
                throw ContextError.typeMismatch(entity: entity.name, property: name, expected: "an attribute or to-one relationship")
            }
            if index < entity.attributes.count, entity.attributes[index].isTransient {
                throw ContextError.transientProperty(entity: entity.name, property: name)
            }
            return index
        }
        let objects = try fetch(committed)
        return try objects.map { object in
            guard let snapshot = object._snapshot ?? _committedSnapshot(of: object) else { return [:] }
            var dictionary: [String: Any] = [:]
            // A sub-entity's object holds the parent's relationships further on.
            let own = object._entity
            let values = snapshot.values
            for (name, index) in zip(names, indexes) {
                let value = values[own === entity || own == nil ? index
                    : own!.localIndex(index, declaredWithAttributeCount: entity.attributes.count)]
                if entity.relationship(at: index) != nil {
                    if case .objectID(let id) = value { dictionary[name] = id }
                } else if value != .null {
                    dictionary[name] = try entity.attributes[index].access.swiftValue(value)
                }
            }
            return dictionary
        }
    }

    // MARK: Prefetching

    /// Loads the relationships named by `paths` for `objects` (all of
    /// `entity`) with one store query per relationship and level.
    private func prefetch(_ paths: [String], for objects: [ManagedObject], entity: EntityDescription) throws {
        var byFirst: [String: [String]] = [:]
        for path in paths {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            byFirst[parts[0], default: []] += parts.count > 1 ? [parts[1]] : []
        }
        for (name, rest) in byFirst.sorted(by: { $0.key < $1.key }) {
            guard let relationship = entity.relationship(named: name),
                  let destination = coordinator.managedObjectModel.entitiesByName[relationship.destinationEntityName] else {
                throw ContextError.unknownProperty(entity: entity.name, property: name)
            }
            let related = relationship.isToMany
                ? try prefetchToMany(relationship, for: objects)
                : try prefetchToOne(relationship, for: objects)
            if !rest.isEmpty { try prefetch(rest, for: related, entity: destination) }
        }
    }

    /// The committed or current value of a relationship, without firing a fault.
    private func unfiredValue(of object: ManagedObject, _ relationship: RelationshipDescription) -> StoreValue? {
        let relationship = Self.relationship(relationship, of: object)
        return object.isFault ? object._snapshot?.values[relationship.index]
            : relationship.storage(of: object).storeValue(for: relationship)
    }

    /// `relationship` (of a fetched entity) as the entity of `object` has it:
    /// further along in a sub-entity that adds attributes.
    private static func relationship(_ relationship: RelationshipDescription, of object: ManagedObject) -> RelationshipDescription {
        guard let entity = object._entity, entity.superentity != nil else { return relationship }
        return entity.relationship(named: relationship.name) ?? relationship
    }

    /// Prefetched objects are loaded: the context keeps them (a fault could
    /// be released, and its snapshot with it, before it is used).
    private func loadPrefetched(_ object: ManagedObject) {
        if object.isFault { _fulfillFault(object) }
    }

    private func prefetchToOne(_ relationship: RelationshipDescription, for objects: [ManagedObject]) throws -> [ManagedObject] {
        var ids = Set<ManagedObjectID>()
        for object in objects {
            if case .objectID(let id)? = unfiredValue(of: object, relationship) { ids.insert(id) }
        }
        let missing = ids.filter { id in
            guard let object = registered[id] else { return true }
            return object.isFault && object._snapshot == nil
        }
        for snapshot in try source.snapshots(for: Array(missing)) { loadPrefetched(self.object(for: snapshot)) }
        return ids.map { object(with: $0) }
    }

    private func prefetchToMany(_ relationship: RelationshipDescription, for objects: [ManagedObject]) throws -> [ManagedObject] {
        let owners = objects.filter { object in
            !object.isInserted && unfiredValue(of: object, relationship).map { $0 == .toManyFault } ?? true
        }
        var related: [ManagedObject] = []
        for (ownerID, snapshots) in try source.relatedSnapshots(of: owners.map(\.objectID), relationship: relationship) {
            let destinations = snapshots.map { self.object(for: $0) }
            destinations.forEach(loadPrefetched)
            related += destinations
            guard let owner = registered[ownerID] else { continue }
            let ids = destinations.map(\.objectID)
            let ownRelationship = Self.relationship(relationship, of: owner)
            if owner.isFault {
                guard let snapshot = owner._snapshot else { continue }
                let value: StoreValue = ownRelationship.isOrdered ? .orderedObjectIDs(ids) : .objectIDs(Set(ids))
                owner._snapshot = snapshot.replacingValues { $0[ownRelationship.index] = value }
            } else {
                _loadToManyFault(of: owner, ownRelationship, knownIDs: ids)
            }
        }
        return related
    }

    // MARK: Matching

    /// Whether unsaved insertions, changes or deletions of `entity` exist.
    private func hasPendingChanges(of entity: EntityDescription, subentities: Bool) -> Bool {
        tracker.inserted.contains { entity.matches($0._entity, subentities: subentities) }
            || tracker.deleted.contains { entity.matches($0._entity, subentities: subentities) }
            || tracker.discarded.contains { entity.matches($0._entity, subentities: subentities) }
            || tracker.hasChangedObject { entity.matches($0._entity, subentities: subentities) }
    }

    /// The request's sort descriptors as store sort keys, or `nil` if one of
    /// them needs Swift's comparison (a key path that is not an attribute, a
    /// transient attribute, a string comparator no store reproduces, or a
    /// type SQL orders differently).
    private func storeSortDescriptors<Result: ManagedObject>(_ descriptors: [SortDescriptor<Result>], entity: EntityDescription) -> [StoreSortDescriptor]? {
        var result: [StoreSortDescriptor] = []
        for descriptor in descriptors {
            let keyed = try? descriptor.keyedAttributeIndex(in: entity)
            guard let strings = StoreStringOrder(keyed != nil ? KeyedSortValue.strings : descriptor.stringComparator),
                  let index = keyed ?? descriptor.keyPath.flatMap({ entity.propertyIndex(for: $0) }),
                  index < entity.attributes.count, !entity.attributes[index].isTransient else { return nil }
            switch entity.attributes[index].attributeType {
            case .decimal, .codable, .uuid, .binaryData, .uri: return nil
            default: result.append(StoreSortDescriptor(propertyIndex: index, ascending: descriptor.order == .forward, strings: strings))
            }
        }
        return result
    }

    /// The registered object for a committed snapshot, registering a fault if
    /// needed; with `loaded`, an object that is not a fault (for fetches with
    /// `returnsObjectsAsFaults` off): a new one is loaded as it is made.
    func object(for snapshot: Snapshot, entity: EntityDescription? = nil, loaded: Bool = false) -> ManagedObject {
        if let object = registered[snapshot.objectID] {
            if object.isFault, object._snapshot == nil { object._snapshot = snapshot }
            if loaded, object.isFault { _fulfillFault(object) }
            return object
        }
        if loaded { return registerLoaded(snapshot, entity: entity) }
        return registerFault(snapshot.objectID, snapshot: snapshot, entity: entity)
    }

    /// The objects `request` matches; with `fulfilling`, none of them a fault.
    private func matchingObjects<Result: ManagedObject>(_ request: FetchRequest<Result>, fulfilling: Bool = false) throws -> [Result] {
        var registeredHere: [ManagedObjectID] = []
        return try matchingObjects(request, fulfilling: fulfilling, registeredHere: &registeredHere, tracksRegistrations: false)
    }

    /// ``matchingObjects(_:fulfilling:)``, adding to `registeredHere` the
    /// matches it registered while evaluating them on their values and,
    /// with `tracksRegistrations`, every other match it registered.
    private func matchingObjects<Result: ManagedObject>(_ request: FetchRequest<Result>, fulfilling: Bool,
                                                        registeredHere: inout [ManagedObjectID],
                                                        tracksRegistrations: Bool = true) throws -> [Result] {
        let entity = try entity(of: request)
        let subentities = request.includesSubentities
        let pending = request.includesPendingChanges && hasPendingChanges(of: entity, subentities: subentities)
        for descriptor in request.sortDescriptors { _ = try descriptor.keyedAttributeIndex(in: entity) }
        let storeSort = storeSortDescriptors(request.sortDescriptors, entity: entity)
        var predicateInStore = request.predicate != nil && !request.evaluatesPredicateInMemory
        let storeWindows = !pending && storeSort != nil && (request.predicate == nil || predicateInStore)

        var storeRequest = StoreFetchRequest(entity: entity, predicate: predicateInStore ? request.predicate?.expression : nil,
                                             variable: request.predicate?.variable.key, sortDescriptors: storeSort ?? [])
        storeRequest.includesSubentities = subentities
        if storeWindows {
            storeRequest.fetchLimit = request.fetchLimit
            storeRequest.fetchOffset = request.fetchOffset
        }
        var storeSorted = storeSort != nil
        if storeWindows, request.fetchBatchSize > 0, request.returnsObjectsAsFaults, request.relationshipKeyPathsForPrefetching.isEmpty,
           let ids = try source.fetchObjectIDs(storeRequest) {
            registered.reserveCapacity(ids.count)
            let objects = ids.map { id in registered[id] ?? registerFault(id, snapshot: nil, entity: entity) }
            faultBatches.add(objects, ids: ids, size: request.fetchBatchSize)
            return objects.map { $0 as! Result }
        }
        let snapshots: [Snapshot]
        if let answered = try source.fetch(storeRequest) {
            snapshots = answered
            registered.reserveCapacity(answered.count)
            if storeWindows {
                return answered.map { snapshot in
                    if tracksRegistrations, registered[snapshot.objectID] == nil { registeredHere.append(snapshot.objectID) }
                    return object(for: snapshot, entity: entity, loaded: fulfilling) as! Result
                }
            }
        } else {
            snapshots = try source.snapshots(of: entity, subentities: subentities)
            predicateInStore = false
            storeSorted = false
        }

        let windowed: [Result]
        if request.includesPendingChanges {
            return try matchingWithPendingChanges(request, snapshots: snapshots, entity: entity,
                                                  predicateInStore: predicateInStore, fulfilling: fulfilling,
                                                  registeredHere: &registeredHere)
        } else if predicateInStore, storeSorted {
            windowed = window(snapshots, request).map { object(for: $0, entity: entity) as! Result }
        } else {
            // Match, sort and window on committed values in a context that
            // has no pending changes, then hand out this context's objects
            // for the result only. The scratch objects refer to their
            // context without retaining it.
            let scratch = ManagedObjectContext(scratchFor: self)
            windowed = try withExtendedLifetime(scratch) {
                var candidates = snapshots.compactMap { scratch.registerFault($0.objectID, snapshot: $0) as? Result }
                if !predicateInStore { candidates = try filter(candidates, with: request, entity: entity) }
                if !storeSorted, !request.sortDescriptors.isEmpty { candidates.sort(using: request.sortDescriptors) }
                return window(candidates, request).map { scratchObject in
                    let id = scratchObject.objectID
                    if let known = registered[id] { return known as! Result }
                    if tracksRegistrations { registeredHere.append(id) }
                    return registerFault(id, snapshot: scratchObject._snapshot) as! Result
                }
            }
        }
        if fulfilling {
            for object in windowed where object.isFault { _fulfillFault(object) }
        }
        return windowed
    }

    /// The objects among `snapshots` (and this context's insertions and
    /// changes) that `request` matches, on their current values (a
    /// predicate or sort that follows a relationship reads this context's
    /// objects, unsaved changes included), sorted and windowed. Objects this
    /// fetch registered only to match them, and that nothing else holds, are
    /// let go again, so only the objects the fetch returns stay registered,
    /// as with Core Data: a fetch of 2 cars out of 10 registers 2.
    private func matchingWithPendingChanges<Result: ManagedObject>(
        _ request: FetchRequest<Result>, snapshots: [Snapshot], entity: EntityDescription,
        predicateInStore: Bool, fulfilling: Bool, registeredHere matchesRegistered: inout [ManagedObjectID]
    ) throws -> [Result] {
        let (windowed, registeredHere) = try matchAndWindow(request, snapshots: snapshots, entity: entity,
                                                             predicateInStore: predicateInStore)
        // The matching's own references are gone: what only the identity map
        // holds now was registered for nothing.
        // (Some matches may have been registered before: compare by ID.)
        if !registeredHere.isEmpty {
            let kept = Set(windowed.map(\.objectID))
            let unmatched = registeredHere.filter { !kept.contains($0) }
            if !unmatched.isEmpty {
                forgetEvicted(unmatched.compactMap { registered.evictIfUnreferenced($0, evenIfRetained: true) })
            }
            matchesRegistered += registeredHere.filter { kept.contains($0) }
        }
        if fulfilling {
            for object in windowed where object.isFault { _fulfillFault(object) }
        }
        return windowed
    }

    /// The matching of ``matchingWithPendingChanges(_:snapshots:entity:predicateInStore:fulfilling:)``,
    /// with the IDs of the objects it registered.
    private func matchAndWindow<Result: ManagedObject>(
        _ request: FetchRequest<Result>, snapshots: [Snapshot], entity: EntityDescription, predicateInStore: Bool
    ) throws -> (windowed: [Result], registeredHere: [ManagedObjectID]) {
        let subentities = request.includesSubentities
        // Objects the store matched stand unless they changed; everything
        // else is evaluated on its current values.
        let changed = Set(tracker.changedObjects.filter { entity.matches($0._entity, subentities: subentities) && !$0.isDeleted && !$0.isInserted })
        var evaluate: [Result] = []
        var matches: [Result] = []
        var seen = Set<ManagedObject>()
        var registeredHere: [ManagedObjectID] = []
        for snapshot in snapshots {
            if registered[snapshot.objectID] == nil { registeredHere.append(snapshot.objectID) }
            let object = self.object(for: snapshot)
            guard !object.isDeleted, let typed = object as? Result else { continue }
            seen.insert(object)
            if predicateInStore, !changed.contains(object) { matches.append(typed) } else { evaluate.append(typed) }
        }
        if predicateInStore {
            evaluate += changed.filter { !seen.contains($0) }.compactMap { $0 as? Result }
        }
        evaluate += tracker.inserted.filter { entity.matches($0._entity, subentities: subentities) }.compactMap { $0 as? Result }
        matches += try filter(evaluate, with: request, entity: entity)
        if !request.sortDescriptors.isEmpty { matches.sort(using: request.sortDescriptors) }
        return (window(matches, request), registeredHere)
    }

    private func filter<Result: ManagedObject>(
        _ candidates: [Result], with request: FetchRequest<Result>, entity: EntityDescription
    ) throws -> [Result] {
        guard let predicate = request.predicate else { return candidates }
        // A format predicate's keys are checked even when no object is evaluated.
        try FormatPredicateValidation.validate(predicate.expression, entity: entity, model: coordinator.managedObjectModel)
        do {
            return try candidates.filter { try predicate.evaluate($0) }
        } catch let error as PredicateFormatError {
            throw error // a format predicate's key that the entity does not have: typed, as the store throws it
        } catch {
            throw FetchError.predicateEvaluationFailed(entity: entity.name, reason: "\(error)")
        }
    }

    /// `objects` after the request's ``FetchRequest/fetchOffset`` and
    /// ``FetchRequest/fetchLimit``.
    func window<Element, Result>(_ objects: [Element], _ request: FetchRequest<Result>) -> [Element] {
        windowed(objects, offset: request.fetchOffset, limit: request.fetchLimit)
    }
}

/// `elements` from `offset` (0 when negative), at most `limit` of them (all
/// for 0 or less): a fetch's window, which no offset or limit can overflow.
func windowed<Element>(_ elements: [Element], offset: Int, limit: Int) -> [Element] {
    let start = min(max(offset, 0), elements.count)
    let end = limit > 0 ? start + min(limit, elements.count - start) : elements.count
    return Array(elements[start..<end])
}
