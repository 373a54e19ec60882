import Coherence
import Foundation
import Testing

/// A save that deletes an object whose row another context deleted first:
/// not a conflict under any policy (the store already holds what the save
/// asks for), and the rest of the save goes through. Core Data's conflicts
/// are about a row that changed under an object the save writes: a merge
/// conflict whose new version is 0 "means the object was deleted and the
/// corresponding snapshot is nil"
/// (https://developer.apple.com/documentation/coredata/nsmergeconflict/init(source:newversion:oldversion:cachedsnapshot:persistedsnapshot:)),
/// which Coherence reports for an object changed here and deleted there
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
