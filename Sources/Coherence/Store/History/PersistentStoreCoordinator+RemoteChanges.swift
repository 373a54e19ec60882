import Foundation

/// Who hears of a coordinator's remote changes: the stores whose
/// description asked for `NSPersistentStoreRemoteChange`, and the contexts
/// that merge remote changes automatically.
final class RemoteChangeRouter: Sendable {
    private struct State {
        var posting: Set<String> = []
        var observers: [UUID: @Sendable (RemoteChanges) -> Void] = [:]
    }

    private let state = Locked(State())

    /// Whether any context merges remote changes (the watchers then read
    /// the transactions' changes for them).
    var hasObservers: Bool { state.withLock { !$0.observers.isEmpty } }

    func post(for storeIdentifier: String) {
        state.withLock { _ = $0.posting.insert(storeIdentifier) }
    }

    func posts(for storeIdentifier: String) -> Bool {
        state.withLock { $0.posting.contains(storeIdentifier) }
    }

    func add(_ id: UUID, _ observer: @escaping @Sendable (RemoteChanges) -> Void) {
        state.withLock { $0.observers[id] = observer }
    }

    func remove(_ id: UUID) {
        state.withLock { _ = $0.observers.removeValue(forKey: id) }
    }

    var observers: [@Sendable (RemoteChanges) -> Void] {
        state.withLock { Array($0.observers.values) }
    }
}

extension PersistentStoreCoordinator {
    /// Starts watching `store` for other writers' commits (once per store),
    /// posting `NSPersistentStoreRemoteChange` if its description asked for
    /// it, and handing the transactions to merging contexts.
    func watchRemoteChanges(of store: any PersistentHistoryStore) throws {
        let url = store.locationURL
        try store.startWatchingRemoteChanges(wantsTransactions: { [weak self] in self?.remoteChanges.hasObservers ?? false }) {
            [weak self] changes in
            self?.deliverRemoteChanges(changes, storeURL: url)
        }
    }

    private func deliverRemoteChanges(_ changes: RemoteChanges, storeURL: URL) {
        if remoteChanges.posts(for: changes.token.storeIdentifier) {
            NotificationCenter.default.post(name: .NSPersistentStoreRemoteChange, object: self, userInfo: [
                NSStoreUUIDKey: changes.token.storeIdentifier,
                NSPersistentStoreURLKey: storeURL,
                NSPersistentHistoryTokenKey: changes.token,
            ])
        }
        for observer in remoteChanges.observers { observer(changes) }
    }

    /// Called when a store is loaded from `description`.
    func startRemoteChangeNotifications(for store: any PersistentStore, description: PersistentStoreDescription) throws {
        guard description.postsRemoteChangeNotifications, let store = store as? any PersistentHistoryStore, store.tracksPersistentHistory
        else { return }
        remoteChanges.post(for: store.identifier)
        try watchRemoteChanges(of: store)
    }

    /// Hands every remote change of the stores that keep history to
    /// `observer` until ``removeRemoteChangeObserver(_:)``; returns `false`
    /// when no loaded store keeps history.
    func addRemoteChangeObserver(_ id: UUID, _ observer: @escaping @Sendable (RemoteChanges) -> Void) throws -> Bool {
        let stores = persistentStores.compactMap { $0 as? any PersistentHistoryStore }.filter(\.tracksPersistentHistory)
        guard !stores.isEmpty else { return false }
        remoteChanges.add(id, observer)
        do {
            for store in stores { try watchRemoteChanges(of: store) }
        } catch {
            remoteChanges.remove(id)
            throw error
        }
        return true
    }

    func removeRemoteChangeObserver(_ id: UUID) {
        remoteChanges.remove(id)
    }
}
