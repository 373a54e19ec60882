import Coherence
import Foundation
import Testing

/// What a merge does to the objects it deletes and to objects no code
/// holds, and what a fetch registers, written as Core Data code writes it:
/// a main-queue view context used from the main actor, a background context
/// saving, `mergeChanges(fromContextDidSave:)` in a didSave observer
/// registered without an object, force casts.
@Suite("Merged deletions and registered objects")
@MainActor
struct MergedDeletionTests {
    private func stack(_ store: StoreKind) throws -> (view: ManagedObjectContext, background: ManagedObjectContext) {
        let coordinator = try TestStack.coordinator(store)
        let view = ManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        view.persistentStoreCoordinator = coordinator
        let background = ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        background.persistentStoreCoordinator = coordinator
        return (view, background)
    }

    /// Apple, `mergeChanges(fromContextDidSave:)`: "This method refreshes any
    /// objects which have been updated in the other context, faults in any
    /// newly-inserted objects, and invokes `delete(_:)` on those which have
    /// been deleted." After `delete(_:)` an object is in `deletedObjects`
    /// until the deletion is processed.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/mergechanges(fromcontextdidsave:)>
    @Test(arguments: StoreKind.allCases) func aMergedDeletionInvokesDelete(store: StoreKind) throws {
        let (view, background) = try stack(store)
        let server = Server(context: view)
        server.name = "doomed"
        try view.save()
        let id = server.objectID

        let deletedDuringTheNotification = Locked<Set<ManagedObject>>([])
        let didChange = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: nil, queue: nil) { note in
            guard note.object as? ManagedObjectContext === view else { return }
            view.performAndWait { deletedDuringTheNotification.withLock { $0 = view.deletedObjects } }
        }
        defer { NotificationCenter.default.removeObserver(didChange) }
        let didSave = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { note in
            guard note.object as? ManagedObjectContext === background else { return }
            nonisolated(unsafe) let note = note
            view.performAndWait { view.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(didSave) }

        try background.performAndWait {
            background.delete(try background.existingObject(with: id))
            try background.save()
        }
        #expect(deletedDuringTheNotification.withLock { $0 } == [server])
        #expect(server.isDeleted)
        #expect(view.deletedObjects == [server], "deleted until the next processPendingChanges or save")
        #expect(view.registeredObjects.contains(server))

        view.processPendingChanges()
        #expect(view.deletedObjects.isEmpty)
        #expect(!view.registeredObjects.contains(server))
        #expect(!view.hasChanges)
        try view.save() // nothing left to write
    }

    /// Core Data's context holds its objects weakly
    /// (`retainsRegisteredObjects` is `false` by default): an object a merge
    /// inserted that no code holds is gone, and its later changes are not
    /// announced. With `retainsRegisteredObjects` on, the context keeps it.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/retainsregisteredobjects>
    @Test(arguments: StoreKind.allCases, [false, true])
    func objectsNobodyHoldsAreNotAnnounced(store: StoreKind, retains: Bool) throws {
        let (view, background) = try stack(store)
        #expect(view.retainsRegisteredObjects == false)
        view.retainsRegisteredObjects = retains
        let counts = Locked<[String: Int]>([:])
        let didChange = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: nil, queue: nil) { note in
            guard note.object as? ManagedObjectContext === view else { return }
            for key in [NSInsertedObjectsKey, NSUpdatedObjectsKey, NSRefreshedObjectsKey, NSDeletedObjectsKey] {
                let count = (note.userInfo?[key] as? Set<ManagedObject>)?.count ?? 0
                counts.withLock { $0[key, default: 0] += count }
            }
        }
        var announced: [String: Int] { counts.withLock { $0 } }
        defer { NotificationCenter.default.removeObserver(didChange) }

        func saveInBackground(_ change: @escaping () throws -> Void) throws {
            let saved: ObjectIDChanges = try background.performAndWait {
                let ids = Locked(ObjectIDChanges())
                let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: background, queue: nil) { note in
                    ids.withLock { $0 = ManagedObjectContext.DidSaveMessage.makeMessage(note)?.objectIDs ?? ObjectIDChanges() }
                }
                defer { NotificationCenter.default.removeObserver(token) }
                try change()
                try background.save()
                return ids.withLock { $0 }
            }
            view.mergeChanges(fromContextDidSave: saved)
        }

        try saveInBackground { Server(context: background).name = "untouched" }
        #expect(announced[NSInsertedObjectsKey] == 1, "an insertion is announced")

        try saveInBackground {
            let server = try background.fetch(FetchRequest<Server>()).first!
            server.name = "renamed"
        }
        let updates = (announced[NSUpdatedObjectsKey] ?? 0) + (announced[NSRefreshedObjectsKey] ?? 0)
        #expect(updates == (retains ? 1 : 0))

        try saveInBackground { background.delete(try background.fetch(FetchRequest<Server>()).first!) }
        #expect(announced[NSDeletedObjectsKey] == (retains ? 1 : 0))
        view.processPendingChanges()
        #expect(view.registeredObjects.isEmpty, "gone either way: deleted")
    }

    /// A fetch registers the objects it returns, not every object it looked
    /// at: "a fetch returning 2 of 10 cars leaves 2 registered", on every
    /// store, with and without pending changes, with a limit.
    @Test(arguments: StoreKind.allCases) func aFetchRegistersWhatItReturns(store: StoreKind) throws {
        let (view, _) = try stack(store)
        for index in 0..<10 {
            Server(context: view).name = "server \(index)"
        }
        try view.save()
        view.reset()

        let request = FetchRequest<Server>(predicate: #Predicate { $0.name == "server 3" || $0.name == "server 7" })
        let two = try view.fetch(request)
        #expect(two.count == 2)
        #expect(view.registeredObjects.count == 2)

        // With a pending change of the entity, matched on current values.
        view.reset()
        let inserted = Server(context: view)
        inserted.name = "server 3"
        let three = try view.fetch(request)
        #expect(three.count == 3)
        #expect(view.registeredObjects.count == 3)

        // A limit registers the window.
        view.reset()
        let limited = FetchRequest<Server>(predicate: #Predicate { $0.name != "server 0" }, sortBy: [SortDescriptor(\.name)])
        limited.fetchLimit = 2
        let first = try view.fetch(limited)
        #expect(first.map(\.name) == ["server 1", "server 2"])
        #expect(view.registeredObjects.count == 2)
        withExtendedLifetime((two, three, first)) {}
    }

    /// A fetch matches on this context's current values, following
    /// relationships to objects with unsaved changes, and still registers
    /// only what it returns.
    @Test(arguments: StoreKind.allCases) func aFetchFollowsUnsavedChangesOfRelatedObjects(store: StoreKind) throws {
        let (view, _) = try stack(store)
        let server = Server(context: view)
        server.name = "before"
        for title in ["a", "b"] {
            let item = FeedItem(context: view)
            item.title = title
            item.server = server
        }
        Server(context: view).name = "other"
        try view.save()
        view.reset()
        let renamed = try view.fetch(FetchRequest<Server>(predicate: #Predicate { $0.name == "before" })).first!
        renamed.name = "after"
        let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.server?.name == "after" }, sortBy: [SortDescriptor(\.title)])
        request.evaluatesPredicateInMemory = true
        let items = try view.fetch(request)
        #expect(items.map(\.title) == ["a", "b"], "the unsaved name of the related server counts")
        #expect(view.registeredObjects.count == 3, "the two items and the renamed server")
    }
}

/// Merge policies as Core Data code passes them around.
/// <https://developer.apple.com/documentation/coredata/nsmergepolicy/init(merge:)>
@Suite("Merge policies, Core Data's spellings")
struct MergePolicySpellingTests {
    @Test func coreDataSpellingsNameThePolicies() throws {
        let context = try TestStack.context()
        context.mergePolicy = MergeByPropertyObjectTrumpMergePolicy
        #expect(context.mergePolicy == .mergeByPropertyObjectTrump)
        context.mergePolicy = MergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
        #expect(context.mergePolicy == .mergeByPropertyStoreTrump)
        let pairs: [(MergePolicy, MergePolicyType)] = [
            (ErrorMergePolicy, .errorMergePolicyType), (MergeByPropertyStoreTrumpMergePolicy, .mergeByPropertyStoreTrumpMergePolicyType),
            (MergeByPropertyObjectTrumpMergePolicy, .mergeByPropertyObjectTrumpMergePolicyType),
            (OverwriteMergePolicy, .overwriteMergePolicyType), (RollbackMergePolicy, .rollbackMergePolicyType),
        ]
        for (policy, type) in pairs {
            #expect(policy.mergeType == type)
            #expect(MergePolicy(merge: type) == policy)
        }
    }
}
