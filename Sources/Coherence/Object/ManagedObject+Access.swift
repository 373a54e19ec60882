import Foundation
import Observation

// The machinery behind property reads and writes: faulting, change tracking
// and the debug-time queue check. Used by the property accessors the
// macros generate (`ManagedObject+Properties.swift`).
extension ManagedObject {
    /// Whether a read must take the slow path: for faults and invalidated
    /// objects, for objects of a context that takes part in
    /// Observation, and for every object while the concurrency check is on
    /// (``ConcurrencyDebug``).
    @usableFromInline
    final var _needsAccessCheck: Bool {
        _access.rawValue != 0
    }

    /// Prepares a read of a declared property: checks the queue, fires a
    /// fault, tells Observation.
    @usableFromInline
    final func _prepareForRead(_ declaration: PropertyDeclaration) {
        _prepareForRead()
        if _access.contains(.observable) { _registerRead(declaration) }
    }

    /// Prepares a property read: checks the queue, fires a fault.
    final func _prepareForRead() {
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

    /// Prepares a write of a declared attribute. An inserted object that
    /// no notification announced yet needs no change tracking.
    @usableFromInline
    final func _prepareForWrite(_ declaration: PropertyDeclaration) {
        let index = declaration.position
        guard index >= 0 else {
            fatalError("Coherence: \(Self.entityName).\(declaration.name) was set before any ManagedObjectModel with \(Self.entityName) was built (or in an init() the model calls while it is built): build the model first, and give initial values in the declaration or in awakeFromInsert()")
        }
        if _lifecycle.contains(.insertionUnannounced), _hasContext {
            if _access.contains(.queueChecked) { _contextRef?._assertOnQueue(touching: self) }
            // The context (retained) only when a derived attribute may
            // depend on the write.
            if _withEntity({ $0.hasDerivations }) == true {
                _contextRef?.derivationTouched(self)
            }
            return
        }
        guard _entity != nil || _adoptEntityBeforeInsertion() != nil else {
            require(!_access.contains(.invalidated), "Coherence: cannot change \(Self.entityName) \(objectID): it was invalidated (its context was reset or its deletion saved)")
            return
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
        guard let unmanaged = _context else {
            require(!_access.contains(.invalidated), "Coherence: cannot change \(Self.entityName).\(_entity?.propertyName(at: index) ?? "?"): the object was invalidated (its context was reset or its deletion saved)")
            return
        }
        if _access.contains(.queueChecked) { unmanaged._withUnsafeGuaranteedRef { $0._assertOnQueue(touching: self) } }
        // Firing a fault calls `awakeFromFetch()`, and an announced write
        // calls Observation's handlers: code that may let go of the context,
        // which `context` holds until they return.
        if announce || _access.contains(.fault) {
            let context = unmanaged.takeUnretainedValue()
            if _access.contains(.fault) { context._fulfillFault(self) }
            context._recordWrite(of: self, property: index, announce: announce)
            return
        }
        // A property setter's write runs no user code until it returns:
        // the context is borrowed, not retained.
        unmanaged._withUnsafeGuaranteedRef { context in
            context._recordWrite(of: self, property: index, announce: false)
        }
    }

    /// The objects a relationship's storage refers to, registered in this
    /// object's context (as faults if not loaded yet).
    final func _resolveIDs(_ ids: some Collection<ManagedObjectID>) -> [ManagedObject] {
        guard let context = _contextRef, !ids.isEmpty else { return [] }
        return ids.map { context.object(with: $0) }
    }

    /// The objects a relationship's value refers to (loading a to-many
    /// relationship's destinations first if they are not loaded yet).
    final func _resolve(_ value: StoreValue, index: Int, entity: EntityDescription) -> [ManagedObject] {
        switch value {
        case .objectID(let id): return _contextRef.map { [$0.object(with: id)] } ?? []
        case .objectIDs(let ids): return _resolveIDs(ids)
        case .orderedObjectIDs(let ids): return _resolveIDs(ids)
        case .toManyFault:
            guard let context = _contextRef, let relationship = entity.relationship(at: index) else { return [] }
            return _resolveIDs(context._loadToManyFault(of: self, relationship))
        default: return []
        }
    }

    final func _setRelationship(index: Int, to objects: [ManagedObject]) {
        guard let context = _contextRef else {
            fatalError("Coherence: cannot change \(Self.entityName).\(_entity?.propertyName(at: index) ?? "?"): the object belongs to no context (never inserted, or invalidated)")
        }
        if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
        if _access.contains(.fault) { context._fulfillFault(self) }
        context._setRelationship(of: self, index: index, to: objects)
    }

    // MARK: Values in store form

    /// The committed value of property `index`, if the object has a snapshot.
    final func _committedStoreValue(at index: Int) -> StoreValue? {
        _snapshot?.values[index]
    }

    /// The current values of all properties, in store form (`.null` for an
    /// attribute without a value).
    final func _storeValues(entity: EntityDescription) -> [StoreValue] {
        let count = entity.propertyCount
        // Each value copied once, into its place.
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            _forEachCurrentValue(entity: entity, count: count) { index, value in
                (buffer.baseAddress! + index).initialize(to: value ?? .null)
            }
            initialized = count
        }
    }

    /// The Swift form of a store value of property `index`.
    final func _swiftValue(_ value: StoreValue, at index: Int, entity: EntityDescription) -> Any {
        if let relationship = entity.relationship(at: index) {
            if relationship.isOrdered { return NSOrderedSet(array: _resolveIDs(value.referencedIDList)) }
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

    /// Tells the object's registrar (made now if it has none) about a read
    /// of a declared property.
    final func _registerRead(_ declaration: PropertyDeclaration) {
        let box = _observation ?? _makeObservation()
        box.registrar.access(self, keyPath: declaration._observationKey)
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

    /// Announces a change made outside the property setters.
    final func _observationChanged() {
        guard let registrar = _observation?.registrar else { return }
        registrar.willSet(self, keyPath: ManagedObject._anyChangeKeyPath)
        registrar.didSet(self, keyPath: ManagedObject._anyChangeKeyPath)
    }
}
