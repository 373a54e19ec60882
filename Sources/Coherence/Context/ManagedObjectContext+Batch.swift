import Foundation

// Batch requests: straight to the store, no managed objects, no notifications.
extension ManagedObjectContext {
    /// Inserts the request's objects in one store transaction. Posts no
    /// notification; merge the result's `changes` into live contexts with
    /// ``mergeChanges(fromRemoteContextSave:into:)-(ObjectIDChanges,_)``.
    /// - Throws: ``ContextError/unknownProperty(entity:property:)`` or
    ///   ``ContextError/typeMismatch(entity:property:expected:)`` for a bad
    ///   value, ``ValidationError/missingValue(entity:property:)`` for a
    ///   required attribute without one, ``ValidationError/invalidValue(entity:property:reason:)``
    ///   for a NaN number, date or decimal (no store reads one back), ``StoreError``, ``MergeError`` for
    ///   objects that break a uniqueness constraint under the `.error` merge
    ///   policy (other policies upsert, as a save does); nothing is inserted.
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchInsertRequest<Entity>) throws -> PersistentStoreResult {
        _assertOnQueue()
        let entity = try entity(named: request.entityName, as: Entity.self)
        if entity.isAbstract { fatalError("Coherence: \(entity.name) is an abstract entity and cannot be instantiated; insert objects of one of its sub-entities") }
        let rows = try request.objects.map { try storeRow(for: $0, entity: entity) }
        // Uniqueness constraints are resolved by a save (with this context's
        // merge policy), as for objects inserted one by one.
        if entity.constraintIndexes.isEmpty, let result = try coordinator.execute(.insert(entity: entity, rows: rows), author: transactionAuthor, contextName: name) {
            return BatchInsertResult(resultType: request.resultType, affected: result.affected, changes: result.changes)
        }
        let scratch = ManagedObjectContext(scratchFor: self)
        scratch.mergePolicy = mergePolicy
        return try withExtendedLifetime(scratch) {
            let objects = try rows.map { row in
                let object = entity.managedObjectClass.init()
                scratch.insert(object)
                for attribute in entity.attributes {
                    try attribute.setStoreValue(row[attribute.index], of: object)
                }
                // Through the setter, so the destinations' inverses follow.
                for relationship in entity.relationships where !row[relationship.index].referencedIDs.isEmpty {
                    let destinations = try row[relationship.index].referencedIDs.map { try scratch.existingObject(with: $0) }
                    scratch._setRelationship(of: object, index: relationship.index, to: destinations)
                }
                return object
            }
            let saved = try scratch.saveChanges()
            // Duplicates merged into stored objects (an upsert) count as those.
            let affected = entity.constraintIndexes.isEmpty ? objects.map(\.objectID)
                : (saved.objectIDs.inserted.union(saved.objectIDs.updated)).filter { id in
                    self.coordinator.managedObjectModel.entity(for: id.objectClass)?.rootEntity === entity.rootEntity }.sorted { $0.key < $1.key }
            return BatchInsertResult(resultType: request.resultType, affected: affected, changes: saved.objectIDs)
        }
    }

    /// Sets attributes of every matching object in one store transaction.
    /// Posts no notification; merge the result's `changes` into live contexts.
    /// - Throws: as ``execute(_:)-(BatchInsertRequest<Entity>)``, and
    ///   ``FetchError/unsupportedPredicate(entity:construct:)``.
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchUpdateRequest<Entity>) throws -> PersistentStoreResult {
        _assertOnQueue()
        let entity = try entity(named: request.entityName, as: Entity.self)
        var values: [Int: StoreValue] = [:]
        for (name, value) in request.propertiesToUpdate {
            guard let attribute = entity.attribute(named: name) else {
                throw ContextError.unknownProperty(entity: entity.name, property: name)
            }
            guard !attribute.isDerived else { throw ContextError.readOnlyProperty(entity: entity.name, property: name) }
            guard !attribute.isTransient else { throw ContextError.transientProperty(entity: entity.name, property: name) }
            guard let stored = try attribute.access.storeValue(forSwiftValue: value) else {
                throw ContextError.typeMismatch(entity: entity.name, property: name, expected: "\(attribute.valueType)")
            }
            if stored.isNaN { throw ValidationError.invalidValue(entity: entity.name, property: name, reason: StoreValue.notANumber) }
            values[attribute.index] = stored
        }
        if let result = try coordinator.execute(.update(entity: entity, predicate: request.predicate?.expression,
                                                          variable: request.predicate?.variable.key, values: values,
                                                          includesSubentities: request.includesSubentities),
                                                 author: transactionAuthor, contextName: name) {
            return BatchUpdateResult(resultType: request.resultType, affected: result.affected, changes: result.changes)
        }
        let result = try runInScratchContext(matching: request.predicate, entityName: request.entityName,
                                             includesSubentities: request.includesSubentities) { object, _ in
            for (index, value) in values {
                object._prepareForWriteAt(index: index)
                try entity.attributes[index].setStoreValue(value, of: object)
            }
        }
        return BatchUpdateResult(resultType: request.resultType, affected: result.affected, changes: result.changes)
    }

    /// Deletes every matching object in one store transaction, applying
    /// delete rules in the store. Posts no notification; merge the result's
    /// `changes` into live contexts.
    /// - Throws: ``ValidationError/deleteDenied(entity:property:)`` when a
    ///   `.deny` rule forbids it (nothing is deleted),
    ///   ``FetchError/unsupportedPredicate(entity:construct:)``, ``StoreError``.
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchDeleteRequest<Entity>) throws -> PersistentStoreResult {
        _assertOnQueue()
        let entity = try entity(named: request.entityName, as: Entity.self)
        if let result = try coordinator.execute(.delete(entity: entity, predicate: request.predicate?.expression,
                                                          variable: request.predicate?.variable.key,
                                                          includesSubentities: request.includesSubentities),
                                                 author: transactionAuthor, contextName: name) {
            return BatchDeleteResult(resultType: request.resultType, affected: result.affected, changes: result.changes)
        }
        let result = try runInScratchContext(matching: request.predicate, entityName: request.entityName,
                                             includesSubentities: request.includesSubentities) { object, scratch in
            scratch.delete(object)
        }
        return BatchDeleteResult(resultType: request.resultType, affected: result.affected, changes: result.changes)
    }

    /// A batch request for stores without native ones: the matching objects
    /// are changed in a scratch context (which posts nothing) and saved.
    private func runInScratchContext<Entity: ManagedObject>(
        matching predicate: Predicate<Entity>?, entityName: String?, includesSubentities: Bool,
        _ change: (Entity, ManagedObjectContext) throws -> Void
    ) throws -> StoreBatchResult {
        let scratch = ManagedObjectContext(scratchFor: self)
        return try withExtendedLifetime(scratch) {
            let fetch = FetchRequest<Entity>(predicate: predicate)
            fetch.entityName = entityName
            fetch.evaluatesPredicateInMemory = true
            fetch.includesSubentities = includesSubentities
            let objects = try scratch.fetch(fetch)
            for object in objects { try change(object, scratch) }
            let saved = try scratch.saveChanges()
            return StoreBatchResult(affected: objects.map(\.objectID), changes: saved.objectIDs)
        }
    }

    /// The store values of one batch-inserted object.
    private func storeRow(for values: [String: Any], entity: EntityDescription) throws -> [StoreValue] {
        var row: [StoreValue?] = entity.attributes.map(\.defaultValue) + entity.relationships.map { $0.emptyValue }
        for (name, value) in values {
            guard let index = entity.indexByName[name] else { throw ContextError.unknownProperty(entity: entity.name, property: name) }
            if let relationship = entity.relationship(at: index) {
                if relationship.isToMany {
                    throw ContextError.typeMismatch(entity: entity.name, property: name, expected: "an attribute or a to-one relationship")
                }
                if value is NSNull { row[index] = .null; continue }
                guard let id = value as? ManagedObjectID, !id.isTemporaryID,
                      let destination = coordinator.managedObjectModel.entitiesByName[relationship.destinationEntityName],
                      coordinator.managedObjectModel.entity(for: id.objectClass)?.isKind(of: destination) == true else {
                    throw ContextError.typeMismatch(entity: entity.name, property: name, expected: "a permanent ManagedObjectID of \(relationship.destinationEntityName)")
                }
                row[index] = .objectID(id)
            } else {
                guard !entity.attributes[index].isDerived else { throw ContextError.readOnlyProperty(entity: entity.name, property: name) }
                guard !entity.attributes[index].isTransient else { throw ContextError.transientProperty(entity: entity.name, property: name) }
                guard let stored = try entity.attributes[index].access.storeValue(forSwiftValue: value) else {
                    throw ContextError.typeMismatch(entity: entity.name, property: name, expected: "\(entity.attributes[index].valueType)")
                }
                if stored.isNaN { throw ValidationError.invalidValue(entity: entity.name, property: name, reason: StoreValue.notANumber) }
                row[index] = stored
            }
        }
        return try row.enumerated().map { index, value in
            guard let value else { throw ValidationError.missingValue(entity: entity.name, property: entity.propertyName(at: index)) }
            return value
        }
    }
}
