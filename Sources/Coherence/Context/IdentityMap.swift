/// A context's registered objects, one per object ID.
///
/// Entries are strong references, so no object carries a weak-reference side
/// table (which would send every retain and release of it down the runtime's
/// slow path, the largest single cost of inserting and fetching objects).
/// Objects with loaded values stay until they turn back into faults
/// (`refresh(_:mergeChanges:)`, `refreshAllObjects()`) or leave the context,
/// which keeps objects that observe their context (the seed article's parent)
/// alive while they are in use, as Core Data's object graph does. Faults that
/// nothing outside the map holds are evicted: whenever the map has doubled
/// since the last eviction, and before ``ManagedObjectContext/registeredObjects``
/// answers.
///
/// **Complexity:** lookups and insertions are O(1) amortized; an eviction is
/// O(registered objects), and runs only after the map doubled (or when asked).
struct IdentityMap {
    private var entries: [ManagedObjectID: ManagedObject] = [:]
    private var evictionThreshold = 1024

    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { entries[id] }
        set {
            entries[id] = newValue
            if newValue != nil, entries.count >= evictionThreshold {
                evictUnreferencedFaults()
            }
        }
    }

    /// Every registered object, faults nothing else holds included.
    var objects: [ManagedObject] {
        Array(entries.values)
    }

    /// Removes the faults that only this map holds.
    mutating func evictUnreferencedFaults() {
        for id in Array(entries.keys) where entries[id]!.isFault {
            if isKnownUniquelyReferenced(&entries[id]!) {
                entries[id] = nil
            }
        }
        evictionThreshold = max(1024, entries.count * 2)
    }

    mutating func removeAll() {
        entries = [:]
        evictionThreshold = 1024
    }
}
