/// A map from object IDs to values, for the identity map and the row cache,
/// laid out for the keys stores issue: consecutive integers per entity.
///
/// IDs are grouped in pages of 16 consecutive keys of one class and store;
/// a page holds its values side by side, and a hash table (the directory)
/// finds a page by its first key. A fetch in key order, the common one,
/// so writes each cache line of values once for many rows instead of once
/// per row at a random place in a table of every row (a miss per row and
/// per table once the table outgrows the cache), and a full page takes
/// about 13 bytes a value (with its share of the directory) where a hash
/// table of IDs takes about 40. Sparse keys cost more: at worst a page for
/// a single value.
///
/// **Complexity:** lookups, insertions and removals O(1) amortized (one
/// directory lookup); ``removeAll(where:)`` and iteration O(pages, or the
/// directory's room up to 1,024 pages after ``removeAll()``).
struct ObjectIDTable<Value> {
    /// A page's IDs: their class and store, and their keys shifted right by
    /// 4 bits (rounded down, so that negative keys have pages too).
    private struct PageKey: Hashable {
        let objectClass: ManagedObject.Type
        let storeNumber: UInt32
        let block: Int64

        init(_ id: ManagedObjectID) {
            objectClass = id.objectClass
            storeNumber = id.storeNumber
            block = id.key >> 4
        }

        static func == (lhs: PageKey, rhs: PageKey) -> Bool {
            lhs.block == rhs.block && lhs.objectClass == rhs.objectClass && lhs.storeNumber == rhs.storeNumber
        }

        func _rawHashValue(seed: Int) -> Int {
            mixedHash(UInt64(bitPattern: block) ^ UInt64(UInt(bitPattern: ObjectIdentifier(objectClass))) &* 0x9E37_79B9_7F4A_7C15
                      ^ UInt64(storeNumber) << 40, seed: seed)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(objectClass))
            hasher.combine(storeNumber)
            hasher.combine(block)
        }

        /// The ID at `slot` of this page.
        func id(at slot: Int) -> ManagedObjectID {
            ManagedObjectID(objectClass: objectClass, storeNumber: storeNumber, key: block << 4 | Int64(slot))
        }
    }

    /// Sixteen values, `nil` where there is none.
    private struct Page {
        var values: ContiguousArray<Value?>
        var count: Int

        init() {
            values = ContiguousArray(repeating: nil, count: 16)
            count = 0
        }

        /// `body` applied to the page in place.
        @inline(__always)
        mutating func modify<R>(_ body: (inout Page) -> R) -> R { body(&self) }
    }

    /// The pages. Every change that may move pages (any but a change to a
    /// page in place) clears `lastPage`.
    private var pages: [PageKey: Page] = [:]
    /// The number of entries.
    private(set) var count = 0
    /// The page written last and where it is: the next ID of a fetch or a
    /// save in key order is on it 15 times out of 16, found without hashing.
    private var lastPage: (key: PageKey, index: Dictionary<PageKey, Page>.Index)?

    /// Where the page `key` is, if it exists.
    @inline(__always)
    private func index(of key: PageKey) -> Dictionary<PageKey, Page>.Index? {
        if let lastPage, lastPage.key == key { return lastPage.index }
        return pages.index(forKey: key)
    }

    init() {}

    @inline(__always)
    private static func slot(_ id: ManagedObjectID) -> Int { Int(truncatingIfNeeded: id.key & 15) }

    /// The value for `id`; setting `nil` removes it.
    subscript(id: ManagedObjectID) -> Value? {
        get { index(of: PageKey(id)).flatMap { pages.values[$0].values[Self.slot(id)] } }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the value for `id`; returns the value it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey id: ManagedObjectID) -> Value? {
        let slot = Self.slot(id)
        let key = PageKey(id)
        let index: Dictionary<PageKey, Page>.Index
        if let found = self.index(of: key) {
            index = found
        } else {
            lastPage = nil
            pages[key] = Page()
            index = pages.index(forKey: key)!
        }
        lastPage = (key, index)
        let old: Value? = pages.values[index].modify { page in
            let old = page.values[slot].take()
            page.values[slot] = value
            if old == nil { page.count += 1 }
            return old
        }
        if old == nil { count += 1 }
        return old
    }

    /// Removes the entry for `id`; returns its value.
    @discardableResult
    mutating func removeValue(forKey id: ManagedObjectID) -> Value? {
        removeValue(forKey: id) { _ in true }
    }

    /// Removes the value for `id` if `shouldRemove` says so, and returns it.
    mutating func removeValue(forKey id: ManagedObjectID, if shouldRemove: (inout Value) -> Bool) -> Value? {
        let key = PageKey(id)
        guard let index = self.index(of: key) else { return nil }
        let slot = Self.slot(id)
        let removed: Value? = pages.values[index].modify { page in
            guard page.values[slot] != nil, shouldRemove(&page.values[slot]!) else { return nil }
            page.count -= 1
            return page.values[slot].take()
        }
        guard removed != nil else { return nil }
        count -= 1
        if pages.values[index].count == 0 {
            lastPage = nil
            pages.remove(at: index)
            shrinkIfSparse()
        }
        return removed
    }

    /// Removes every entry `shouldRemove` picks (it may also inspect the
    /// value in place) and returns their values, for the caller to release
    /// where it chooses.
    mutating func removeAll(where shouldRemove: (ManagedObjectID, inout Value) -> Bool) -> [Value] {
        var removed: [Value] = []
        var emptied: [PageKey] = []
        var index = pages.startIndex
        while index != pages.endIndex {
            let key = pages.keys[index]
            pages.values[index].modify { page in
                for slot in 0..<16 where page.values[slot] != nil {
                    if shouldRemove(key.id(at: slot), &page.values[slot]!) {
                        removed.append(page.values[slot].take()!)
                        page.count -= 1
                    }
                }
                if page.count == 0 { emptied.append(key) }
            }
            pages.formIndex(after: &index)
        }
        guard !emptied.isEmpty else {
            count -= removed.count
            return removed
        }
        lastPage = nil
        for key in emptied { pages[key] = nil }
        count -= removed.count
        shrinkIfSparse()
        return removed
    }

    /// A directory never gives back its room by itself: when it holds less
    /// than a quarter of what it has room for (past 1,024 pages, the room
    /// ``removeAll()`` keeps too), it is copied into one sized for what is
    /// left.
    private mutating func shrinkIfSparse() {
        guard pages.capacity > 1024, pages.count * 4 < pages.capacity else { return }
        var smaller = [PageKey: Page](minimumCapacity: pages.count)
        for (key, page) in pages { smaller[key] = page }
        lastPage = nil
        pages = smaller
    }

    /// Removes every entry, keeping the directory's room when it is small
    /// (a context reset between small fetches does not grow it anew each
    /// time) and giving it back when it is large.
    mutating func removeAll() {
        lastPage = nil
        pages.removeAll(keepingCapacity: pages.capacity <= 1024)
        count = 0
    }

    /// Makes room for `capacity` entries in all (pages for as many
    /// consecutive keys) without growing the directory.
    mutating func reserveCapacity(_ capacity: Int) {
        lastPage = nil
        pages.reserveCapacity((capacity + 15) / 16)
    }

    /// Every value, in no particular order.
    var allValues: [Value] {
        var result: [Value] = []
        result.reserveCapacity(count)
        for page in pages.values {
            for value in page.values { if let value { result.append(value) } }
        }
        return result
    }
}
