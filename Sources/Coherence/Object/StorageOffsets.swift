/// A context's memo of where property wrappers keep their storage inside
/// their objects, keyed by the storage key path the compiler passes to a
/// wrapper's accessor: the fallback for where ``StoredOffset`` cannot read
/// the offset from the key path itself (a standard library whose key path
/// layout it does not know).
///
/// Writing through a class key path goes through the key-path runtime (about
/// a thousand instructions per write) because the optimizer does not fold
/// class key-path writes; on the fallback path, the accessor asks here for
/// the byte offset instead and writes in place. A literal key path of a non-generic class is one
/// object for the life of the process, so its identity is a good key; each
/// entry keeps its key path alive, so an identity is never reused for
/// another key path while it is remembered.
///
/// The memo is a small table without hashing: ``capacity`` slots, each key
/// path in one of the ``probes`` slots its address picks (key paths allocated
/// side by side often pick the same one), a newcomer taking a free one or
/// replacing the first. Lookups cost a few instructions; key paths a generic
/// entity makes anew on each access just take turns.
///
/// **Complexity:** O(1) per lookup. Confined to its context's queue.
struct StorageOffsets {
    private struct Entry {
        let keyPath: AnyKeyPath
        let offset: Int
    }

    static let capacity = 256
    private var slots = [Entry?](repeating: nil, count: capacity)

    /// How many slots from the one a key path's address picks it may sit in.
    static let probes = 4

    /// The offset of the storage `keyPath` reaches; `compute` finds it the
    /// first time.
    mutating func offset(of keyPath: AnyKeyPath, compute: () -> Int) -> Int {
        let address = UInt(bitPattern: ObjectIdentifier(keyPath))
        let first = Int((address >> 4 ^ address >> 12) % UInt(Self.capacity))
        var free: Int?
        for probe in 0..<Self.probes {
            let slot = (first + probe) % Self.capacity
            guard let entry = slots[slot] else {
                free = free ?? slot
                continue
            }
            if entry.keyPath === keyPath { return entry.offset }
        }
        let offset = compute()
        slots[free ?? first] = Entry(keyPath: keyPath, offset: offset)
        return offset
    }
}

extension ManagedObject {
    /// The byte offset of the wrapper storage `keyPath` reaches, from the
    /// context's memo when the object has a context.
    @usableFromInline
    final func _storageOffset(_ keyPath: AnyKeyPath, compute: () -> Int) -> Int {
        guard let context = _contextRef else { return compute() }
        // Before touching the queue-confined memo, so that a write from the
        // wrong queue traps with the entity's name instead of racing.
        if _access.contains(.queueChecked) { context._assertOnQueue(touching: self) }
        return context.storageOffsets.offset(of: keyPath, compute: compute)
    }
}
