// An object's property values live outside it: in a snapshot (`_base`,
// shared with the store's row cache) and in a buffer of the values written
// since (`_values`), in store form. A fault has neither; a loaded object
// that nothing changed has only its snapshot; an inserted object reads its
// entity's initial values until it writes (or computes) its own.
//
// `_base` is where the current values come from, `_snapshot` the last
// committed values (used for change tracking, conflicts and
// `committedValues`): usually the same snapshot, but a save, a merge or a
// conflict may give the object new committed values while it keeps its
// own, so setting `_snapshot` never changes what the object reads.
//
// **Complexity:** O(1) to read or write one value; O(properties) to load
// or copy them all.
extension ManagedObject {
    /// One property's entry in the buffer.
    typealias BufferedValue = StoreValue??

    /// The current value of property `index` in store form; `nil` when it
    /// has none (a required attribute never set). Called by every property
    /// read, out of line.
    @usableFromInline
    final func _currentValue(at index: Int) -> StoreValue? {
        if index < _values.count, let buffered = _values[index] { return buffered }
        guard let base = _base else { return _initialValue(at: index) }
        return base.values[index]
    }

    /// The value of property `index` of an object without a snapshot: its
    /// entity's initial value (none before the object is inserted).
    private final func _initialValue(at index: Int) -> StoreValue? {
        if _entity == nil, _adoptEntityBeforeInsertion() != nil {
            return _currentValue(at: index)
        }
        guard let entity = _entity, index >= 0, index < entity.initialValues.count else { return nil }
        return entity.initialValues[index] ?? nil
    }

    /// Gives an object created with `init()` and not inserted yet the entity
    /// of the last model built with its class (``ManagedObject/entity()``)
    /// and its initial values, on its first read or write: so that
    /// `let item = FeedItem(); item.title` reads the initial value, and a
    /// value computed for each object (`UUID()`) is computed once, not again
    /// at insertion. `nil` when no model with the class was built.
    final func _adoptEntityBeforeInsertion() -> EntityDescription? {
        guard _entity == nil, !_hasContext, !_access.contains(.invalidated),
              let entity = EntityRegistry.entity(of: type(of: self)) else { return _entity }
        _entity = entity
        _setInitialValues(entity: entity)
        return entity
    }

    /// Calls `body` with the current value of each of the first `count`
    /// properties (`nil`: none), in order: what a save and its validation
    /// walk, without a call per property. The object must have its entity.
    @inline(__always)
    final func _forEachCurrentValue(entity: EntityDescription, count: Int, _ body: (Int, StoreValue?) -> Void) {
        let buffered = _values
        if let base = _base {
            let values = base.values
            for index in 0..<count {
                if index < buffered.count, let written = buffered[index] { body(index, written) } else { body(index, values[index]) }
            }
        } else {
            let initial = entity.initialValues
            for index in 0..<count {
                if index < buffered.count, let written = buffered[index] { body(index, written) } else { body(index, initial[index] ?? nil) }
            }
        }
    }

    /// Sets the current value of property `index`, without change tracking;
    /// `nil` leaves it without a value.
    @usableFromInline
    final func _setCurrentValue(_ value: StoreValue?, at index: Int) {
        if index >= _values.count {
            // One allocation, sized for every property, on the first write.
            let count = max(index + 1, _entity?.propertyCount ?? 0)
            if _values.isEmpty {
                _values = ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
                    for position in 0..<count { (buffer.baseAddress! + position).initialize(to: nil) }
                    initialized = count
                }
            } else {
                _values.append(contentsOf: repeatElement(nil, count: count - _values.count))
            }
        }
        _values[index] = .some(value)
    }

    /// Makes `snapshot` the source of every current value, forgetting the
    /// values written since: what loading a fault or refreshing does.
    /// O(1): nothing is copied.
    final func _loadValues(from snapshot: Snapshot) {
        _base = snapshot
        _values = []
    }

    /// Forgets every value: what turning into a fault does.
    final func _clearCurrentValues() {
        _base = nil
        _values = []
    }

    /// Prepares an inserted object's values: it reads its entity's initial
    /// values (``EntityDescription/initialValues``) until it writes its own,
    /// so that inserting copies nothing; an initial value computed for each
    /// object (`UUID()`) is computed now. Values set before the insertion
    /// stay.
    final func _setInitialValues(entity: EntityDescription) {
        _base = nil
        for index in entity.computedInitialValues where index >= _values.count || _values[index] == nil {
            do {
                _setCurrentValue(try entity.attributes[index].makeInitialValue!(), at: index)
            } catch {
                fatalError("Coherence: the initial value of \(entity.name).\(entity.attributes[index].name) cannot be stored: \(error)")
            }
        }
    }
}
