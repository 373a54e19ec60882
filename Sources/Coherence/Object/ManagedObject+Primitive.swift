import Foundation

// Primitive accessors: the object's own storage, without change tracking.
extension ManagedObject {
    /// The value of the named property in the object's own storage, as Core
    /// Data's `primitiveValue(forKey:)` returns it.
    ///
    /// Unlike reading the property, this does not register the read with
    /// Observation. A fault is filled first. Attributes give their Swift
    /// value, a to-one relationship the related object, a to-many
    /// relationship a `Set<ManagedObject>`, an ordered one an
    /// `NSOrderedSet`.
    ///
    /// - Returns: the value, or `nil` if no value has been set (an optional
    ///   attribute that is `nil`, a required attribute never set, an empty
    ///   to-one relationship).
    /// - Precondition: `key` names a modeled property of the object's entity,
    ///   and the object belongs to a context.
    public final func primitiveValue(forKey key: String) -> Any? {
        let (entity, index) = _primitiveProperty(key, access: "read")
        return _readProperty(at: index, entity: entity)
    }

    /// The value of property `index` as ``value(forKey:)`` and
    /// ``primitiveValue(forKey:)`` give it, `nil` for no value (an optional attribute that is `nil`, a required one
    /// never set, an empty to-one relationship). Fires a fault.
    final func _readProperty(at index: Int, entity: EntityDescription) -> Any? {
        _prepareForRead()
        if let relationship = entity.relationship(at: index) {
            guard let context = _contextRef else { return relationship.isOrdered ? NSOrderedSet() : relationship.isToMany ? Set<ManagedObject>() : nil }
            if relationship.isOrdered { return NSOrderedSet(array: _resolveIDs(context.relatedIDList(of: self, relationship))) }
            let objects = _resolveIDs(context.relatedIDs(of: self, relationship))
            return relationship.isToMany ? Set(objects) : objects.first
        }
        return entity.attributes[index].currentSwiftValue(of: self).flatMap { value in
            // An optional attribute's `nil` is no value.
            if case Optional<Any>.none = value { return nil }
            return value
        }
    }

    /// Sets the named attribute in the object's own storage, as Core Data's
    /// `setPrimitiveValue(_:forKey:)` does: the context records no change,
    /// no didChangeObjects notification announces it, neither Observation nor
    /// ``ManagedObjectContext/observe(_:keyPaths:handler:)`` observers are
    /// told, derived properties are not recomputed, and the object
    /// does not become updated (``hasChanges`` stays as it was).
    ///
    /// Typically used in ``willSave()`` to stamp a value (a modification
    /// date) without announcing a change during the save. Because the save
    /// writes every value of each object it saves, the written value is saved
    /// when the object is saved: always, when written in `willSave()` of an
    /// inserted or updated object. An object that is not otherwise changed is
    /// not saved for it; its value then stays in memory until the object is
    /// saved for another reason, refreshed or reset. Passing `nil` for a
    /// required attribute removes its value, so the next save of the object
    /// fails validation.
    ///
    /// - Parameters:
    ///   - value: a value of the attribute's Swift type, or `nil` (or
    ///     `NSNull`).
    ///   - key: the name of an attribute of the object's entity.
    /// - Precondition: `key` names a modeled attribute that is not
    ///   `@Derived`, `value` has its type, and the object belongs to a
    ///   context. Relationships are set through their property (or
    ///   ``setValue(_:forKey:)``), which keeps inverses in sync.
    public final func setPrimitiveValue(_ value: Any?, forKey key: String) {
        let (entity, index) = _primitiveProperty(key, access: "set")
        require(entity.relationship(at: index) == nil,
                     "Coherence: setPrimitiveValue(_:forKey:) sets attributes; set the relationship \(entity.name).\(key) through its property, which keeps its inverse in sync")
        let attribute = entity.attributes[index]
        require(!attribute.isDerived, "Coherence: \(entity.name).\(key) is derived and cannot be set")
        if let context = _contextRef {
            if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
            if _access.contains(.fault) { context._fulfillFault(self) }
        }
        let newValue = value is NSNull ? nil : value
        guard attribute.setSwiftValue(newValue, of: self) else {
            fatalError("Coherence: setPrimitiveValue(_:forKey:) was given a \(type(of: newValue!)) for \(entity.name).\(key), which holds \(attribute.valueType)")
        }
    }

    /// The entity and property index for a primitive access to `key`.
    private func _primitiveProperty(_ key: String, access: String) -> (EntityDescription, Int) {
        require(!_access.contains(.invalidated),
                     "Coherence: cannot \(access) the primitive value \(Self.entityName).\(key): the object was invalidated (its context was reset or its deletion saved)")
        guard let entity = _entity else {
            fatalError("Coherence: cannot \(access) the primitive value \(Self.entityName).\(key): insert the object into a context first")
        }
        guard let index = entity.indexByName[key] else {
            fatalError("Coherence: \(entity.name) has no modeled property named \(key); primitive accessors work on modeled properties only")
        }
        return (entity, index)
    }
}
