import Foundation

// Core Data's requests for results other than objects: a `resultType` on
// the request, read by `fetch(_:)` and `count(for:)`. The request is turned
// into a request for the entity's objects, and the objects into the results.
extension ManagedObjectContext {
    /// The results of `request`, as Core Data's `fetch(_:)` gives them for
    /// its ``FetchRequest/resultType``: objects, ``ManagedObjectID``s, one
    /// `NSDictionary` per object or group, or one `NSNumber` holding the
    /// count. For requests whose `Result` is not an entity's class:
    ///
    /// ```swift
    /// let request = FetchRequest<NSDictionary>(entityName: "Car")
    /// request.resultType = .dictionaryResultType
    /// request.propertiesToFetch = ["maker"]
    /// request.returnsDistinctResults = true
    /// let makers = try context.fetch(request).map { $0["maker"] as! String }
    /// ```
    ///
    /// The request must name its entity (``FetchRequest/entityName`` or
    /// ``FetchRequest/entity``). Its predicate must read the objects by name
    /// (`Predicate(format:)`, `Predicate(value:)`, ``CompoundPredicate``s of
    /// them) and its sort descriptors must be by name
    /// (`SortDescriptor(key:ascending:)`). Objects, IDs and counts include
    /// unsaved changes as the typed ``fetch(_:)-1kja4`` does;
    /// dictionaries hold committed values, as Core Data's. A result type
    /// that `Result` cannot hold (a count for a `FetchRequest<NSDictionary>`)
    /// stops the program, naming both, where Core Data's cast would fail.
    /// - Throws: ``FetchError/noEntity(resultType:)``,
    ///   ``FetchError/predicateNotOnObjects(resultType:)``,
    ///   ``FetchError/unknownSortKey(entity:key:)``, and the errors of
    ///   ``fetch(_:)-1kja4`` and
    ///   ``fetchDictionaries(_:propertiesToFetch:propertiesToGroupBy:havingPredicate:returnsDistinctResults:)``.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/fetch(_:)>
    @_disfavoredOverload
    public func fetch<Result>(_ request: FetchRequest<Result>) throws -> [Result] {
        let settings = request.snapshot
        let resultType = settings.resultType
        // Generic code over `FetchRequestResult` whose `Result` is an
        // entity's class: the typed fetch, typed predicates included.
        if resultType == .managedObjectResultType, let objectClass = Result.self as? ManagedObject.Type {
            return try objectClass.fetchTyped(request, in: self) as! [Result]
        }
        let objects = try objectRequest(for: settings, resultName: "\(Result.self)")
        switch resultType {
        case .managedObjectResultType:
            return try fetch(objects).map { cast($0, from: objects, resultType) }
        case .managedObjectIDResultType:
            return try fetchObjectIDs(objects).map { cast($0, from: objects, resultType) }
        case .countResultType:
            return [cast(NSNumber(value: try count(for: objects)), from: objects, resultType)]
        case .dictionaryResultType:
            let rows: [[String: Any]]
            if let properties = settings.propertiesToFetch {
                rows = try fetchDictionaries(objects, propertiesToFetch: properties, propertiesToGroupBy: settings.propertiesToGroupBy ?? [],
                                             havingPredicate: settings.havingPredicate, returnsDistinctResults: settings.returnsDistinctResults)
            } else {
                rows = try fetchDictionaries(objects, propertiesToFetch: nil)
            }
            return rows.map { cast(NSDictionary(dictionary: $0), from: objects, resultType) }
        }
    }

    /// The number of objects `request` matches, for a request whose
    /// `Result` is not an entity's class (Core Data's untyped
    /// `count(for:)`); see ``fetch(_:)-9t4sm``.
    /// - Throws: as ``fetch(_:)-9t4sm``.
    @_disfavoredOverload
    public func count<Result>(for request: FetchRequest<Result>) throws -> Int {
        if let objectClass = Result.self as? ManagedObject.Type {
            return try objectClass.countTyped(request, in: self)
        }
        return try count(for: objectRequest(for: request.snapshot, resultName: "\(Result.self)"))
    }

    /// A request with `settings` (of a request for `Result`s) as a request
    /// for the objects of its entity: the same options, its predicate and
    /// sort descriptors read by name.
    func objectRequest<Result>(for settings: FetchRequest<Result>.Settings, resultName: String) throws -> FetchRequest<ManagedObject> {
        let entityName: String
        if let name = settings.entityName {
            entityName = name
        } else if let objectClass = Result.self as? ManagedObject.Type {
            entityName = entity(for: objectClass).name
        } else {
            throw FetchError.noEntity(resultType: resultName)
        }
        let objects = FetchRequest<ManagedObject>(entityName: entityName)
        let entity = try self.entity(of: objects)
        if let predicate = settings.predicate {
            guard let retyped = retypedPredicate(predicate, as: ManagedObject.self) else {
                throw FetchError.predicateNotOnObjects(resultType: resultName)
            }
            objects.predicate = retyped
        }
        let names = entity.attributes.map(\.name)
        objects.sortDescriptors = try settings.sortDescriptors.map { descriptor in
            guard let name = descriptor.attributeName(among: names) else {
                throw FetchError.unknownSortKey(entity: entity.name, key: descriptor.keyPath.map { "\($0)" } ?? "?")
            }
            return SortDescriptor<ManagedObject>(key: name, order: descriptor.order)
        }
        objects.state.withLock { $0.copyOptions(from: settings) }
        return objects
    }

    /// `value` as the request's `Result`, or a trap naming both.
    private func cast<Result>(_ value: Any, from request: FetchRequest<ManagedObject>, _ resultType: FetchRequestResultType) -> Result {
        guard let result = value as? Result else {
            fatalError("Coherence: a \(request.entityName ?? "") fetch with resultType \(resultType) returns \(type(of: value)) values, "
                       + "which a FetchRequest<\(Result.self)> cannot hold")
        }
        return result
    }
}

extension FetchRequest.Settings {
    /// Every setting of `other` but its entity, predicate and sort descriptors.
    mutating func copyOptions<Other>(from other: FetchRequest<Other>.Settings) {
        fetchLimit = other.fetchLimit
        fetchOffset = other.fetchOffset
        includesPendingChanges = other.includesPendingChanges
        evaluatesPredicateInMemory = other.evaluatesPredicateInMemory
        returnsObjectsAsFaults = other.returnsObjectsAsFaults
        fetchBatchSize = other.fetchBatchSize
        relationshipKeyPathsForPrefetching = other.relationshipKeyPathsForPrefetching
        relationshipKeyPathsForRefreshing = other.relationshipKeyPathsForRefreshing
        includesSubentities = other.includesSubentities
        includesPropertyValues = other.includesPropertyValues
        resultType = .managedObjectResultType
        propertiesToFetch = other.propertiesToFetch
        propertiesToGroupBy = other.propertiesToGroupBy
        havingPredicate = other.havingPredicate
        returnsDistinctResults = other.returnsDistinctResults
        affectedStores = other.affectedStores
    }
}

extension ManagedObject {
    /// `context.fetch(request)` for a request that is a `FetchRequest<Self>`
    /// known only as `Any` (generic code over `FetchRequestResult`): `Self`
    /// is the class the method is called on.
    class func fetchTyped(_ request: Any, in context: ManagedObjectContext) throws -> [Any] {
        try context.fetch(request as! FetchRequest<Self>)
    }

    /// `context.count(for: request)`, as ``fetchTyped(_:in:)``.
    class func countTyped(_ request: Any, in context: ManagedObjectContext) throws -> Int {
        try context.count(for: request as! FetchRequest<Self>)
    }
}
