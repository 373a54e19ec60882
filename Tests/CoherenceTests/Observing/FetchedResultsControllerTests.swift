import Coherence
import Foundation
import PropertyBased
import Testing

/// Records a controller's delegate calls.
final class RecordingDelegate: FetchedResultsControllerDelegate {
    var events: [String] = []
    var objectChanges: [(Any, FetchedResultsChangeType, IndexPath?, IndexPath?)] = []

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) { events.append("will") }
    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) { events.append("did") }
    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        events.append("section \(type) \(sectionInfo.name) \(sectionIndex)")
    }
    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        objectChanges.append((anObject, type, indexPath, newIndexPath))
        events.append("\(type)")
    }
}

/// An item with a section key: its server's name.
extension FeedItem {
    var serverName: String { server?.name ?? "" }
}

@Suite("Fetched results controller")
struct FetchedResultsControllerTests {
    private func seeded(_ store: StoreKind) throws -> (ManagedObjectContext, [Server]) {
        let context = try TestStack.context(store)
        let servers = try context.performAndWait {
            let servers = ["a", "b"].map { name in
                let server = Server(context: context)
                server.name = name
                return server
            }
            for (index, title) in ["t1", "t3", "t5", "t2", "t4"].enumerated() {
                let item = FeedItem(context: context)
                item.title = title
                item.server = servers[index % 2]
            }
            try context.save()
            return servers
        }
        return (context, servers)
    }

    @Test(arguments: StoreKind.allCases) func resultsSectionsAndIndexPaths(store: StoreKind) throws {
        let (context, _) = try seeded(store)
        try context.performAndWait {
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]),
                managedObjectContext: context, sectionNameKeyPath: \.serverName)
            #expect(controller.fetchedObjects == nil)
            try controller.performFetch()
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["a", "b"])
            #expect(sections.map { $0.objects.map { ($0 as! FeedItem).title } } == [["t1", "t4", "t5"], ["t2", "t3"]])
            let item = controller.object(at: IndexPath(item: 1, section: 1))
            #expect(item.title == "t3")
            #expect(controller.indexPath(forObject: item) == IndexPath(item: 1, section: 1))
        }
    }

    @Test(arguments: StoreKind.allCases) func reportsInsertsDeletesMovesAndUpdates(store: StoreKind) throws {
        let (context, servers) = try seeded(store)
        try context.performAndWait { () throws in
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.read == false }, sortBy: [SortDescriptor(\.title)])
            request.includesPendingChanges = true
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            let items = try #require(controller.fetchedObjects)  // t1 t2 t3 t4 t5

            items[1].read = true                                  // t2 leaves
            context.processPendingChanges()
            #expect(delegate.events == ["will", "delete", "did"])
            #expect(delegate.objectChanges.last?.2 == IndexPath(item: 1, section: 0))

            delegate.events = []
            let fresh = FeedItem(context: context)
            fresh.title = "t0"                                    // enters first
            context.processPendingChanges()
            #expect(delegate.events == ["will", "insert", "did"])
            #expect(delegate.objectChanges.last?.3 == IndexPath(item: 0, section: 0))

            delegate.events = []
            items[4].title = "t0.5"                               // t5 moves to second place
            context.processPendingChanges()
            #expect(delegate.events == ["will", "move", "did"])
            #expect(delegate.objectChanges.last?.2 == IndexPath(item: 4, section: 0))
            #expect(delegate.objectChanges.last?.3 == IndexPath(item: 1, section: 0))

            delegate.events = []
            items[2].server = servers[0]                         // not a sort key: an update
            context.processPendingChanges()
            #expect(delegate.events == ["will", "update", "did"])

            delegate.events = []
            context.delete(items[3])
            context.processPendingChanges()
            #expect(delegate.events == ["will", "delete", "did"])
            #expect(controller.fetchedObjects?.map(\.title) == ["t0", "t0.5", "t1", "t3"])
        }
    }

    /// One notification that moves an object past another and changes a
    /// third without touching its sort key: the mover is a move, the third
    /// an update at its place, the object passed over is not reported.
    /// (Core Data's `NSFetchedResultsChangeType`: `.update` for an object
    /// whose change does not affect its position:
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultschangetype/update)
    @Test func anUpdateBesideAMoveStaysAnUpdate() throws {
        let (context, _) = try seeded(.inMemory)
        try context.performAndWait { () throws in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]), managedObjectContext: context)
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            let items = try #require(controller.fetchedObjects)  // t1 t2 t3 t4 t5

            items[0].title = "t2.5"                               // t1 moves past t2
            items[2].read = true                                  // t3 changes in place
            context.processPendingChanges()
            let changes = delegate.objectChanges.map { ($0.0 as! FeedItem, $0.1, $0.2, $0.3) }
            #expect(changes.count == 2)
            let move = try #require(changes.first { $0.0 === items[0] })
            #expect(move.1 == .move && move.2 == IndexPath(item: 0, section: 0) && move.3 == IndexPath(item: 1, section: 0))
            let update = try #require(changes.first { $0.0 === items[2] })
            #expect(update.1 == .update && update.2 == IndexPath(item: 2, section: 0) && update.3 == nil)
            #expect(controller.fetchedObjects?.map(\.title) == ["t2", "t2.5", "t3", "t4", "t5"])
        }
    }

    @Test func sectionsAppearAndDisappear() throws {
        let (context, servers) = try seeded(.inMemory)
        try context.performAndWait { () throws in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]),
                managedObjectContext: context, sectionNameKeyPath: \.serverName)
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            let server = Server(context: context)
            server.name = "c"
            let item = FeedItem(context: context)
            item.title = "t9"
            item.server = server
            context.processPendingChanges()
            #expect(delegate.events == ["will", "section insert c 2", "insert", "did"])
            delegate.events = []
            for item in servers[1].feedItems { context.delete(item) }
            context.processPendingChanges()
            #expect(delegate.events == ["will", "section delete b 1", "delete", "delete", "did"])
            #expect(controller.sections?.map(\.name) == ["a", "c"])
        }
    }

    @Test(arguments: StoreKind.allCases) func mergedChangesAreReported(store: StoreKind) throws {
        let (context, _) = try seeded(store)
        let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        let controller = try context.performAndWait {
            let controller = FetchedResultsController(fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]),
                                                      managedObjectContext: context)
            try controller.performFetch()
            return controller
        }
        let delegate = RecordingDelegate()
        context.performAndWait { controller.delegate = delegate }
        let saved = NotificationBox()
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: other, queue: nil) { saved.store($0) }
        defer { NotificationCenter.default.removeObserver(token) }
        try other.performAndWait {
            let first = try other.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.title == "t1" })).first!
            first.title = "t9"
            try other.save()
        }
        let note = try #require(saved.last)
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: note)
            #expect(delegate.events == ["will", "move", "did"], "a merged update of an object held as a fault still moves it")
            #expect(controller.fetchedObjects?.last?.title == "t9")
        }
    }

    @Test func dependentKeyPathsUpdateWhenTheDestinationChanges() throws {
        let (context, servers) = try seeded(.inMemory)
        try context.performAndWait {
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.serverName), SortDescriptor(\.title)])
            request.relationshipKeyPathsForRefreshing = ["server"]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["t1", "t4", "t5", "t2", "t3"])
            servers[0].name = "z"                                  // a's items now sort last
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(\.title) == ["t2", "t3", "t1", "t4", "t5"])
            #expect(delegate.events.filter { $0 == "move" }.count >= 2, "items moved although only their server changed")
        }
    }

    /// Found in review: the watched destinations were keyed by object ID, so
    /// a destination inserted after the fetch went unheard once a save had
    /// made its ID permanent.
    @Test(arguments: StoreKind.allCases) func dependentKeyPathsSurviveTheSaveOfANewDestination(store: StoreKind) throws {
        let (context, _) = try seeded(store)
        try context.performAndWait {
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.serverName), SortDescriptor(\.title)])
            request.relationshipKeyPathsForRefreshing = ["server"]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            let server = Server(context: context)
            server.name = "0"                                      // sorts first
            let item = FeedItem(context: context)
            item.title = "new"
            item.server = server
            try context.save()
            #expect(controller.fetchedObjects?.first === item)
            delegate.events = []
            server.name = "zz"                                     // its item now sorts last
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.last === item, "the item follows its renamed server")
            #expect(delegate.events.contains("move"))
        }
    }

    @Test func snapshotsAsAnAsyncSequence() async throws {
        let (context, _) = try seeded(.inMemory)
        let (controller, stream) = try await context.perform {
            let controller = FetchedResultsController(fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]),
                                                      managedObjectContext: context)
            try controller.performFetch()
            return (UncheckedSendable(controller), controller.snapshots())
        }
        var snapshots = stream.makeAsyncIterator()
        let first = try #require(await snapshots.next())
        #expect(first.sections.first?.objectIDs.count == 5)
        #expect(first.changes.isEmpty)
        await context.perform {
            _ = controller.value
            let item = FeedItem(context: context)
            item.title = "t0"
        }
        let second = try #require(await snapshots.next())
        #expect(second.changes.map(\.type) == [.insert])
        #expect(second.changes.first?.newIndexPath == IndexPath(item: 0, section: 0))
        #expect(second.sections.first?.objectIDs.count == 6)
    }

    /// Applying every reported change to the previous results gives exactly
    /// the new results, which equal a fresh fetch.
    @Test func reportedChangesReproduceTheNewResults() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...10_000).array(of: 1...60)) { steps in
            do {
                try checkChanges(steps)
            } catch {
                Issue.record("steps \(steps) threw \(error)")
            }
        }
    }

    /// The same with many changes per notification (each step touches 12
    /// objects; changes are processed every 6 steps), which takes the
    /// controller's one-pass path for large changes.
    @Test func largeChangesReproduceTheNewResults() async {
        let largest = Locked(0)
        await propertyCheck(count: 150, input: Gen.int(in: 0...10_000).array(of: 20...60)) { steps in
            do {
                let reported = try checkChanges(steps, fanOut: 12, processEvery: 6)
                largest.withLock { $0 = max($0, reported) }
            } catch {
                Issue.record("steps \(steps) threw \(error)")
            }
        }
        #expect(largest.withLock { $0 } > 64, "some notification carried more changes than the one-by-one path handles")
    }

    /// Runs `steps`, checking the delegate's copy after each notification;
    /// returns the largest number of object changes one notification reported.
    @discardableResult
    private func checkChanges(_ steps: [Int], fanOut: Int = 1, processEvery: Int = 1) throws -> Int {
        let context = try TestStack.context()
        return try context.performAndWait {
            let servers = ["a", "b", "c"].map { name in
                let server = Server(context: context)
                server.name = name
                return server
            }
            var items: [FeedItem] = []
            let request = FetchRequest<FeedItem>(predicate: #Predicate { $0.read == false }, sortBy: [SortDescriptor(\.title)])
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: \.serverName)
            let delegate = ApplyingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            delegate.sections = controller.sections!.map { ($0.name, $0.objects.map(ObjectIdentifier.init)) }
            for (number, step) in steps.enumerated() {
                for fan in 0..<fanOut {
                    let pick = step / 8 + fan * 7
                    let live = items.filter { $0.managedObjectContext === context && !$0.isDeleted }
                    switch step % 6 {
                    case 0, 1:
                        let item = FeedItem(context: context)
                        item.title = "t\(pick % 30)"
                        item.server = pick % 5 == 0 ? nil : servers[pick % 3]
                        items.append(item)
                    case 2 where !live.isEmpty: live[pick % live.count].title = "t\(pick % 30)"
                    case 3 where !live.isEmpty: live[pick % live.count].read.toggle()
                    case 4 where !live.isEmpty: live[pick % live.count].server = servers[pick % 3]
                    case 5 where !live.isEmpty: context.delete(live[pick % live.count])
                    default: break
                    }
                }
                guard (number + 1) % processEvery == 0 || number == steps.count - 1 else { continue }
                context.processPendingChanges()
                let expected = controller.sections!.map { ($0.name, $0.objects.map(ObjectIdentifier.init)) }
                #expect(delegate.sections.map(\.0) == expected.map(\.0), "sections after \(steps)")
                #expect(delegate.sections.map(\.1) == expected.map(\.1), "objects after \(steps)")
                let fresh = try context.fetch(request)
                #expect(Set(fresh.map(ObjectIdentifier.init)) == Set(expected.flatMap(\.1)), "same objects as a fetch")
            }
            return delegate.largestChange
        }
    }
}

/// Applies reported changes to its own copy of the sections, the way a
/// table view does: deletions at old index paths (objects, then sections),
/// then insertions at new ones (sections, then objects).
final class ApplyingDelegate: FetchedResultsControllerDelegate {
    var sections: [(String, [ObjectIdentifier])] = []
    private var deletedSections: [Int] = []
    private var insertedSections: [(Int, String)] = []
    private var deletions: [IndexPath] = []
    private var insertions: [(IndexPath, ObjectIdentifier)] = []
    private var objectChanges = 0
    /// The most object changes one notification reported.
    private(set) var largestChange = 0

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        deletedSections = []
        insertedSections = []
        deletions = []
        insertions = []
        objectChanges = 0
    }

    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        if type == .delete { deletedSections.append(sectionIndex) } else { insertedSections.append((sectionIndex, sectionInfo.name)) }
    }

    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        let object = anObject as! ManagedObject
        objectChanges += 1
        largestChange = max(largestChange, objectChanges)
        switch type {
        case .delete: deletions.append(indexPath!)
        case .insert: insertions.append((newIndexPath!, ObjectIdentifier(object)))
        case .move:
            deletions.append(indexPath!)
            insertions.append((newIndexPath!, ObjectIdentifier(object)))
        case .update: break
        }
    }

    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        for path in deletions.sorted(by: >) { sections[path.sectionIndex].1.remove(at: path.itemIndex) }
        for index in deletedSections.sorted(by: >) { sections.remove(at: index) }
        for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) { sections.insert((name, []), at: index) }
        for (path, object) in insertions.sorted(by: { $0.0 < $1.0 }) { sections[path.sectionIndex].1.insert(object, at: path.itemIndex) }
    }
}

/// Carries a value across a `perform` boundary in a test that uses it only
/// on the context's queue.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
