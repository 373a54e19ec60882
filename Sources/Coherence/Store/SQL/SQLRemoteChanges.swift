import Foundation

/// Wakes an SQL store's remote-change watcher when its database may have
/// been changed by another connection: another coordinator of this process,
/// another process, another machine. A signal may fire for changes the
/// watcher has already seen, or for this store's own saves; the watcher
/// sorts that out from the history tables. What it must never do is stay
/// silent after a commit it could have noticed.
///
/// The SQLite store's signal watches the database's files (inotify on
/// Linux) and confirms with `PRAGMA data_version`; the PostgreSQL store's
/// listens for the `NOTIFY` each save sends inside its transaction.
package protocol SQLChangeSignal: Sendable {
    /// Starts calling `changed` (from any thread, one call at a time) each
    /// time the database may have changed, and once after every
    /// reconnection (a signal that could have missed a change says so).
    func start(_ changed: @escaping @Sendable () -> Void) throws
    /// Stops the signal soon: a call of `changed` in progress may finish,
    /// and one more may start (the watcher ignores calls once stopped).
    func stop()
}

/// What was committed to a store since the watcher last looked.
package struct RemoteChanges: Sendable {
    /// The token of the last transaction committed, by any writer, this
    /// store included (Core Data posts its remote-change notification "for
    /// every write to the store").
    package let token: PersistentHistoryToken
    /// The transactions other writers committed, with their changes, in
    /// commit order; empty unless the watcher was asked for them (see
    /// ``SQLRemoteChangeWatcher``). The store's own are left out: its
    /// contexts hear of them through didSave.
    package let transactions: [PersistentHistoryTransaction]
}

/// Follows an SQL store's history for the transactions committed to it,
/// and hands them to `handler` (on a private serial queue, in commit order,
/// each once): the newest token, whoever wrote it, and the transactions of
/// other writers.
///
/// **Own transactions.** A store's own saves write history too; the watcher
/// reports their token but leaves their transactions out. The store tells it the numbers its writes took
/// (``noteOwn(_:)``) and whether they committed (``finishWrite(committed:)``),
/// all under the store's write gate; the watcher classifies what it read
/// under the same gate, so it never sees a committed number of this store
/// before knowing it is one. A number of a write that rolled back is
/// forgotten: the counter gives it again, maybe to another writer.
///
/// **Complexity:** each signal costs one indexed query of the history
/// numbers after the last one seen; with ``wantsTransactions``, one history
/// fetch of the new transactions as well.
final class SQLRemoteChangeWatcher: Sendable {
    private struct State {
        var lastSeen: Int64
        var own: Set<Int64> = []
        var pending: [Int64] = []
        var checkQueued = false
        var stopped = false
        var retryDelay = Duration.milliseconds(50)
    }

    private weak let store: SQLStore?
    private let signal: any SQLChangeSignal
    private let gate: NSLock
    private let state: Locked<State>
    private let handler: @Sendable (RemoteChanges) -> Void
    /// Whether ``RemoteChanges/transactions`` should hold the transactions.
    private let transactionsWanted: @Sendable () -> Bool
    private let queue = DispatchQueue(label: "Coherence.RemoteChanges")

    /// Starts watching `store` from its current history: what it committed
    /// before this call is not reported. Call it under the write gate.
    init(store: SQLStore, signal: any SQLChangeSignal, gate: NSLock, lastSeen: Int64,
         wantsTransactions: @escaping @Sendable () -> Bool, handler: @escaping @Sendable (RemoteChanges) -> Void) {
        self.store = store
        self.signal = signal
        self.gate = gate
        state = Locked(State(lastSeen: lastSeen))
        self.handler = handler
        transactionsWanted = wantsTransactions
    }

    /// Starts the signal.
    func start() throws {
        try signal.start { [weak self] in self?.changed() }
    }

    /// Stops the signal; a check in progress finishes, no other starts.
    func stop() {
        state.withLock { $0.stopped = true }
        signal.stop()
    }

    // MARK: The store's writes (under the write gate)

    /// A history transaction number the current write took.
    func noteOwn(_ number: Int64) {
        state.withLock { $0.pending.append(number) }
    }

    /// The current write committed (its numbers are this store's) or rolled back.
    func finishWrite(committed: Bool) {
        state.withLock { state in
            if committed { state.own.formUnion(state.pending) }
            state.pending.removeAll()
        }
    }

    // MARK: Checking

    /// Queues one check, unless one is queued already (signals coalesce).
    private func changed() {
        let queued = state.withLock { state -> Bool in
            guard !state.checkQueued, !state.stopped else { return false }
            state.checkQueued = true
            return true
        }
        if queued { queue.async { self.check() } }
    }

    /// A check failed: tries again after 50 ms, then twice as long after
    /// each failure, up to 2 s (a signal may come first).
    private func retryLater() {
        let delay = state.withLock { state in
            defer { state.retryDelay = min(state.retryDelay * 2, .seconds(2)) }
            return state.retryDelay
        }
        let (seconds, attoseconds) = delay.components
        queue.asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) { [weak self] in self?.changed() }
    }

    private func succeeded() {
        state.withLock { $0.retryDelay = .milliseconds(50) }
    }

    /// Reads the history numbers after the last one seen and reports the
    /// other writers'. A read that fails leaves everything as it was, and
    /// is tried again (``retryLater()``).
    private func check() {
        let after = state.withLock { state in
            state.checkQueued = false
            return state.lastSeen
        }
        guard let store, !state.withLock({ $0.stopped }) else { return }
        let numbers: [Int64]
        do {
            numbers = try store.read { db in
                try db.int64s("SELECT \"Z_PK\" FROM \(SQLHistorySchema.transactionTable) WHERE \"Z_PK\" > ? ORDER BY \"Z_PK\"", [.integer(after)])
            }
        } catch {
            return retryLater()
        }
        guard let last = numbers.last else { return succeeded() }
        let foreign = gate.withLock { state.withLock { state in numbers.filter { !state.own.contains($0) } } }
        var transactions: [PersistentHistoryTransaction] = []
        if !foreign.isEmpty, transactionsWanted() {
            do {
                // By number, so that pruning older transactions loses nothing
                // of these (one pruned meanwhile is simply not there).
                transactions = try store.transactions(numbered: foreign)
            } catch {
                return retryLater()
            }
        }
        state.withLock { state in
            state.lastSeen = last
            state.own = state.own.filter { $0 > last }
        }
        succeeded()
        handler(RemoteChanges(token: PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: last),
                              transactions: transactions))
    }
}

extension SQLStore {
    /// Starts reporting the transactions other writers commit from now on
    /// to `handler`, woken by `signal`; with `wantsTransactions` returning
    /// true, with their changes. Does nothing when the store is watched
    /// already (the first handler stays); returns whether it started.
    /// - Throws: ``PersistentHistoryError/trackingNotEnabled(storeIdentifier:)``
    ///   when the store keeps no history; the signal's or the database's error.
    @discardableResult
    package func startWatchingRemoteChanges(signal: any SQLChangeSignal, wantsTransactions: @escaping @Sendable () -> Bool,
                                            handler: @escaping @Sendable (RemoteChanges) -> Void) throws -> Bool {
        guard tracksPersistentHistory else { throw PersistentHistoryError.trackingNotEnabled(storeIdentifier: identifier) }
        let watcher: SQLRemoteChangeWatcher? = try writeGate.withLock {
            guard remoteChangeWatcher.withLock({ $0 }) == nil else { return nil }
            // Under the gate: no write of this store is between taking its
            // number and committing, so every later number is classified.
            let last = try currentPersistentHistoryToken().transactionNumber
            let watcher = SQLRemoteChangeWatcher(store: self, signal: signal, gate: writeGate, lastSeen: last,
                                                 wantsTransactions: wantsTransactions, handler: handler)
            remoteChangeWatcher.withLock { $0 = watcher }
            return watcher
        }
        guard let watcher else { return false }
        do {
            try watcher.start()
        } catch {
            remoteChangeWatcher.withLock { $0 = nil }
            throw error
        }
        return true
    }

    /// Stops reporting other writers' transactions.
    package func stopWatchingRemoteChanges() {
        let watcher = writeGate.withLock { remoteChangeWatcher.withLock { watcher in defer { watcher = nil }; return watcher } }
        watcher?.stop()
    }
}
