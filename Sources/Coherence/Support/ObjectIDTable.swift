/// A hash table from object IDs to values, for the identity map and the row
/// cache: open addressing with linear probing, and a multiplicative hash of
/// the ID's words instead of `Hasher` (whose SipHash rounds were most of the
/// cost of registering a fetched row, about three lookups a row).
///
/// Keys are the rows' IDs, which stores issue (sequential keys, a few
/// classes); Fibonacci hashing spreads such keys evenly. The table is seeded
/// per process, as `Hasher` is (`SWIFT_DETERMINISTIC_HASHING` fixes it).
///
/// **Complexity:** lookups, insertions and removals O(1) amortized (at most
/// three quarters of the slots are used; a removal shifts the entries
/// after it back instead of leaving a tombstone); ``removeAll(where:)`` and
/// iteration O(slots).
struct ObjectIDTable<Value> {
    /// A slot: empty when `value` is `nil`. A key and its value share a
    /// cache line (a lookup that misses the cache misses once), and a search
    /// reads only keys, copying no value (which would retain and release it).
    private struct Entry {
        var id: ManagedObjectID
        var value: Value?

        static var empty: Entry { Entry(id: ManagedObjectID(objectClass: ManagedObject.self, storeNumber: 0, key: 0), value: nil) }
    }

    /// A power of two of slots, or none before the first insertion.
    private var entries: ContiguousArray<Entry> = []
    /// The number of entries.
    private(set) var count = 0
    /// 64 minus the number of bits of a slot index.
    private var shift: UInt64 = 64
    private let seed: UInt64 = processSeed

    init() {}

    init(minimumCapacity: Int) {
        reserveCapacity(minimumCapacity)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private static func idealSlot(_ id: ManagedObjectID, seed: UInt64, shift: UInt64) -> Int {
        // Fibonacci hashing of the key, offset per class and store: a class's
        // consecutive keys (as stores issue them) land as evenly spread as
        // they can be (each new one in the largest gap), so runs stay short.
        let offset = (UInt64(UInt(bitPattern: ObjectIdentifier(id.objectClass))) ^ UInt64(id.storeNumber) << 40 ^ seed) &* 0xFF51_AFD7_ED55_8CCD
        let words = UInt64(bitPattern: id.key) &+ offset
        return Int(truncatingIfNeeded: (words &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `id`, or `nil`.
    private func slot(of id: ManagedObjectID) -> Int? {
        guard count > 0 else { return nil }
        let start = Self.idealSlot(id, seed: seed, shift: shift)
        return entries.withUnsafeBufferPointer { entries in
            let mask = entries.count - 1
            var slot = start
            while entries[slot].value != nil {
                if entries[slot].id == id { return slot }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    /// The value for `id`; setting `nil` removes it.
    subscript(id: ManagedObjectID) -> Value? {
        get { slot(of: id).flatMap { entries[$0].value } }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the value for `id`; returns the value it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey id: ManagedObjectID) -> Value? {
        if let slot = slot(of: id) {
            return entries.withUnsafeMutableBufferPointer { entries in
                let old = entries[slot].value.take()
                entries[slot].value = value
                return old
            }
        }
        if (count + 1) * 4 > entries.count * 3 { resize(toHold: count + 1) }
        insertNew(id, value)
        count += 1
        return nil
    }

    /// Puts an entry whose ID is not in the table into the first free slot
    /// of its run (there is one: the table is at most three quarters full).
    private mutating func insertNew(_ id: ManagedObjectID, _ value: Value) {
        let start = Self.idealSlot(id, seed: seed, shift: shift)
        entries.withUnsafeMutableBufferPointer { entries in
            let mask = entries.count - 1
            var slot = start
            while entries[slot].value != nil { slot = (slot + 1) & mask }
            entries[slot].id = id
            entries[slot].value = value
        }
    }

    /// Removes the entry for `id`; returns its value.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> Value? {
        guard let slot = slot(of: id) else { return nil }
        return remove(at: slot)
    }

    /// Empties slot `hole` and moves back the entries after it whose search
    /// would otherwise cross the empty slot.
    private mutating func remove(at hole: Int) -> Value {
        count -= 1
        let (seed, shift) = (seed, shift)
        return entries.withUnsafeMutableBufferPointer { entries in
            let removed = entries[hole].value.take().unsafelyUnwrapped
            let mask = entries.count - 1
            var hole = hole
            var next = (hole + 1) & mask
            while entries[next].value != nil {
                // The entry may move to the hole if its ideal slot is not
                // in the cyclic range (hole, next].
                let ideal = Self.idealSlot(entries[next].id, seed: seed, shift: shift)
                if (next - ideal) & mask >= (next - hole) & mask {
                    entries[hole].id = entries[next].id
                    entries[hole].value = entries[next].value.take()
                    hole = next
                }
                next = (next + 1) & mask
            }
            return removed
        }
    }

    /// The value for `id` passed to `body` to modify in place (for example
    /// to ask whether it is uniquely referenced); `nil` if there is none.
    mutating func withValue<R>(forKey id: ManagedObjectID, _ body: (inout Value) -> R) -> R? {
        guard let slot = slot(of: id) else { return nil }
        return entries.withUnsafeMutableBufferPointer { entries in body(&entries[slot].value!) }
    }

    /// Removes the value for `id` if `shouldRemove` says so, and returns it.
    mutating func removeValue(forKey id: ManagedObjectID, if shouldRemove: (inout Value) -> Bool) -> Value? {
        guard let slot = slot(of: id) else { return nil }
        let remove = entries.withUnsafeMutableBufferPointer { entries in shouldRemove(&entries[slot].value!) }
        return remove ? self.remove(at: slot) : nil
    }

    /// Removes every entry `shouldRemove` picks (it may also inspect the
    /// value in place) and returns their values, for the caller to release
    /// where it chooses. The table keeps its size.
    mutating func removeAll(where shouldRemove: (ManagedObjectID, inout Value) -> Bool) -> [Value] {
        var picked: [ManagedObjectID] = []
        entries.withUnsafeMutableBufferPointer { entries in
            var slot = 0
            while slot < entries.count {
                if entries[slot].value != nil, shouldRemove(entries[slot].id, &entries[slot].value!) { picked.append(entries[slot].id) }
                slot += 1
            }
        }
        guard !picked.isEmpty else { return [] }
        var removed: [Value] = []
        removed.reserveCapacity(picked.count)
        if picked.count * 2 < count {
            for id in picked { removed.append(removeValue(forKey: id)!) }
            return removed
        }
        // Most entries go: move the rest to a new array of the same size.
        let picks = Set(picked)
        let old = entries
        entries = ContiguousArray(repeating: .empty, count: old.count)
        count -= picked.count
        for entry in old {
            guard let value = entry.value else { continue }
            if picks.contains(entry.id) { removed.append(value) } else { insertNew(entry.id, value) }
        }
        return removed
    }

    /// Makes room for `capacity` entries in all without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 4 > entries.count * 3 { resize(toHold: capacity) }
    }

    /// Moves every entry to an array of the smallest power-of-two size that
    /// holds `capacity` entries at most three quarters full.
    private mutating func resize(toHold capacity: Int) {
        var size = max(16, entries.count)
        while capacity * 4 > size * 3 { size *= 2 }
        let old = entries
        entries = ContiguousArray(repeating: .empty, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        for entry in old {
            if let value = entry.value { insertNew(entry.id, value) }
        }
    }

    /// Every value, in no particular order.
    var allValues: [Value] {
        var result: [Value] = []
        result.reserveCapacity(count)
        for entry in entries { if let value = entry.value { result.append(value) } }
        return result
    }

    /// Calls `body` with every entry, in no particular order.
    func forEach(_ body: (ManagedObjectID, Value) throws -> Void) rethrows {
        for entry in entries { if let value = entry.value { try body(entry.id, value) } }
    }
}

/// The seed of every ``ObjectIDTable`` in this process: `Hasher`'s, so that
/// `SWIFT_DETERMINISTIC_HASHING` makes it fixed too.
private let processSeed: UInt64 = {
    var hasher = Hasher()
    hasher.combine(0x436F_6865_7265_6E63 as UInt64)
    return UInt64(bitPattern: Int64(hasher.finalize()))
}()
