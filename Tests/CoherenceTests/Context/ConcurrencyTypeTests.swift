import Coherence
import Testing

/// Core Data's spellings of the concurrency types are the same values:
/// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontextconcurrencytype
@Suite("Concurrency types")
struct ConcurrencyTypeTests {
    @Test func coreDataSpellingsNameTheSameQueues() throws {
        #expect(ManagedObjectContext.ConcurrencyType.privateQueueConcurrencyType == .privateQueue)
        #expect(ManagedObjectContext.ConcurrencyType.mainQueueConcurrencyType == .mainQueue)

        let main = ManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        #expect(main.concurrencyType == .mainQueue)

        let background = ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType,
                                              persistentStoreCoordinator: try TestStack.coordinator())
        #expect(background.concurrencyType == .privateQueue)
    }
}
