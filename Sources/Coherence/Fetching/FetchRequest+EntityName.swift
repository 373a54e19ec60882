import Foundation

extension FetchRequest {
    /// A request for the objects of the entity named `entityName`: Core
    /// Data's `NSFetchRequest(entityName:)`, for generic code that does not
    /// know the entity's Swift type.
    ///
    /// ```swift
    /// let request = FetchRequest<ManagedObject>(
    ///     entityName: "Car", sortBy: [SortDescriptor(key: "make")])
    /// let cars = try context.fetch(request)          // [ManagedObject]
    /// let count = try context.count(for: request)
    /// ```
    ///
    /// `Result` is usually ``ManagedObject``; predicates and sort
    /// descriptors then must not depend on a subclass: ``CompoundPredicate``s
    /// of such predicates, `#Predicate<ManagedObject> { $0.objectID == id }`,
    /// and sort descriptors by name (`SortDescriptor(key:order:)`).
    /// Values are read with ``ManagedObject/value(forKey:)``.
    ///
    /// A fetch, count or dictionary fetch throws
    /// ``FetchError/unknownEntity(name:)`` when the model has no entity of
    /// that name. An entity whose class is not `Result` or a subclass of it
    /// is a programming error and stops the program.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/init(entityname:)>
    public convenience init(entityName: String, predicate: Predicate<Result>? = nil, sortBy sortDescriptors: [SortDescriptor<Result>] = []) {
        self.init(predicate: predicate, sortBy: sortDescriptors)
        self.entityName = entityName
    }
}

extension ManagedObjectContext {
    /// The entity `request` fetches: the one it names, or `Result`'s.
    func entity<Result: ManagedObject>(of request: FetchRequest<Result>) throws -> EntityDescription {
        try entity(named: request.entityName, as: Result.self)
    }

    /// The entity named `name` (a request's `entityName`), or `type`'s for
    /// `nil`. An entity whose objects are not `type` objects is a
    /// programming error and stops the program, naming both, in release
    /// builds too.
    /// - Throws: ``FetchError/unknownEntity(name:)`` for a name the model
    ///   does not have.
    func entity<T: ManagedObject>(named name: String?, as type: T.Type) throws -> EntityDescription {
        guard let name else { return entity(for: T.self) }
        guard let entity = coordinator.managedObjectModel.entitiesByName[name] else {
            throw FetchError.unknownEntity(name: name)
        }
        guard entity.managedObjectClass is T.Type else {
            fatalError("Coherence: a request for \(T.self) objects cannot use the entity \(name): its objects are not \(T.self) objects")
        }
        return entity
    }

    /// The entity a fetched results controller's request fetches. A
    /// controller cannot throw when made: an unknown entity name stops the
    /// program, naming it, as Core Data raises for it.
    func entity<Result: ManagedObject>(forController request: FetchRequest<Result>) -> EntityDescription {
        do {
            return try entity(of: request)
        } catch {
            fatalError("Coherence: a fetched results controller's request names the entity \"\(request.entityName ?? "")\", which the model of \(self) does not have")
        }
    }
}
