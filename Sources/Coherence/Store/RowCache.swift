
/// The coordinator's cache of committed snapshots, shared by all its
/// contexts: a fault another context already loaded fires without a query.
///
/// A snapshot stays cached while some object holds it, so the cache does not
/// grow past what the contexts use: entries are strong references, a lookup
/// drops a snapshot only the cache holds, and a sweep drops all of them when
/// the cache has doubled since the last sweep (or a context let many objects
/// go, see ``sweep(releasedAbout:)``). Weak entries would do the same without
/// sweeps, but a weakly referenced object carries a side table (an
/// allocation per row read, and every retain and release of the snapshot
/// down the runtime's slow path). Every save and batch request advances a
/// generation; a read that started before a row changed cannot put its older
/// copy back (see ``beginRead()``).
///
/// **Complexity:** O(1) per lookup and insertion (amortized: a sweep is
/// O(cached snapshots), and runs after as many insertions).
final class RowCache: Sendable {
    private struct State {
        var entries = ObjectIDTable<Snapshot>()
        var sweepThreshold = 1024
        var generation: UInt64 = 0
        /// The generation at which each row last changed.
        var changedAt: [ManagedObjectID: UInt64] = [:]
        /// Reads older than this are not cached (`changedAt` was forgotten).
        var floor: UInt64 = 0
    }

    private let state = Locked(State())

    /// The cached snapshot of `id`, if some object still holds it. One that
    /// only the cache holds is dropped instead (as a weak entry would have
    /// been): it may be older than the row, which another coordinator or
    /// process can have changed since nothing here used it.
    subscript(id: ManagedObjectID) -> Snapshot? {
        var garbage: Snapshot?
        defer { _ = garbage } // freed after the lock is released
        return state.withLock { state in
            var cached: Snapshot?
            garbage = state.entries.removeValue(forKey: id) { snapshot in
                if isKnownUniquelyReferenced(&snapshot.storage) { return true }
                cached = snapshot
                return false
            }
            return cached
        }
    }

    /// The number of cached snapshots, including those that only the cache
    /// holds until the next sweep (for tests).
    var count: Int {
        state.withLock { $0.entries.count }
    }

    /// Call before reading from the store; pass the result to `insert`.
    func beginRead() -> UInt64 {
        state.withLock { $0.generation }
    }

    /// Caches snapshots read since `generation`, keeping the newer version of
    /// each row and skipping rows that changed after the read began.
    func insert(_ snapshots: some Sequence<Snapshot>, readAt generation: UInt64) {
        var garbage: [Snapshot] = []
        defer { _ = garbage } // freed after the lock is released
        state.withLock { state in
            guard generation >= state.floor else { return }
            state.entries.reserveCapacity(state.entries.count + snapshots.underestimatedCount)
            let anyChanged = !state.changedAt.isEmpty
            for snapshot in snapshots {
                if anyChanged, let changed = state.changedAt[snapshot.objectID], changed > generation { continue }
                // One hash lookup: put the new entry in, and the cached one
                // back in the rare case that it is newer.
                if let replaced = state.entries.updateValue(snapshot, forKey: snapshot.objectID),
                   replaced.version > snapshot.version {
                    state.entries[snapshot.objectID] = replaced
                }
            }
            if state.entries.count >= state.sweepThreshold { garbage = Self.sweep(&state) }
        }
    }

    /// Drops the snapshots that only the cache holds, when `count` objects
    /// were just let go (a context was reset or deinitialized) and they are
    /// a fair share of the cache, so that their snapshots do not wait for the
    /// cache to double. **Complexity:** O(cached snapshots), run only when
    /// `count` is at least a quarter of them: amortized O(1) per object.
    func sweep(releasedAbout count: Int) {
        guard count > 0 else { return }
        let garbage = state.withLock { state in
            count * 4 >= state.entries.count ? Self.sweep(&state) : []
        }
        _ = garbage // freed here, outside the lock
    }

    /// Removes the entries nothing else holds and returns them, for the
    /// caller to free outside the lock. Another thread can only get a cached
    /// snapshot through the cache, under the same lock, so a snapshot the
    /// cache alone holds cannot gain a holder during the sweep.
    private static func sweep(_ state: inout State) -> [Snapshot] {
        let garbage = state.entries.removeAll { _, snapshot in isKnownUniquelyReferenced(&snapshot.storage) }
        state.sweepThreshold = max(1024, state.entries.count * 2)
        return garbage
    }

    /// Drops every snapshot of a store taken out of the coordinator; reads
    /// that began earlier cache nothing.
    func forget(storeIdentifier: String) {
        var garbage: [Snapshot] = []
        defer { _ = garbage } // freed after the lock is released
        state.withLock { state in
            state.generation += 1
            state.floor = state.generation
            state.changedAt = [:]
            let number = StoreNumbers.number(for: storeIdentifier)
            garbage = state.entries.removeAll { id, _ in id.storeNumber == number }
        }
    }

    /// Records a committed change: `changed` rows are forgotten (reads that
    /// began earlier will not cache them), then `saved` snapshots cached.
    /// When the rows recorded since the floor and this change's rows come
    /// to more than 10,000 (a row in both counted twice), the floor is
    /// raised instead: reads that began earlier cache nothing, and no row is
    /// recorded (a large save fills no table only to empty it).
    func commit(changed: some Collection<ManagedObjectID>, saved: some Collection<Snapshot>) {
        var garbage: [Snapshot] = []
        defer { _ = garbage } // freed after the lock is released
        state.withLock { state in
            state.generation += 1
            let recordsRows = state.changedAt.count + changed.count + saved.count <= 10_000
            if !recordsRows {
                state.floor = state.generation
                state.changedAt = [:]
            }
            for id in changed {
                if recordsRows { state.changedAt[id] = state.generation }
                state.entries[id] = nil
            }
            state.entries.reserveCapacity(state.entries.count + saved.count)
            for snapshot in saved {
                if recordsRows { state.changedAt[snapshot.objectID] = state.generation }
                state.entries[snapshot.objectID] = snapshot
            }
            if state.entries.count >= state.sweepThreshold { garbage = Self.sweep(&state) }
        }
    }
}
