/// A context's registered objects, one per object ID.
///
/// Entries are strong references, so no object carries a weak-reference side
/// table (which would send every retain and release of it down the runtime's
/// slow path, the largest single cost of inserting and fetching objects).
/// Objects with loaded values stay until they turn back into faults
/// (`refresh(_:mergeChanges:)`, `refreshAllObjects()`) or leave the context,
/// which keeps objects that observe their context (the seed article's parent)
/// alive while they are in use, as Core Data's object graph does. Faults that
/// nothing outside the map holds are evicted: an object turned into a fault
/// (refresh, merge) once its didChangeObjects is posted; any other fault when
/// the map has doubled since the last eviction, and before
/// ``ManagedObjectContext/registeredObjects``, `refreshAllObjects()` and
/// `reset()` look at the objects. A merge lets go of any object (loaded or
/// not, of an entity without derived attributes) that nothing outside the
/// map holds instead of announcing a change to it, as Core Data's weakly held
/// object would be gone. ``retainsObjects`` turns every eviction off.
///
/// **Complexity:** lookups and insertions are O(1) amortized; an eviction is
/// O(registered objects), and runs only after the map doubled (or when asked).
struct IdentityMap {
    private var entries = ObjectIDTable<ManagedObject>()
    private var evictionThreshold = 1024
    /// IDs whose faults stay registered even when nothing holds them: those
    /// that observers watch by ID.
    var isPinned: (ManagedObjectID) -> Bool = { _ in false }
    /// The context's `retainsRegisteredObjects`: nothing is evicted.
    var retainsObjects = false

    subscript(id: ManagedObjectID) -> ManagedObject? {
        get { entries[id] }
        set { entries[id] = newValue }
    }

    /// The number of registered objects.
    var count: Int { entries.count }

    /// Whether the map has doubled since the last eviction (the context
    /// then calls ``evictUnreferencedFaults()``).
    var hasGrown: Bool { entries.count >= evictionThreshold }

    /// Every registered object, faults nothing else holds included.
    var objects: [ManagedObject] {
        entries.allValues
    }

    /// Removes the faults that only this map holds and returns them (the
    /// caller forgets what it recorded about them, then lets them go).
    mutating func evictUnreferencedFaults() -> [ManagedObject] {
        guard !retainsObjects else { return [] }
        let isPinned = isPinned
        let objects = entries.removeAll { id, object in
            object.isFault && isKnownUniquelyReferenced(&object) && !isPinned(id)
        }
        evictionThreshold = max(1024, entries.count * 2)
        return objects
    }

    /// Removes and returns the object registered under `id` if it is a fault
    /// only this map holds: for objects just turned into faults.
    mutating func evictIfUnreferencedFault(_ id: ManagedObjectID) -> ManagedObject? {
        guard !retainsObjects, !isPinned(id) else { return nil }
        return entries.removeValue(forKey: id) { object in object.isFault && isKnownUniquelyReferenced(&object) }
    }

    /// Removes and returns the object registered under `id` if only this
    /// map holds it, fault or loaded: for merged changes to objects no code
    /// holds, which Core Data would not announce.
    /// `evenIfRetained`: also with ``retainsObjects`` (for objects a fetch
    /// registered only to match them, which Core Data never registers).
    mutating func evictIfUnreferenced(_ id: ManagedObjectID, evenIfRetained: Bool = false) -> ManagedObject? {
        guard evenIfRetained || !retainsObjects, !isPinned(id) else { return nil }
        return entries.removeValue(forKey: id) { object in isKnownUniquelyReferenced(&object) }
    }

    /// Makes room for `additional` more objects of consecutive keys (a
    /// fetch's) without growing the directory of pages.
    mutating func reserveCapacity(_ additional: Int) {
        entries.reserveCapacity(entries.count + additional)
    }

    mutating func removeAll() {
        entries.removeAll()
        evictionThreshold = 1024
    }
}
