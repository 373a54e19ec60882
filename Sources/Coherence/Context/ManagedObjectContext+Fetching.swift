import Foundation

extension ManagedObjectContext {
    /// The objects that match `request`, registered in this context.
    ///
    /// Pending changes are processed first (posting didChangeObjects). With
    /// `includesPendingChanges` (the default) unsaved insertions count,
    /// deleted objects do not, and predicates and sorting see current values.
    ///
    /// - Throws: ``FetchError`` when the predicate cannot be evaluated,
    ///   ``StoreError`` when the store cannot be read.
    ///
    /// **Complexity:** O(n log n) in the objects of the entity: the in-memory
    /// store evaluates predicates on objects.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        _assertOnQueue()
        processPendingChanges()
        let entity = entity(for: Result.self)
        let snapshots = try coordinator.snapshots(of: entity)
        let matched: [Result]
        if request.includesPendingChanges {
            var candidates: [Result] = []
            candidates.reserveCapacity(snapshots.count)
            for snapshot in snapshots {
                let object = registered[snapshot.objectID] ?? registerFault(snapshot.objectID, snapshot: snapshot)
                if !object.isDeleted, let typed = object as? Result { candidates.append(typed) }
            }
            for object in tracker.inserted where type(of: object) == Result.self {
                candidates.append(object as! Result)
            }
            matched = try filterAndSort(candidates, with: request, entity: entity)
        } else {
            // Match and sort in a context that has no pending changes, then
            // hand out this context's objects.
            let scratch = ManagedObjectContext(scratchFor: self)
            let candidates = snapshots.compactMap { scratch.registerFault($0.objectID, snapshot: $0) as? Result }
            matched = try filterAndSort(candidates, with: request, entity: entity).map { scratchObject in
                let id = scratchObject.objectID
                return (registered[id] ?? registerFault(id, snapshot: scratchObject._snapshot)) as! Result
            }
        }
        return window(matched, request)
    }

    /// The number of objects `fetch(request)` would return.
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
        try fetch(request).count
    }

    private func filterAndSort<Result: ManagedObject>(
        _ candidates: [Result], with request: FetchRequest<Result>, entity: EntityDescription
    ) throws -> [Result] {
        var result = candidates
        if let predicate = request.predicate {
            do {
                result = try result.filter { try predicate.evaluate($0) }
            } catch {
                throw FetchError.predicateEvaluationFailed(entity: entity.name, reason: "\(error)")
            }
        }
        if !request.sortDescriptors.isEmpty {
            result.sort(using: request.sortDescriptors)
        }
        return result
    }

    private func window<Result>(_ objects: [Result], _ request: FetchRequest<some ManagedObject>) -> [Result] {
        let start = min(max(request.fetchOffset, 0), objects.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, objects.count) : objects.count
        return Array(objects[start..<end])
    }
}
