import Foundation

/// The observation behind `automaticallyMergesRemoteChanges`: the
/// coordinator's watchers hand over the transactions other writers
/// committed, and the context merges each, in commit order, on its queue.
final class RemoteChangeMerging: Sendable {
    private let id = UUID()
    private weak let coordinator: PersistentStoreCoordinator?

    /// Starts following; traps (a programmer error) when `coordinator` is
    /// `nil` or has no store that keeps history.
    init(for context: ManagedObjectContext, coordinator: PersistentStoreCoordinator?) {
        guard let coordinator else {
            fatalError("automaticallyMergesRemoteChanges was set on \(context), which has no persistent store coordinator")
        }
        self.coordinator = coordinator
        let following: Bool
        do {
            following = try coordinator.addRemoteChangeObserver(id) { [weak context] changes in
                guard let context, !changes.transactions.isEmpty else { return }
                context.perform { context.mergeRemoteTransactions(changes.transactions) }
            }
        } catch {
            fatalError("automaticallyMergesRemoteChanges was set on \(context), but its stores cannot be watched: \(error)")
        }
        // fatalError keeps its message in release builds too.
        guard following else {
            fatalError("automaticallyMergesRemoteChanges was set on \(context), but no store of its coordinator keeps "
                + "persistent history: load the store with persistentHistoryTracking = true (NSPersistentHistoryTrackingKey)")
        }
    }

    func stop() {
        coordinator?.removeRemoteChangeObserver(id)
    }
}

extension ManagedObjectContext {
    /// Merges other writers' transactions, each on its own (an object
    /// inserted by one and deleted by the next must end deleted), under the
    /// automatic merge budget.
    ///
    /// An object a later transaction of `transactions` deletes is left out
    /// of the earlier ones' insertions and updates: its row is gone, and
    /// announcing it as inserted or updated would have observers read it.
    func mergeRemoteTransactions(_ transactions: [PersistentHistoryTransaction]) {
        var deletedLater = Set<ManagedObjectID>()
        var batches: [ObjectIDChanges] = []
        for transaction in transactions.reversed() {
            var changes = transaction.objectIDChanges
            changes.inserted.subtract(deletedLater)
            changes.updated.subtract(deletedLater)
            deletedLater.formUnion(changes.deleted)
            batches.append(changes)
        }
        for changes in batches.reversed() where !changes.isEmpty {
            mergeRemoteChanges(changes, budget: automaticMergeBudget)
        }
    }
}
