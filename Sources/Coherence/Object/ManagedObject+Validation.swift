// Validation: the checks behind `validateForInsert()`, `validateForUpdate()`,
// `validateForDelete()` and `validateValue(_:forKey:)`, and the ones a save
// makes whatever those methods do.
extension ManagedObject {
    /// The default ``validateForInsert()`` and ``validateForUpdate()``.
    final func _validateProperties() throws {
        var errors: [ValidationError] = []
        if let context = _contextRef, !context.isValidatingSave {
            _graphErrors(in: context, into: &errors)
        }
        _valueErrors(into: &errors)
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// The default ``validateForDelete()``: the `.deny` rule.
    final func _validateDeletion() throws {
        guard let context = _contextRef, !context.isValidatingSave else { return }
        if let error = ValidationError.combining(_denyErrors(in: context)) { throw error }
    }

    /// The default ``validateValue(_:forKey:)``: a required attribute needs
    /// a value.
    final func _validateRequiredValue(_ value: Any?, forKey key: String) throws {
        guard value == nil, let entity = _entity, let index = entity.indexByName[key],
              index < entity.attributes.count, !entity.attributes[index].isOptional else { return }
        throw ValidationError.missingValue(entity: entity.name, property: key)
    }

    /// What ``validateValue(_:forKey:)`` says of each attribute that has a
    /// value (a missing one is reported by the save's own checks) and of each
    /// relationship whose destinations are loaded (one not loaded was not
    /// changed) — of a saved object, each changed one. A value the method
    /// replaces is not stored.
    final func _valueErrors(into errors: inout [ValidationError]) {
        guard let entity = _entity else { return }
        func validate(_ key: String, _ value: inout Any?) {
            do {
                try validateValue(&value, forKey: key)
            } catch let error as ValidationError {
                errors += error.errors
            } catch {
                errors.append(.rejected(entity: entity.name, property: key, error: error))
            }
        }
        let attributes = entity.attributes
        _forEachCurrentValue(entity: entity, count: attributes.count) { index, stored in
            // Read in place: a local copy of the description would retain it.
            guard let stored, !attributes[index].isDerived else { return }
            var value: Any? = stored == .null ? nil
                : attributes[index].slotKind.box(stored) ?? (try? attributes[index].access.swiftValue(stored))
            validate(attributes[index].name, &value)
        }
        // Relationships whose destinations are loaded; of a saved object,
        // only the changed ones (the others were valid when saved, and
        // reading a to-many makes an object of each destination).
        let changed = isInserted ? nil : _changedProperties
        for relationship in entity.relationships where relationship.storage(of: self).loadedIDs != nil {
            if let changed, !changed.contains(relationship.index) { continue }
            var value = _readProperty(at: relationship.index, entity: entity)
            validate(relationship.name, &value)
        }
    }

    /// The checks a save makes of every inserted and updated object: required
    /// values and relationships, to-many counts, values the store can take,
    /// and relationships to objects of another context or to deleted objects.
    final func _graphErrors(in context: ManagedObjectContext, into errors: inout [ValidationError]) {
        guard let entity = _entity else { return }
        _forEachCurrentValue(entity: entity, count: entity.attributes.count) { index, stored in
            guard let stored else {
                errors.append(.missingValue(entity: entity.name, property: entity.attributes[index].name))
                return
            }
            if stored.isNaN {
                errors.append(.invalidValue(entity: entity.name, property: entity.attributes[index].name, reason: StoreValue.notANumber))
            }
        }
        for (index, destination) in _foreignTargets.sorted(by: { $0.key < $1.key }) {
            errors.append(.crossContextRelationship(entity: entity.name, property: entity.propertyName(at: index),
                                                    destination: destination))
        }
        for relationship in entity.relationships {
            guard let ids = relationship.storage(of: self).loadedIDs else { continue }
            for id in ids {
                guard let destination = context.registered[id], destination.isDeleted else { continue }
                errors.append(.danglingReference(entity: entity.name, property: relationship.name,
                                                 destination: "\(destination.entityNameForMessages) \(id)"))
            }
        }
        _countErrors(entity: entity, into: &errors)
    }

    /// A required relationship left empty, and a non-empty to-many one
    /// outside its model's counts. A to-many relationship not loaded was
    /// not changed since it was saved, valid.
    private final func _countErrors(entity: EntityDescription, into errors: inout [ValidationError]) {
        for relationship in entity.relationships where !relationship.isOptional || relationship.minCount > 0 || relationship.maxCount > 0 {
            guard let count = relationship.storage(of: self).loadedIDs?.count else { continue }
            if count == 0 {
                if !relationship.isOptional { errors.append(.missingValue(entity: entity.name, property: relationship.name)) }
            } else if relationship.minCount > 0, count < relationship.minCount {
                errors.append(.tooFewDestinations(entity: entity.name, property: relationship.name, count: count, minimum: relationship.minCount))
            } else if relationship.maxCount > 0, count > relationship.maxCount {
                errors.append(.tooManyDestinations(entity: entity.name, property: relationship.name, count: count, maximum: relationship.maxCount))
            }
        }
    }

    /// The `.deny` relationships of this (deleted) object that still have
    /// destinations.
    final func _denyErrors(in context: ManagedObjectContext) -> [ValidationError] {
        guard let entity = _entity else { return [] }
        return entity.relationships.filter { relationship in
            relationship.deleteRule == .deny
                && context.relatedIDs(of: self, relationship).contains { context.registered[$0]?.isDeleted != true }
        }.map { .deleteDenied(entity: entity.name, property: $0.name) }
    }
}
