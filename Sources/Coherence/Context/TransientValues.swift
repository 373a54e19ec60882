// Transient attributes (`@Attribute(.transient)`) between a context and its
// store: the store is given their initial values, never the objects' own,
// and a saved object keeps its own as its committed state (so that rollback
// and `refresh(_:mergeChanges: true)` treat them as Core Data does).

extension StoreSaveRequest {
    /// The request as a persistent store is given it: each transient
    /// attribute's value replaced by its initial value (`nil` when declared
    /// without one), so that no store keeps what objects hold in it.
    ///
    /// **Complexity:** O(1) for a model without transient attributes,
    /// otherwise O(saved objects of entities that have some).
    func withoutTransientValues() -> StoreSaveRequest {
        var request = self
        func stripped(_ values: [StoreValue], _ entity: EntityDescription) -> [StoreValue] {
            var values = values
            for attribute in entity.attributes where attribute.isTransient {
                values[attribute.index] = attribute.defaultValue ?? .null
            }
            return values
        }
        // By position: an element is copied (its entity and values
        // retained) only when it has transient values to strip.
        for position in inserted.indices where inserted[position].entity.hasTransientAttributes {
            let insert = inserted[position]
            request.inserted[position] = Insert(objectID: insert.objectID, entity: insert.entity,
                                                values: stripped(insert.values, insert.entity))
        }
        for position in updated.indices where updated[position].entity.hasTransientAttributes {
            let update = updated[position]
            request.updated[position] = Update(objectID: update.objectID, entity: update.entity,
                                               values: stripped(update.values, update.entity), baseVersion: update.baseVersion,
                                               updatedProperties: update.updatedProperties, baseSnapshot: update.baseSnapshot)
        }
        return request
    }
}

extension Snapshot {
    /// This committed snapshot with `object`'s current transient values in
    /// place of the initial values the store returned.
    func keepingTransientValues(of object: ManagedObject, entity: EntityDescription) -> Snapshot {
        replacingValues { values in
            for attribute in entity.attributes where attribute.isTransient {
                if let current = attribute.storeValue(of: object) { values[attribute.index] = current }
            }
        }
    }

    /// This snapshot with the transient values of `previous` (the object's
    /// committed state before it): a store's snapshot holds initial values
    /// there, which must not replace what a context keeps.
    func keepingTransientValues(of previous: Snapshot?, entity: EntityDescription) -> Snapshot {
        guard let previous, entity.hasTransientAttributes else { return self }
        return replacingValues { values in
            for attribute in entity.attributes where attribute.isTransient {
                values[attribute.index] = previous.values[attribute.index]
            }
        }
    }
}

extension ManagedObject {
    /// Puts every transient attribute back to its initial value: an
    /// invalidated object's transient values are gone, as a Core Data
    /// object's are once it is turned into a fault ("transient values
    /// declared as entity properties are typically already cleared out" by
    /// `didTurnIntoFault()`).
    final func _clearTransientValues(entity: EntityDescription) {
        guard entity.hasTransientAttributes else { return }
        // A required one declared without an initial value keeps its value.
        for attribute in entity.attributes where attribute.isTransient {
            guard let initial = attribute.defaultValue else { continue }
            try? attribute.setStoreValue(initial, of: self)
        }
    }
}
