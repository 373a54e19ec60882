/// A context's registered objects, one per object ID.
///
/// Faults are held weakly: a fault that nothing else holds is released, so
/// fetching many objects and dropping them frees them. Objects with loaded
/// values are held strongly until they turn back into faults
/// (`refresh(_:mergeChanges:)`, `refreshAllObjects()`) or leave the context,
/// which keeps objects that observe their context (the seed article's
/// parent) alive while they are in use, as Core Data's object graph does.
///
/// **Complexity:** lookups and insertions are O(1) amortized; dead entries are
/// swept when the map has doubled since the last sweep.
struct IdentityMap {
    private struct Entry {
        weak var object: ManagedObject?
    }

    private var entries: [ManagedObjectID: Entry] = [:]
    private var materialized: Set<ManagedObject> = []
    private var sweepThreshold = 1024

    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { entries[id]?.object }
        set {
            if let newValue {
                entries[id] = Entry(object: newValue)
                sweepIfNeeded()
            } else {
                entries[id] = nil
            }
        }
    }

    /// Every registered object that is still alive.
    var objects: [ManagedObject] {
        entries.values.compactMap(\.object)
    }

    /// Holds `object` strongly: its values are loaded.
    mutating func retain(_ object: ManagedObject) {
        materialized.insert(object)
    }

    /// Holds `object` only weakly again: it turned into a fault or left.
    mutating func release(_ object: ManagedObject) {
        materialized.remove(object)
    }

    mutating func removeAll() {
        entries = [:]
        materialized = []
    }

    private mutating func sweepIfNeeded() {
        guard entries.count >= sweepThreshold else { return }
        entries = entries.filter { $0.value.object != nil }
        sweepThreshold = max(1024, entries.count * 2)
    }
}
