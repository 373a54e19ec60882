// An object's record of its own unsaved and unannounced property writes:
// which properties were written since the last save ("changed") and since the
// last didChangeObjects notification ("pending"). The first 32 properties are
// bits in the object (`_changes`), so tracking a change of an ordinary entity
// allocates nothing; the rest live in its `ObjectExtras`. Whether a changed
// property really differs from its committed value is decided when asked.
//
// **Complexity:** O(1) for every call here but `_changedProperties` (O(1),
// plus O(properties / 64) for entities with more than 64 properties).
extension ManagedObject {
    /// The object's extras, allocated on first use.
    final var _extrasCreated: ObjectExtras {
        if let extras = _extras { return extras }
        let extras = ObjectExtras()
        _extras = extras
        return extras
    }

    /// Records a write of property `index` in both masks; returns whether it
    /// is the first since the last notification, and whether it is the first
    /// since the last save.
    @inline(__always)
    final func _markWritten(_ index: Int) -> (firstSinceNotification: Bool, firstSinceSave: Bool) {
        if index < InlineChangeMasks.capacity {
            return (_changes.insertPending(index), _changes.insertChanged(index))
        }
        let extras = _extrasCreated
        return (extras.pending.insert(index), extras.changed.insert(index))
    }

    /// Whether property `index` was written since the last notification and
    /// not announced yet.
    @inline(__always)
    final func _isPending(_ index: Int) -> Bool {
        if index < InlineChangeMasks.capacity { return _changes.pendingContains(index) }
        return _extras?.pending.contains(index) ?? false
    }

    /// Marks property `index` announced.
    @inline(__always)
    final func _removePending(_ index: Int) {
        if index < InlineChangeMasks.capacity {
            _changes.removePending(index)
        } else {
            _extras?.pending.remove(index)
        }
    }

    /// Forgets which properties were written since the last notification.
    final func _removeAllPending() {
        _changes.removeAllPending()
        _extras?.pending.removeAll()
    }

    /// The properties written since the last save.
    final var _changedProperties: PropertyMask {
        PropertyMask(bits: _changes.changed, adding: _extras?.changed)
    }

    /// Whether any property was written since the last save.
    final var _hasChangedProperties: Bool {
        _changes.hasChanged || _extras?.changed.isEmpty == false
    }

    /// Forgets the writes since the last save and the foreign destinations
    /// (after a save); the writes since the last notification stay.
    final func _removeAllChanged() {
        _changes.removeAllChanged()
        _extras?.changed.removeAll()
        _extras?.foreignTargets = [:]
    }

    /// Forgets every write: the object is as committed. Its registrar stays.
    final func _clearTracking() {
        _changes.removeAll()
        _extras?.clear()
    }

    /// Relationships assigned an object of another context (or of none),
    /// with a description of that object; the next save throws for each.
    final var _foreignTargets: [Int: String] {
        _extras?.foreignTargets ?? [:]
    }

    /// The record of writes, to restore with ``_restoreTracking(_:)``.
    final var _trackingCheckpoint: TrackingCheckpoint {
        TrackingCheckpoint(masks: _changes, changed: _extras?.changed, pending: _extras?.pending,
                           foreignTargets: _extras?.foreignTargets ?? [:])
    }

    /// Puts back the record of writes `checkpoint` took.
    final func _restoreTracking(_ checkpoint: TrackingCheckpoint) {
        _changes = checkpoint.masks
        if checkpoint.changed == nil, checkpoint.pending == nil, checkpoint.foreignTargets.isEmpty {
            _extras?.clear()
            return
        }
        let extras = _extrasCreated
        extras.changed = checkpoint.changed ?? PropertyMask()
        extras.pending = checkpoint.pending ?? PropertyMask()
        extras.foreignTargets = checkpoint.foreignTargets
    }
}

// What the record of writes tells: which properties differ from their
// committed values.
extension ManagedObject {
    final var _hasChangedValues: Bool {
        guard _entity != nil, _hasChangedProperties else { return false }
        return _changedProperties.contains { _currentValue(at: $0) != _committedStoreValue(at: $0) }
    }

    /// The properties whose values differ from the committed ones, by name.
    /// For an inserted object, every property that has a value. Attribute
    /// values are their Swift values, to-one relationships the related object,
    /// to-many relationships a `Set<ManagedObject>` (an `NSOrderedSet` for an
    /// ordered one); `nil` is `NSNull()`.
    /// As in Core Data, only persistent properties are reported, not
    /// transient attributes (``AttributeOption/transient``), whose changes
    /// still make the object updated.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/changedvalues()>
    public final func changedValues() -> [String: Any] {
        guard let entity = _entity, _hasContext else { return [:] }
        var result: [String: Any] = [:]
        let indexes: any Sequence<Int> = isInserted ? Array(0..<entity.propertyCount) : Array(_changedProperties)
        for index in indexes where index >= entity.attributes.count || !entity.attributes[index].isTransient {
            guard let current = _currentValue(at: index) else { continue }
            if !isInserted, current == _committedStoreValue(at: index) { continue }
            result[entity.propertyName(at: index)] = _swiftValue(current, at: index, entity: entity)
        }
        return result
    }

    /// The names of the persistent properties ``changedValues()`` reports,
    /// without their values (for persistent history), and with the
    /// transient attributes changed too when `includingTransient` (for a
    /// nested context's save, which hands them to the parent).
    final func _changedPropertyNames(includingTransient: Bool = false) -> [String] {
        guard let entity = _entity else { return [] }
        return _changedProperties.compactMap { index in
            if !includingTransient, index < entity.attributes.count, entity.attributes[index].isTransient { return nil }
            guard let current = _currentValue(at: index), current != _committedStoreValue(at: index) else { return nil }
            return entity.propertyName(at: index)
        }
    }
}

/// An object's record of writes at one moment (a save's checkpoint).
struct TrackingCheckpoint {
    let masks: InlineChangeMasks
    let changed: PropertyMask?
    let pending: PropertyMask?
    let foreignTargets: [Int: String]
}
