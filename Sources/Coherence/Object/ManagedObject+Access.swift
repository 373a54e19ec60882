import Foundation
import Observation

// The machinery behind property reads and writes: faulting, change tracking
// and the debug-time queue check. Used by `Attribute` and `Relationship`.
extension ManagedObject {
    /// Whether a read must take the slow path: for faults, invalidated
    /// objects and prototypes, for objects of a context that takes part in
    /// Observation, and for every object while the concurrency check is on
    /// (``ConcurrencyDebug``).
    @usableFromInline
    final var _needsAccessCheck: Bool {
        _access.rawValue != 0
    }

    /// Prepares a property read: records it on a prototype, checks the queue,
    /// fires a fault.
    @usableFromInline
    final func _prepareForRead(_ offset: () -> Int) {
        if _access.contains(.prototype) {
            _extras?.recordedOffset = offset()
            return
        }
        guard let context = _contextRef else {
            if _access.contains(.fault) {
                fatalError("Coherence: cannot read \(Self.entityName) \(objectID): it was invalidated before its values were loaded (its context was reset or its deletion saved)")
            }
            return
        }
        if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
        if _access.contains(.fault) {
            context._fulfillFault(self)
        }
    }

    /// Prepares a property write at a wrapper's offset. An inserted object
    /// that no notification announced yet needs no change tracking, so its
    /// writes skip the property lookup.
    @usableFromInline
    final func _prepareForWrite(offset: Int) {
        if _access.contains(.prototype) { return }
        if _lifecycle.contains(.insertionUnannounced), _contextRef != nil {
            if _access.contains(.queueChecked) { _contextRef?._assertOnQueue(touching: self) }
            // The context only when a derived attribute may depend on the
            // write (loading it from the unowned reference retains it).
            if _withEntity({ !$0.dependentDerivations.isEmpty || !$0.derivations.isEmpty }) == true {
                _contextRef?.derivationTouched(self)
            }
            return
        }
        guard let found = _withEntity({ $0.indexByOffset[offset] }) else {
            require(!_access.contains(.invalidated), "Coherence: cannot change \(Self.entityName) \(objectID): it was invalidated (its context was reset or its deletion saved)")
            return
        }
        guard let index = found else {
            fatalError("Coherence: \(Self.entityName) has no modeled property at offset \(offset)")
        }
        _prepareForWriteAt(index: index, announce: false)
    }

    /// `body` applied to the object's entity, borrowed rather than retained
    /// (the object holds it); `nil` when the object has no entity yet.
    @inline(__always)
    final func _withEntity<Result>(_ body: (EntityDescription) -> Result) -> Result? {
        guard let entity = _entity else { return nil }
        return Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef(body)
    }

    /// Prepares a write of property `index`: checks the object is usable,
    /// fires a fault and records the old value for change tracking.
    /// `announce: false` when the caller notifies Observation itself.
    final func _prepareForWriteAt(index: Int, announce: Bool = true) {
        guard let context = _contextRef else {
            require(!_access.contains(.invalidated), "Coherence: cannot change \(Self.entityName).\(_entity?.propertyName(at: index) ?? "?"): the object was invalidated (its context was reset or its deletion saved)")
            return
        }
        if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
        // Firing a fault calls `awakeFromFetch()`, and an announced write
        // calls Observation's handlers: code that may let go of the context,
        // which `context` holds until they return.
        if announce || _access.contains(.fault) {
            if _access.contains(.fault) { context._fulfillFault(self) }
            context._recordWrite(of: self, property: index, announce: announce)
            return
        }
        // A property setter's write runs no user code until it returns:
        // the context is borrowed, not retained.
        Unmanaged.passUnretained(context)._withUnsafeGuaranteedRef { context in
            context._recordWrite(of: self, property: index, announce: false)
        }
    }

    @usableFromInline
    final func _trapMissingValue(offset: Int) -> Never {
        if _access.contains(.prototype) {
            // Only for a type PlaceholderValue cannot make (a Codable type that rejects placeholders).
            fatalError("Coherence: a key path reaches a required attribute of \(Self.entityName) at offset \(offset) whose type has no placeholder value; give it an initial value to use it in predicates, sort descriptors, derivations and observed key paths")
        }
        let name = _entity?.indexByOffset[offset].map { _entity!.propertyName(at: $0) } ?? "attribute"
        fatalError("Coherence: \(Self.entityName).\(name) was read before it was set; it is declared without an initial value")
    }

    /// The objects a relationship's storage refers to, registered in this
    /// object's context (as faults if not loaded yet).
    final func _resolveIDs(_ ids: Set<ManagedObjectID>) -> [ManagedObject] {
        guard let context = _contextRef, !ids.isEmpty else { return [] }
        return ids.map { context.object(with: $0) }
    }

    final func _resolve(_ storage: RelationshipStorage, offset: () -> Int) -> [ManagedObject] {
        switch storage {
        case .empty: return []
        case .one(let id): return _contextRef.map { [$0.object(with: id)] } ?? []
        case .many(let ids): return _resolveIDs(ids)
        case .fault:
            guard let context = _contextRef, let entity = _entity, let index = entity.indexByOffset[offset()],
                  let relationship = entity.relationship(at: index) else { return [] }
            return _resolveIDs(context._loadToManyFault(of: self, relationship))
        }
    }

    /// Sets the relationship at a wrapper's offset, keeping inverses in sync.
    final func _setRelationship(offset: Int, to objects: [ManagedObject]) {
        if _access.contains(.prototype) { return }
        guard let entity = _entity, let index = entity.indexByOffset[offset] else {
            fatalError("Coherence: insert this \(Self.entityName) into a context before setting its relationships")
        }
        _setRelationship(index: index, to: objects)
    }

    final func _setRelationship(index: Int, to objects: [ManagedObject]) {
        guard let context = _contextRef else {
            fatalError("Coherence: cannot change \(Self.entityName).\(_entity?.propertyName(at: index) ?? "?"): the object belongs to no context (never inserted, or invalidated)")
        }
        if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
        if _access.contains(.fault) { context._fulfillFault(self) }
        context._setRelationship(of: self, index: index, to: objects)
    }

    // MARK: Prototypes

    final func _becomePrototype() {
        _flags.becamePrototype()
        _extras = ObjectExtras()
    }

    /// The offset of the wrapped property that reading `keyPath` reaches.
    final func _recordedOffset(reading keyPath: AnyKeyPath) -> Int? {
        _extras?.recordedOffset = nil
        _ = self[keyPath: keyPath]
        return _extras?.recordedOffset
    }

    // MARK: Values in store form

    /// The current value of property `index` in store form; `nil` for an
    /// attribute without a value (or one whose value cannot be encoded).
    final func _currentStoreValue(at index: Int, entity: EntityDescription) -> StoreValue? {
        if let relationship = entity.relationship(at: index) {
            return relationship.access.storage(of: self).storeValue(isToMany: relationship.isToMany)
        }
        let slot = entity.attributeSlots[index]
        if let value = slot.kind.load(at: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) + slot.storageOffset) {
            return value
        }
        return try? entity.attributes[index].storeValue(of: self)
    }

    /// The committed value of property `index`, if the object has a snapshot.
    final func _committedStoreValue(at index: Int) -> StoreValue? {
        _snapshot?.values[index]
    }

    /// The current values of all properties, in store form.
    final func _storeValues(entity: EntityDescription) throws -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(entity.propertyCount)
        let base = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        for (index, slot) in entity.attributeSlots.enumerated() {
            if let value = slot.kind.load(at: base + slot.storageOffset) {
                values.append(value ?? .null)
            } else {
                values.append(try entity.attributes[index].storeValue(of: self) ?? .null)
            }
        }
        for relationship in entity.relationships {
            values.append(relationship.access.storage(of: self).storeValue(isToMany: relationship.isToMany))
        }
        return values
    }

    /// Writes store values into the properties, without change tracking.
    final func _apply(values: Snapshot.Values, entity: EntityDescription) {
        require(values.count >= entity.propertyCount,
                     "Coherence: a snapshot of \(entity.name) has \(values.count) values for \(entity.propertyCount) properties")
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        let slots = entity.attributeSlots
        values.withIntegerWords { integers in
            for index in slots.indices {
                // Integers kept as words go straight into their storage.
                let slot = slots[index]
                if let integer = integers[index], slot.kind.store(integer: integer, at: base + slot.storageOffset) { continue }
                _apply(values[index], at: index, entity: entity)
            }
        }
        for relationship in entity.relationships {
            relationship.access.setStorage(
                RelationshipStorage(storeValue: values[relationship.index], isToMany: relationship.isToMany), of: self)
        }
    }

    /// Writes the store value of attribute `index` into its storage, without
    /// change tracking. Out of line: most fetched values take the integer
    /// path of ``_apply(values:entity:)``.
    @inline(never)
    private final func _apply(_ value: StoreValue, at index: Int, entity: EntityDescription) {
        let slot = entity.attributeSlots[index]
        do {
            if try slot.kind.store(value, at: UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque()) + slot.storageOffset) {
                return
            }
            try entity.attributes[index].setStoreValue(value, of: self)
        } catch {
            fatalError("Coherence: the store holds a value for \(entity.name).\(entity.attributes[index].name) that cannot be read: \(error)")
        }
    }

    /// The Swift form of a store value of property `index`.
    final func _swiftValue(_ value: StoreValue, at index: Int, entity: EntityDescription) -> Any {
        if let relationship = entity.relationship(at: index) {
            let objects = _resolveIDs(value.referencedIDs)
            if relationship.isToMany { return Set(objects) }
            return objects.first ?? NSNull()
        }
        if value == .null { return NSNull() }
        return (try? entity.attributes[index].access.swiftValue(value)) ?? NSNull()
    }
}

// Observation: reads register the property and a per-object "any change" key;
// writes through a property notify that property; every other change (merges,
// refreshes, rollback, inverse upkeep) notifies the object's "any change" key.
extension ManagedObject {
    /// The key every read registers, so changes not made through a property
    /// setter reach observers too.
    @usableFromInline
    final var _anyChange: Int { 0 }

    /// Registers a read of the property `keyPath` with Observation, when
    /// the object's context takes part in it
    /// (``ManagedObjectContext/isObservationEnabled``). Called by the
    /// accessors on their slow path only (`.observable` is one of the flags
    /// ``_needsAccessCheck`` tests), so that reads of objects nobody can
    /// observe pay one test. Inlinable, so that the registrar's generic
    /// `access` is specialized for the entity.
    @inlinable @inline(__always)
    final func _observeRead<Object: ManagedObject, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>) {
        if _access.contains(.observable) { _registerRead(object, keyPath) }
    }

    /// Tells the object's registrar (made now if it has none) about a read:
    /// out of line, so that the accessors stay small.
    @inlinable @inline(never)
    final func _registerRead<Object: ManagedObject, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>) {
        let box = _observation ?? _makeObservation()
        box.registrar.access(object, keyPath: keyPath)
        box.registrar.access(self, keyPath: ManagedObject._anyChangeKeyPath)
    }

    /// `\ManagedObject._anyChange`, made once (key paths are immutable).
    @usableFromInline
    nonisolated(unsafe) static let _anyChangeKeyPath: KeyPath<ManagedObject, Int> = \ManagedObject._anyChange

    /// Creates the object's registrar, on its first observable read.
    @usableFromInline
    final func _makeObservation() -> ObservationBox {
        let box = ObservationBox()
        _extrasCreated.observation = box
        return box
    }

    /// Performs a property write, telling Observation about it. Inlinable,
    /// so that `write` is inlined where its key path is a literal.
    @inlinable
    final func _observeWrite<Object: ManagedObject, Value>(_ object: Object, _ keyPath: KeyPath<Object, Value>, _ write: () -> Void) {
        if let registrar = _observation?.registrar {
            registrar.withMutation(of: object, keyPath: keyPath, write)
        } else {
            write()
        }
    }

    /// Announces a change made outside the property setters.
    final func _observationChanged() {
        guard let registrar = _observation?.registrar else { return }
        registrar.willSet(self, keyPath: ManagedObject._anyChangeKeyPath)
        registrar.didSet(self, keyPath: ManagedObject._anyChangeKeyPath)
    }
}
