
/// The coordinator's cache of committed snapshots, shared by all its
/// contexts: a fault another context already loaded fires without a query.
///
/// Entries are weak: a snapshot stays cached only while some object holds it,
/// so the cache never grows past what the contexts use. Every save and batch
/// request advances a generation; a read that started before a row changed
/// cannot put its older copy back (see ``beginRead()``).
///
/// **Complexity:** O(1) per lookup and insertion (amortized; dead entries are
/// swept when the cache has doubled since the last sweep).
final class RowCache: Sendable {
    private struct Entry {
        weak var snapshot: Snapshot?
    }

    private struct State {
        var entries: [ManagedObjectID: Entry] = [:]
        var sweepThreshold = 1024
        var generation: UInt64 = 0
        /// The generation at which each row last changed.
        var changedAt: [ManagedObjectID: UInt64] = [:]
        /// Reads older than this are not cached (`changedAt` was forgotten).
        var floor: UInt64 = 0
    }

    private let state = Locked(State())

    subscript(id: ManagedObjectID) -> Snapshot? {
        state.withLock { $0.entries[id]?.snapshot }
    }

    /// Call before reading from the store; pass the result to `insert`.
    func beginRead() -> UInt64 {
        state.withLock { $0.generation }
    }

    /// Caches snapshots read since `generation`, keeping the newer version of
    /// each row and skipping rows that changed after the read began.
    func insert(_ snapshots: some Sequence<Snapshot>, readAt generation: UInt64) {
        state.withLock { state in
            guard generation >= state.floor else { return }
            state.entries.reserveCapacity(state.entries.count + snapshots.underestimatedCount)
            let anyChanged = !state.changedAt.isEmpty
            for snapshot in snapshots {
                if anyChanged, let changed = state.changedAt[snapshot.objectID], changed > generation { continue }
                // One hash lookup: put the new entry in, and the cached one
                // back in the rare case that it is newer.
                if let replaced = state.entries.updateValue(Entry(snapshot: snapshot), forKey: snapshot.objectID),
                   let cached = replaced.snapshot, cached.version > snapshot.version {
                    state.entries[snapshot.objectID] = replaced
                }
            }
            if state.entries.count >= state.sweepThreshold {
                state.entries = state.entries.filter { $0.value.snapshot != nil }
                state.sweepThreshold = max(1024, state.entries.count * 2)
            }
        }
    }

    /// Drops every snapshot of a store taken out of the coordinator; reads
    /// that began earlier cache nothing.
    func forget(storeIdentifier: String) {
        state.withLock { state in
            state.generation += 1
            state.floor = state.generation
            state.changedAt = [:]
            state.entries = state.entries.filter { $0.key.storeIdentifier != storeIdentifier }
        }
    }

    /// Records a committed change: `changed` rows are forgotten (reads that
    /// began earlier will not cache them), then `saved` snapshots cached.
    func commit(changed: some Sequence<ManagedObjectID>, saved: some Sequence<Snapshot>) {
        state.withLock { state in
            state.generation += 1
            for id in changed {
                state.changedAt[id] = state.generation
                state.entries[id] = nil
            }
            for snapshot in saved {
                state.changedAt[snapshot.objectID] = state.generation
                state.entries[snapshot.objectID] = Entry(snapshot: snapshot)
            }
            if state.changedAt.count > 10_000 {
                state.floor = state.generation
                state.changedAt = [:]
            }
        }
    }
}
