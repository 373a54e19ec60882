/// A map from object IDs to values, for the identity map and the row cache,
/// laid out for the keys stores issue: consecutive integers per entity.
///
/// IDs are grouped in pages of 16 consecutive keys of one class and store;
/// a page holds its values side by side, and a hash table (the directory)
/// finds a page by the ID of its first slot. A fetch in key order, the
/// common one, so writes each cache line of values once for many rows instead of once
/// per row at a random place in a table of every row (a miss per row and
/// per table once the table outgrows the cache), and a full page takes
/// about 13 bytes a value (with its share of the directory) where a hash
/// table of IDs takes about 40. Sparse keys cost more: at worst a page for
/// a single value.
///
/// A copy is a value, sharing its pages until either side changes; like
/// `Dictionary`, a table is not for use from several threads at once
/// (copies included: the first change after a copy copies the pages).
///
/// **Complexity:** lookups, insertions and removals O(1) amortized (at
/// most one directory lookup), except the first change after a copy, which
/// copies the pages: O(entries); ``removeAll(where:)`` and iteration
/// O(pages, or the directory's room up to 1,024 pages after ``removeAll()``).
struct ObjectIDTable<Value> {
    /// A page's key in the directory: the ID of its first slot, whose key is
    /// a multiple of 16 (rounded down, so that negative keys have pages too).
    @inline(__always)
    private static func pageKey(_ id: ManagedObjectID) -> ManagedObjectID {
        ManagedObjectID(objectClass: id.objectClass, storeNumber: id.storeNumber, key: id.key & ~15)
    }

    /// The ID at `slot` of the page `key`.
    private static func id(at slot: Int, of key: ManagedObjectID) -> ManagedObjectID {
        ManagedObjectID(objectClass: key.objectClass, storeNumber: key.storeNumber, key: key.key | Int64(slot))
    }

    /// Sixteen values, `nil` where there is none, and how many there are:
    /// one allocation, written in place through the table's reference (no
    /// copy-on-write check per page: the table checks once, see
    /// ``makeUnique()``).
    private final class Page: ManagedBuffer<Int, Value?> {
        static func make() -> Page {
            let page = unsafeDowncast(Page.create(minimumCapacity: 16) { _ in 0 }, to: Page.self)
            page.withUnsafeMutablePointerToElements { $0.initialize(repeating: nil, count: 16) }
            return page
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { $0.deinitialize(count: 16) }
        }

        /// The values, valid while the page is alive (a class instance does
        /// not move; the table keeps its pages alive while it uses them).
        @inline(__always)
        var values: UnsafeMutablePointer<Value?> { withUnsafeMutablePointerToElements { $0 } }

        /// The number of values.
        @inline(__always)
        var count: Int {
            get { withUnsafeMutablePointerToHeader { $0.pointee } }
            set { withUnsafeMutablePointerToHeader { $0.pointee = newValue } }
        }

        /// A page with the same values.
        func copy() -> Page {
            let page = Page.make()
            for slot in 0..<16 { page.values[slot] = values[slot] }
            page.count = count
            return page
        }
    }

    /// The pages. Every change that removes or replaces pages clears
    /// `lastPage`.
    private var pages: [ManagedObjectID: Page] = [:]
    /// The number of entries.
    private(set) var count = 0
    /// The page written last, unretained (`pages` holds it): the next ID of
    /// a fetch or a save in key order is on it 15 times out of 16, found
    /// without hashing or reference counting.
    private var lastPage: (key: ManagedObjectID, page: Unmanaged<Page>)?
    /// Shared by copies of the table (which share its pages too) until one
    /// of them changes: see ``makeUnique()``.
    private var owner = Owner()
    private final class Owner {}

    /// Gives the table pages of its own if a copy shares them, before a
    /// change: one check per change, not one per page. **Complexity:** O(1),
    /// or O(entries) for the first change after a copy.
    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&owner) { copyPages() }
    }

    private mutating func copyPages() {
        // Copied before the owner changes: until then, no copy sharing the
        // pages can take them for its own and write to them.
        let copied = pages.mapValues { $0.copy() }
        owner = Owner()
        pages = copied
        lastPage = nil
    }

    init() {}

    @inline(__always)
    private static func slot(_ id: ManagedObjectID) -> Int { Int(truncatingIfNeeded: id.key & 15) }

    /// The value for `id`; setting `nil` removes it.
    subscript(id: ManagedObjectID) -> Value? {
        get {
            let key = Self.pageKey(id)
            if let lastPage, lastPage.key == key {
                return lastPage.page._withUnsafeGuaranteedRef { $0.values[Self.slot(id)] }
            }
            return pages[key]?.values[Self.slot(id)]
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// Sets the value for `id`; returns the value it replaced.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey id: ManagedObjectID) -> Value? {
        makeUnique()
        let key = Self.pageKey(id)
        let page: Unmanaged<Page>
        if let lastPage, lastPage.key == key {
            page = lastPage.page
        } else {
            if let found = pages[key] {
                page = .passUnretained(found)
            } else {
                let made = Page.make()
                pages[key] = made
                page = .passUnretained(made)
            }
            lastPage = (key, page)
        }
        let old = page._withUnsafeGuaranteedRef { page in
            let values = page.values + Self.slot(id)
            let old = values.pointee.take()
            values.pointee = value
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
        makeUnique()
        let key = Self.pageKey(id)
        let page: Page
        if let lastPage, lastPage.key == key {
            page = lastPage.page.takeUnretainedValue()
        } else if let found = pages[key] {
            page = found
        } else {
            return nil
        }
        let values = page.values + Self.slot(id)
        guard values.pointee != nil, shouldRemove(&values.pointee!) else { return nil }
        let removed = values.pointee.take()
        page.count -= 1
        count -= 1
        if page.count == 0 {
            lastPage = nil
            pages[key] = nil
            shrinkIfSparse()
        }
        return removed
    }

    /// Removes every entry `shouldRemove` picks (it may also inspect the
    /// value in place) and returns their values, for the caller to release
    /// where it chooses.
    mutating func removeAll(where shouldRemove: (ManagedObjectID, inout Value) -> Bool) -> [Value] {
        makeUnique()
        var removed: [Value] = []
        var emptied: [ManagedObjectID] = []
        for (key, page) in pages {
            let values = page.values
            for slot in 0..<16 where values[slot] != nil {
                if shouldRemove(Self.id(at: slot, of: key), &values[slot]!) {
                    removed.append(values[slot].take()!)
                    page.count -= 1
                }
            }
            if page.count == 0 { emptied.append(key) }
        }
        count -= removed.count
        guard !emptied.isEmpty else { return removed }
        lastPage = nil
        for key in emptied { pages[key] = nil }
        shrinkIfSparse()
        return removed
    }

    /// A directory never gives back its room by itself: when it holds less
    /// than a quarter of what it has room for (past 1,024 pages, the room
    /// ``removeAll()`` keeps too), it is copied into one sized for what is
    /// left.
    private mutating func shrinkIfSparse() {
        guard pages.capacity > 1024, pages.count * 4 < pages.capacity else { return }
        var smaller = [ManagedObjectID: Page](minimumCapacity: pages.count)
        for (key, page) in pages { smaller[key] = page }
        lastPage = nil
        pages = smaller
    }

    /// Removes every entry, keeping the directory's room when it is small
    /// (a context reset between small fetches does not grow it anew each
    /// time) and giving it back when it is large.
    mutating func removeAll() {
        lastPage = nil
        // No page is written: a copy that shares them keeps them, and this
        // table only needs an owner of its own.
        if !isKnownUniquelyReferenced(&owner) { owner = Owner() }
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
            for slot in 0..<16 { if let value = page.values[slot] { result.append(value) } }
        }
        return result
    }
}
