@testable import Coherence
import Foundation
import Testing

/// `ManagedObjectContext._checkInvariants()`: the context's identity map,
/// change tracker and object flags agree after ordinary work, and a state
/// that breaks a rule stops the program with a message naming it. (Built
/// with `COHERENCE_INVARIANTS=1`, the context also checks itself after every
/// processPendingChanges, save, merge, refresh, rollback and reset.)
@Suite("Context invariants")
struct InvariantTests {
    @Test(arguments: StoreKind.allCases) func ordinaryWorkKeepsEveryRule(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            let item = FeedItem(context: context)
            item.server = server
            context._checkInvariants() // unannounced insertions
            context.processPendingChanges()
            context._checkInvariants()
            try context.save()
            item.title = "changed"
            let doomed = FeedItem(context: context)
            context.delete(doomed) // an insertion deleted again
            context.delete(server)
            context._checkInvariants()
            context.rollback()
            context._checkInvariants()
            context.refresh(item, mergeChanges: false)
            context._checkInvariants()
            #expect(item.isFault)
            context.reset()
            context._checkInvariants()
        }
    }

    @Test func anObjectThatSaysInsertedButIsNotListedStopsTheCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait {
                let server = Server(context: context)
                context.tracker.inserted.remove(server)
                context._checkInvariants()
            }
        }
        let message = result.standardError
        #expect(message.contains("Coherence invariant broken"))
        #expect(message.contains("Server"))
        #expect(message.contains("says inserted but is not in insertedObjects"))
    }

    @Test func aChangedObjectMissingFromTheChangedListStopsTheCheck() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            try context.performAndWait {
                let server = Server(context: context)
                try context.save()
                server.name = "renamed"
                context.tracker.clearChanged()
                context._checkInvariants()
            }
        }
        let message = result.standardError
        #expect(message.contains("has written properties but is not in the changed list"))
    }
}

/// An entity whose `didSave()` fetches: user code that starts one context
/// operation in the middle of another.
final class FetchingOnSave: ManagedObject {
    @Attribute var name = ""
    /// What each `didSave()` counted (not a modeled property).
    var countedDuringSave: [Int] = []

    override func didSave() {
        guard let context = managedObjectContext else { return }
        countedDuringSave.append((try? context.count(for: FetchRequest<FetchingOnSave>())) ?? -1)
    }
}

extension InvariantTests {
    /// A fetch inside `didSave()` runs in the middle of the save, while the
    /// saved deletions are leaving the context: the invariants are checked
    /// when the outermost operation ends, not there.
    @Test(arguments: StoreKind.allCases) func aFetchInsideDidSaveDoesNotStopTheCheck(store: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [FetchingOnSave.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let kept = FetchingOnSave(context: context)
            let doomed = FetchingOnSave(context: context)
            try context.save()
            kept.name = "changed"
            context.delete(doomed)
            try context.save()
            #expect(kept.countedDuringSave == [2, 1], "didSave ran after each save, fetching")
            #expect(doomed.countedDuringSave == [2, 1], "a deleted object's didSave fetches while the deletion is leaving the context")
            context._checkInvariants()
        }
    }
}
