import Synchronization

/// The coordinator's cache of committed snapshots, shared by all its
/// contexts: a fault another context already loaded fires without a query.
///
/// Entries are weak: a snapshot stays cached only while some object holds it,
/// so the cache never grows past what the contexts use. A newer version of a
/// row replaces an older one; a save's snapshots replace what it changed.
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
    }

    private let state = Mutex(State())

    subscript(id: ManagedObjectID) -> Snapshot? {
        state.withLock { $0.entries[id]?.snapshot }
    }

    /// Caches snapshots, keeping the newer version of each row.
    func insert(_ snapshots: some Sequence<Snapshot>) {
        state.withLock { state in
            for snapshot in snapshots {
                if let cached = state.entries[snapshot.objectID]?.snapshot, cached.version > snapshot.version { continue }
                state.entries[snapshot.objectID] = Entry(snapshot: snapshot)
            }
            if state.entries.count >= state.sweepThreshold {
                state.entries = state.entries.filter { $0.value.snapshot != nil }
                state.sweepThreshold = max(1024, state.entries.count * 2)
            }
        }
    }

    /// Forgets rows, for example ones a batch request changed or deleted.
    func remove(_ ids: some Sequence<ManagedObjectID>) {
        state.withLock { state in
            for id in ids { state.entries[id] = nil }
        }
    }

    func removeAll() {
        state.withLock { $0.entries = [:] }
    }
}
