import Coherence
import Foundation
import Testing

/// A main-queue parent with a private-queue child, used from the main actor
/// as Core Data apps use their view context and an editing child.
///
/// Apple: `performAndWait(_:)` "synchronously performs a given block on the
/// context's queue"; `automaticallyMergesChangesFromParent` makes the
/// context merge "changes saved to its persistent store coordinator or
/// parent context" automatically
/// (<https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/performandwait(_:)-ypye>,
/// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/automaticallymergeschangesfromparent>).
/// Core Data does not hang when the main queue waits for such a child whose
/// queue is merging the parent's save.
@Suite("Main-queue parent, private child", .timeLimit(.minutes(2)))
struct MainQueueParentTests {
    @MainActor @Test func mainActorWaitingForAChildThatMergesTheParentsSaveDoesNotHang() throws {
        let coordinator = try TestStack.coordinator(.sqlite)
        let parent = ManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        parent.persistentStoreCoordinator = coordinator
        let child = ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        child.automaticallyMergesChangesFromParent = true

        let server = Server(context: parent)
        server.name = "before"
        try parent.save()
        let id = server.objectID
        // The child holds the object loaded, so merging the parent's next
        // save reads its latest values through the parent.
        child.performAndWait {
            let inChild = child.object(with: id) as! Server
            #expect(inChild.name == "before")
        }

        // Keep the child's queue busy until the parent's save has queued
        // the automatic merge behind it.
        let release = DispatchSemaphore(value: 0)
        child.perform { release.wait() }
        server.name = "after"
        try parent.save()               // queues the child's merge
        release.signal()

        // The merge asks the main-queue parent for the object's values while
        // the main actor waits here for the child.
        let name = child.performAndWait { (child.object(with: id) as! Server).name }
        #expect(name == "after")
    }
}
