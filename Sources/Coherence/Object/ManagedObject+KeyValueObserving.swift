import Foundation

// Core Data's access and change notifications, which hand-written
// accessors over primitive values call (`willAccessValue(forKey:)` …
// `primitiveValue(forKey:)` … `didAccessValue(forKey:)`).
extension ManagedObject {
    /// Tells the object that a property is about to be read through a
    /// primitive accessor, as Core Data's `willAccessValue(forKey:)`: fires
    /// the fault, so the primitive value is loaded. `nil` fires the fault too.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/willaccessvalue(forkey:)>
    public final func willAccessValue(forKey key: String?) {
        guard let context = _contextRef else { return }
        if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
        if _access.contains(.fault) { context._fulfillFault(self) }
    }

    /// Ends a read begun with ``willAccessValue(forKey:)``, as Core Data's
    /// `didAccessValue(forKey:)`. Coherence needs nothing more at this
    /// point: the fault fired in `willAccessValue`.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/didaccessvalue(forkey:)>
    public final func didAccessValue(forKey key: String?) {}

    /// Tells the object that an attribute is about to change through a
    /// primitive accessor, as Core Data's KVO `willChangeValue(forKey:)`:
    /// the value before the change is recorded, so a following
    /// ``setPrimitiveValue(_:forKey:)`` is tracked like a property write
    /// (the object becomes updated, didChangeObjects announces it, the save
    /// writes it). For a relationship it only fires the fault; set
    /// relationships through their properties.
    /// - Precondition: `key` names a modeled property of the object's entity;
    ///   another key stops the program, naming the entity and the key, in
    ///   release builds too (Core Data raises for it).
    public final func willChangeValue(forKey key: String) {
        guard let entity = _entity, _hasContext else { return }
        guard let index = entity.indexByName[key] else {
            fatalError("Coherence: \(entity.name) has no modeled property named \(key)")
        }
        guard entity.relationship(at: index) == nil else {
            willAccessValue(forKey: key)
            return
        }
        _prepareForWriteAt(index: index)
    }

    /// Ends a change begun with ``willChangeValue(forKey:)``, as Core Data's
    /// KVO `didChangeValue(forKey:)`. The change was recorded when it
    /// began; it is announced with the context's next didChangeObjects.
    public final func didChangeValue(forKey key: String) {}

    /// Whether the object has persistent (not transient) property values
    /// changed since it was fetched or saved, as Core Data's
    /// `hasPersistentChangedValues`.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/haspersistentchangedvalues>
    public final var hasPersistentChangedValues: Bool {
        !changedValues().isEmpty
    }
}
