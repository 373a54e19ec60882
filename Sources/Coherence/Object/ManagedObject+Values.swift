// An object's property values live outside it: in a snapshot (`_base`,
// shared with the store's row cache) and in a buffer of the values written
// since (`_values`), in store form. A fault has neither; a loaded object
// that nothing changed has only its snapshot; an inserted object has only
// its buffer.
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
        guard let base = _base else { return nil }
        return base.values[index]
    }

    /// Whether property `index` has a value (a required attribute declared
    /// without an initial value has none until set).
    final func _hasValue(at index: Int) -> Bool {
        if index < _values.count, let buffered = _values[index] { return buffered != nil }
        return _base != nil
    }

    /// Sets the current value of property `index`, without change tracking;
    /// `nil` leaves it without a value.
    @usableFromInline
    final func _setCurrentValue(_ value: StoreValue?, at index: Int) {
        if index >= _values.count {
            let count = max(index + 1, _entity?.propertyCount ?? 0)
            _values.reserveCapacity(count)
            _values.append(contentsOf: repeatElement(nil, count: count - _values.count))
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

    /// Sets every current value from `values` (one per property, in order),
    /// without change tracking.
    final func _setCurrentValues(_ values: [StoreValue]) {
        _base = nil
        _values = ContiguousArray(values.map { BufferedValue.some(.some($0)) })
    }

    /// Forgets every value: what turning into a fault does.
    final func _clearCurrentValues() {
        _base = nil
        _values = []
    }

    /// The current values of an inserted object, from its entity's initial
    /// values (an initial value written as a literal is encoded once, any
    /// other is evaluated for each object, as a stored property's initial
    /// value is); values set before the insertion stay.
    final func _setInitialValues(entity: EntityDescription) {
        var values = entity.initialValues
        for (position, attribute) in entity.attributes.enumerated() {
            if position < _values.count, let written = _values[position] {
                values[position] = written
            } else if let make = attribute.makeInitialValue {
                do {
                    values[position] = .some(try make())
                } catch {
                    fatalError("Coherence: the initial value of \(entity.name).\(attribute.name) cannot be stored: \(error)")
                }
            }
        }
        _base = nil
        _values = values
    }
}
