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
            preconditionFailure("automaticallyMergesRemoteChanges was set on \(context), which has no persistent store coordinator")
        }
        self.coordinator = coordinator
        let following: Bool
        do {
            following = try coordinator.addRemoteChangeObserver(id) { [weak context] changes in
                guard let context, !changes.transactions.isEmpty else { return }
                context.perform { context.mergeRemoteTransactions(changes.transactions) }
            }
        } catch {
            preconditionFailure("automaticallyMergesRemoteChanges was set on \(context), but its stores cannot be watched: \(error)")
        }
        precondition(following, "automaticallyMergesRemoteChanges was set on \(context), but no store of its coordinator keeps "
            + "persistent history: load the store with persistentHistoryTracking = true (NSPersistentHistoryTrackingKey)")
    }

    func stop() {
        coordinator?.removeRemoteChangeObserver(id)
    }
}

extension ManagedObjectContext {
    /// Merges other writers' transactions, each on its own (an object
    /// inserted by one and deleted by the next must end deleted), under the
    /// automatic merge budget.
    func mergeRemoteTransactions(_ transactions: [PersistentHistoryTransaction]) {
        for transaction in transactions {
            let changes = transaction.objectIDChanges
            guard !changes.isEmpty else { continue }
            mergeRemoteChanges(changes, budget: automaticMergeBudget)
        }
    }
}
