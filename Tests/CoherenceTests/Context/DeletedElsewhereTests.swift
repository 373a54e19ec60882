import Coherence
import Foundation
import Testing

/// A save that deletes an object whose row another context deleted first
/// goes through under every policy, with the rest of the save: the store
/// already holds what the deletion asks for. This is Coherence's choice
/// (Apple documents no conflict for it; its conflicts are about rows that
/// changed under an object the save writes, and a merge conflict whose new
/// version is 0 "means the object was deleted":
/// https://developer.apple.com/documentation/coredata/nsmergeconflict/init(source:newversion:oldversion:cachedsnapshot:persistedsnapshot:)).
/// An object changed here and deleted there is a conflict
/// (`SavingTests.failedStoreWriteLeavesContextAsItWas`).
@Suite("Deleting what was deleted elsewhere")
struct DeletedElsewhereTests {
    static let policies: [MergePolicy] = [.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback]

    @Test(arguments: StoreKind.allCases, policies)
    func deletionOfAGoneRow(store: StoreKind, policy: MergePolicy) throws {
        let context = try TestStack.context(store)
        context.mergePolicy = policy
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let (server, id) = try context.performAndWait {
            let server = Server(context: context)
            server.name = "gone"
            let kept = Server(context: context)
            kept.name = "kept"
            try context.save()
            return (server, server.objectID)
        }
        try other.performAndWait {
            try other.delete(other.existingObject(with: id))
            try other.save()
        }
        try context.performAndWait {
            context.delete(server)
            let added = Server(context: context)
            added.name = "added"
            try context.save()
            #expect(!context.hasChanges && !added.objectID.isTemporaryID)
        }
        let names = try other.performAndWait {
            try other.fetch(FetchRequest<Server>()).map(\.name).sorted()
        }
        #expect(names == ["added", "kept"])
    }
}
