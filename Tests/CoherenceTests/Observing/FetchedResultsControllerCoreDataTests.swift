import Coherence
import Foundation
import Testing

/// A stand-in for `UITableView`: records the calls a fetched results
/// controller's delegate makes on it.
final class FakeTableView {
    enum RowAnimation { case fade }

    final class Cell {
        var text: String?
    }

    var log: [String] = []

    func beginUpdates() { log.append("beginUpdates") }
    func endUpdates() { log.append("endUpdates") }
    func insertSections(_ sections: IndexSet, with animation: RowAnimation) { log.append("insertSections \(Array(sections))") }
    func deleteSections(_ sections: IndexSet, with animation: RowAnimation) { log.append("deleteSections \(Array(sections))") }
    func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) { log.append("insertRows \(Self.describe(indexPaths))") }
    func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) { log.append("deleteRows \(Self.describe(indexPaths))") }
    func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        log.append("moveRow \(Self.describe([indexPath])) to \(Self.describe([newIndexPath]))")
    }
    func cellForRow(at indexPath: IndexPath) -> Cell? {
        log.append("cellForRow \(Self.describe([indexPath]))")
        return Cell()
    }

    static func describe(_ indexPaths: [IndexPath]) -> String {
        indexPaths.map { "\($0.sectionIndex).\($0.itemIndex)" }.joined(separator: " ")
    }
}

/// A list screen's delegate, written as Xcode's Core Data master-detail
/// template writes it, with only Core Data's type names changed
/// (`NSFetchedResultsController<NSFetchRequestResult>` →
/// `AnyFetchedResultsController`, `NSFetchedResultsSectionInfo` →
/// `FetchedResultsSectionInfo`, `NSFetchedResultsChangeType` →
/// `FetchedResultsChangeType`), in the class body, and the `default:` of the
/// exhaustive switch spelled `@unknown default:`.
final class MasterViewController: FetchedResultsControllerDelegate {
    let tableView = FakeTableView()
    var fetchedResultsController: FetchedResultsController<FeedItem>!
    /// Whether each call's controller was ours (`==`, as Core Data code compares them).
    var sameController: [Bool] = []
    var changedSections: [String] = []
    var changedObjects: [FeedItem] = []

    func configureCell(_ cell: FakeTableView.Cell, withEvent event: FeedItem) {
        cell.text = event.title
        tableView.log.append("configure \(event.title)")
    }

    func controllerWillChangeContent(_ controller: AnyFetchedResultsController) {
        sameController.append(controller == fetchedResultsController)
        tableView.beginUpdates()
    }

    func controller(_ controller: AnyFetchedResultsController, didChange sectionInfo: FetchedResultsSectionInfo,
                    atSectionIndex sectionIndex: Int, for type: FetchedResultsChangeType) {
        sameController.append(controller === fetchedResultsController)
        changedSections.append(sectionInfo.name)
        switch type {
        case .insert:
            tableView.insertSections(IndexSet(integer: sectionIndex), with: .fade)
        case .delete:
            tableView.deleteSections(IndexSet(integer: sectionIndex), with: .fade)
        default:
            return
        }
    }

    func controller(_ controller: AnyFetchedResultsController, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        sameController.append(controller == fetchedResultsController)
        changedObjects.append(anObject as! FeedItem)
        switch type {
        case .insert:
            tableView.insertRows(at: [newIndexPath!], with: .fade)
        case .delete:
            tableView.deleteRows(at: [indexPath!], with: .fade)
        case .update:
            configureCell(tableView.cellForRow(at: indexPath!)!, withEvent: anObject as! FeedItem)
        case .move:
            configureCell(tableView.cellForRow(at: indexPath!)!, withEvent: anObject as! FeedItem)
            tableView.moveRow(at: indexPath!, to: newIndexPath!)
        @unknown default:
            return
        }
    }

    func controllerDidChangeContent(_ controller: AnyFetchedResultsController) {
        sameController.append(controller == fetchedResultsController)
        tableView.endUpdates()
    }
}

/// Core Data's spellings of the controller: `cacheName`, a string
/// `sectionNameKeyPath`, section index titles, and its delegate methods.
@Suite("Fetched results controller, Core Data's spellings")
struct FetchedResultsControllerCoreDataTests {
    /// Servers a and b; items t1, t4, t5 on a, t2, t3 on b.
    private func seeded(_ store: StoreKind = .inMemory) throws -> (ManagedObjectContext, [Server], [String: FeedItem]) {
        let context = try TestStack.context(store)
        let (servers, items) = try context.performAndWait {
            let servers = ["a", "b"].map { name in
                let server = Server(context: context)
                server.name = name
                return server
            }
            var items: [String: FeedItem] = [:]
            for (index, title) in ["t1", "t3", "t5", "t2", "t4"].enumerated() {
                let item = FeedItem(context: context)
                item.title = title
                item.server = servers[index % 2]
                items[title] = item
            }
            try context.save()
            return (servers, items)
        }
        return (context, servers, items)
    }

    /// A delegate written with Core Data's signatures is called, for each
    /// kind of change, with the controller, the object and the index paths.
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controller(_:didchange:at:for:newindexpath:)
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controller(_:didchange:atsectionindex:for:)
    @Test(arguments: StoreKind.allCases) func coreDataDelegateIsCalledWithTheChanges(store: StoreKind) throws {
        let (context, servers, items) = try seeded(store)
        try context.performAndWait {
            let master = MasterViewController()
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.server?.name), SortDescriptor(\.title)])
            master.fetchedResultsController = FetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "server.name", cacheName: "Master")
            master.fetchedResultsController.delegate = master
            try master.fetchedResultsController.performFetch()

            let server = Server(context: context)                 // a new section
            server.name = "c"
            let fresh = FeedItem(context: context)
            fresh.title = "t9"
            fresh.server = server
            context.processPendingChanges()
            #expect(master.tableView.log == ["beginUpdates", "insertSections [2]", "insertRows 2.0", "endUpdates"])
            #expect(master.changedSections == ["c"])
            #expect(master.changedObjects == [fresh])

            master.tableView.log = []
            master.changedObjects = []
            items["t2"]!.read = true                                // not a sort key: an update
            context.processPendingChanges()
            #expect(master.tableView.log == ["beginUpdates", "cellForRow 1.0", "configure t2", "endUpdates"])
            #expect(master.changedObjects == [items["t2"]!])

            master.tableView.log = []
            master.changedObjects = []
            items["t5"]!.title = "t0"                              // moves to the top of section a
            context.processPendingChanges()
            #expect(master.tableView.log == ["beginUpdates", "cellForRow 0.2", "configure t0", "moveRow 0.2 to 0.0", "endUpdates"])
            #expect(master.changedObjects == [items["t5"]!])

            master.tableView.log = []
            master.changedObjects = []
            master.changedSections = []
            for item in servers[1].feedItems { context.delete(item) }   // section b empties
            context.processPendingChanges()
            #expect(master.tableView.log == ["beginUpdates", "deleteSections [1]", "deleteRows 1.0", "deleteRows 1.1", "endUpdates"])
            #expect(master.changedSections == ["b"])
            #expect(master.changedObjects == [items["t2"]!, items["t3"]!])

            #expect(!master.sameController.isEmpty)
            #expect(master.sameController.allSatisfy { $0 }, "every call passes the controller that changed")
            #expect(master.fetchedResultsController.sections?.map(\.name) == ["a", "c"])
        }
    }

    /// A reset is not a deletion: Core Data's controller tells its delegate
    /// nothing when its context is reset (Apple's `reset()`: "All the
    /// receiver's managed objects are forgotten", and the app discards what
    /// it fetched). Coherence's controller fetches again, silently, so its
    /// results hold the context's new objects.
    /// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/reset()
    @Test(arguments: StoreKind.allCases) func resettingTheContextReportsNoDeletions(store: StoreKind) throws {
        let (context, _, _) = try seeded(store)
        try context.performAndWait {
            let master = MasterViewController()
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
            master.fetchedResultsController = FetchedResultsController(
                fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
            master.fetchedResultsController.delegate = master
            try master.fetchedResultsController.performFetch()
            let before = master.fetchedResultsController.fetchedObjects!
            #expect(before.count == 5)

            context.reset()
            #expect(master.tableView.log == [], "no delegate call for a reset")
            #expect(master.changedObjects.isEmpty)
            let after = master.fetchedResultsController.fetchedObjects!
            #expect(after.map(\.title) == ["t1", "t2", "t3", "t4", "t5"])
            #expect(after.allSatisfy { $0.managedObjectContext === context }, "the context's new objects")
            #expect(Set(after.map(ObjectIdentifier.init)).isDisjoint(with: before.map(ObjectIdentifier.init)))

            // Changes after the reset are reported as before.
            context.delete(after[0])
            context.processPendingChanges()
            #expect(master.tableView.log == ["beginUpdates", "deleteRows 0.0", "endUpdates"])
        }
    }

    /// Apple, "Modifying the fetch request": change the controller's fetch
    /// request, then call `performFetch()`; the new predicate and sort then
    /// apply to the results and to every later change.
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller
    @Test func modifyingTheFetchRequestTakesEffectAtTheNextFetch() throws {
        let (context, _, items) = try seeded()
        try context.performAndWait {
            let request = FeedItem.fetchRequest()
            request.sortDescriptors = [SortDescriptor(\.title)]
            let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                      sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["t1", "t2", "t3", "t4", "t5"])

            controller.fetchRequest.sortDescriptors = [SortDescriptor(\.title, order: .reverse)]
            controller.fetchRequest.predicate = #Predicate { $0.title != "t3" }
            #expect(controller.fetchedObjects?.map(\.title) == ["t1", "t2", "t3", "t4", "t5"], "until the next performFetch")
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["t5", "t4", "t2", "t1"])

            let item = FeedItem(context: context)
            item.title = "t6"
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(\.title) == ["t6", "t5", "t4", "t2", "t1"])
            items["t4"]!.title = "t3"
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(\.title) == ["t6", "t5", "t2", "t1"])
        }
    }

    /// `cacheName` is accepted and kept; nothing is cached: two controllers
    /// with one cache name keep their own results, and deleting the cache
    /// changes nothing.
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/cachename
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/deletecache(withname:)
    @Test func cacheNameIsKeptAndNothingIsCached() throws {
        let (context, _, _) = try seeded()
        try context.performAndWait {
            let all = FetchedResultsController(fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)]),
                                               managedObjectContext: context, sectionNameKeyPath: nil, cacheName: "Master")
            #expect(all.cacheName == "Master")
            #expect(all.sectionNameKeyPath == nil)
            try all.performFetch()
            let some = FetchedResultsController(
                fetchRequest: FetchRequest<FeedItem>(predicate: #Predicate { $0.title < "t3" }, sortBy: [SortDescriptor(\.title)]),
                managedObjectContext: context, sectionNameKeyPath: "server.name", cacheName: "Master")
            try some.performFetch()
            #expect(all.fetchedObjects?.map(\.title) == ["t1", "t2", "t3", "t4", "t5"])
            #expect(all.sections?.map(\.name) == [""])
            #expect(some.sections?.map(\.name) == ["a", "b"])

            FetchedResultsController<FeedItem>.deleteCache(withName: "Master")
            AnyFetchedResultsController.deleteCache(withName: nil)
            try all.performFetch()
            #expect(all.fetchedObjects?.map(\.title) == ["t1", "t2", "t3", "t4", "t5"])
            #expect(FetchedResultsController(fetchRequest: FetchRequest<FeedItem>(), managedObjectContext: context).cacheName == nil)
        }
    }

    /// A string key path names an attribute; sections are named by its
    /// values and ordered by them (10 after 2), in the first sort
    /// descriptor's direction. `nil` names the section "", a Boolean "0"/"1".
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/init(fetchrequest:managedobjectcontext:sectionnamekeypath:cachename:)
    @Test func stringKeyPathToAnAttribute() throws {
        let context = try TestStack.context()
        try context.performAndWait { () throws in
            for (number, value) in [10, 2, 2, 1].enumerated() {
                let sample = Sample(context: context)
                sample.code = "s\(number)"
                sample.int = value
                sample.flag = value == 2
                sample.optionalString = value == 10 ? "ten" : nil
            }
            func sections(_ keyPath: String, _ sort: SortDescriptor<Sample>) throws -> [String] {
                let controller = FetchedResultsController(fetchRequest: FetchRequest<Sample>(sortBy: [sort]),
                                                          managedObjectContext: context, sectionNameKeyPath: keyPath)
                try controller.performFetch()
                #expect(controller.sectionNameKeyPath == keyPath)
                return controller.sections!.map { "\($0.name):\($0.numberOfObjects)" }
            }
            #expect(try sections("int", SortDescriptor(\.int)) == ["1:1", "2:2", "10:1"])
            #expect(try sections("int", SortDescriptor(\.int, order: .reverse)) == ["10:1", "2:2", "1:1"])
            #expect(try sections("flag", SortDescriptor(\.int)) == ["0:2", "1:2"])
            #expect(try sections("optionalString", SortDescriptor(\.optionalString)) == [":3", "ten:1"])
        }
    }

    /// Changes move objects between sections named by a string key path.
    @Test func stringKeyPathSectionsFollowChanges() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            var samples: [Sample] = []
            for (number, value) in [10, 2, 2, 1].enumerated() {
                let sample = Sample(context: context)
                sample.code = "s\(number)"
                sample.int = value
                samples.append(sample)
            }
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Sample>(sortBy: [SortDescriptor(\.int)]),
                managedObjectContext: context, sectionNameKeyPath: "int")
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            samples[3].int = 3                                     // section "1" empties, "3" appears
            context.processPendingChanges()
            #expect(delegate.events == ["will", "section delete 1 0", "section insert 3 1", "move", "did"])
            #expect(controller.sections?.map(\.name) == ["2", "3", "10"])
        }
    }

    /// A string key path through a to-one relationship gives the sections a
    /// Swift key path to the same value gives; objects without a server are
    /// in the section "". With the relationship in
    /// relationshipKeyPathsForRefreshing, renaming a server moves its items.
    @Test(arguments: StoreKind.allCases) func stringKeyPathThroughARelationship(store: StoreKind) throws {
        let (context, servers, _) = try seeded(store)
        try context.performAndWait {
            let orphan = FeedItem(context: context)
            orphan.title = "t6"
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.server?.name), SortDescriptor(\.title)])
            request.relationshipKeyPathsForRefreshing = ["server"]
            let byString = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "server.name")
            let byKeyPath = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: \.serverName)
            try byString.performFetch()
            try byKeyPath.performFetch()
            func titles(_ controller: FetchedResultsController<FeedItem>) -> [String] {
                controller.sections!.map { "\($0.name): " + $0.objects.map { ($0 as! FeedItem).title }.joined(separator: " ") }
            }
            #expect(titles(byString) == [": t6", "a: t1 t4 t5", "b: t2 t3"])
            #expect(titles(byString) == titles(byKeyPath))

            servers[0].name = "z"
            context.processPendingChanges()
            #expect(titles(byString) == [": t6", "b: t2 t3", "z: t1 t4 t5"])
        }
    }

    /// The typed initializer reports its key path as a string too: the
    /// attribute's name, or a description for a computed property.
    @Test func typedKeyPathsHaveAStringName() throws {
        let context = try TestStack.context()
        context.performAndWait {
            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
            #expect(FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                             sectionNameKeyPath: \.title).sectionNameKeyPath == "title")
            let computed = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: \.serverName)
            #expect(computed.sectionNameKeyPath?.contains("FeedItem") == true)
        }
    }

    /// Index titles: each section's capitalized first letter (none for ""),
    /// distinct, in section order; a title leads to its first section.
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/sectionindextitles
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/sectionindextitle(forsectionname:)
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontroller/section(forsectionindextitle:at:)
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultssectioninfo/indextitle
    @Test func sectionIndexTitles() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            for name in ["banana", "avocado", "apple", "cherry", nil] {
                let item = FeedItem(context: context)
                item.title = name ?? "none"
                if let name {
                    item.server = Server(context: context)
                    item.server?.name = name
                }
            }
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.server?.name), SortDescriptor(\.title)]),
                managedObjectContext: context, sectionNameKeyPath: "server.name")
            #expect(controller.sectionIndexTitles == [])
            try controller.performFetch()
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["", "apple", "avocado", "banana", "cherry"])
            #expect(sections.map(\.indexTitle) == [nil, "A", "A", "B", "C"])
            #expect(controller.sectionIndexTitles == ["A", "B", "C"])
            #expect(controller.section(forSectionIndexTitle: "A", at: 0) == 1)
            #expect(controller.section(forSectionIndexTitle: "B", at: 1) == 3)
            #expect(controller.section(forSectionIndexTitle: "C", at: 2) == 4)
            #expect(controller.sectionIndexTitle(forSectionName: "élan") == "É")
            #expect(controller.sectionIndexTitle(forSectionName: "") == nil)
        }
    }

    /// A delegate's controller(_:sectionIndexTitleForSectionName:) gives the
    /// index titles.
    /// https://developer.apple.com/documentation/coredata/nsfetchedresultscontrollerdelegate/controller(_:sectionindextitleforsectionname:)
    @Test func delegateGivesTheIndexTitles() throws {
        final class Titles: FetchedResultsControllerDelegate {
            func controller(_ controller: AnyFetchedResultsController, sectionIndexTitleForSectionName sectionName: String) -> String? {
                "#" + sectionName
            }
        }
        let (context, _, _) = try seeded()
        try context.performAndWait {
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.server?.name), SortDescriptor(\.title)]),
                managedObjectContext: context, sectionNameKeyPath: "server.name")
            let titles = Titles()
            controller.delegate = titles
            try controller.performFetch()
            #expect(controller.sectionIndexTitles == ["#a", "#b"])
            #expect(controller.sections?.map(\.indexTitle) == ["#a", "#b"])
            controller.delegate = nil
            #expect(controller.sectionIndexTitles == ["A", "B"])
        }
    }

    /// A string key path the model cannot follow traps, naming the entity
    /// and the key, where Core Data raises.
    @Test func unknownSectionKeysTrap() async throws {
        let unknown = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            try context.performAndWait {
                let server = Server(context: context)
                let item = FeedItem(context: context)
                item.server = server
                let controller = FetchedResultsController(fetchRequest: FetchRequest<FeedItem>(), managedObjectContext: context,
                                                          sectionNameKeyPath: "server.nmae")
                try controller.performFetch()
            }
        }
        // A last key that is no property may be a computed one the class
        // offers by name (value(forUndefinedKey:)); Server offers none.
        let unknownMessage = unknown.standardError
        #expect(unknownMessage.contains("Server is not key value coding-compliant for the key \"nmae\""))

        let toMany = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            context.performAndWait {
                _ = FetchedResultsController(fetchRequest: FetchRequest<Server>(), managedObjectContext: context,
                                             sectionNameKeyPath: "feedItems.title")
            }
        }
        let toManyMessage = toMany.standardError
        #expect(toManyMessage.contains("Server.feedItems is a to-many relationship"))
    }

    /// Asking for the section of an index title no section has traps.
    @Test func unknownIndexTitleTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try TestStack.context()
            try context.performAndWait {
                let controller = FetchedResultsController(fetchRequest: FetchRequest<FeedItem>(), managedObjectContext: context,
                                                          sectionNameKeyPath: "title")
                try controller.performFetch()
                _ = controller.section(forSectionIndexTitle: "Q", at: 0)
            }
        }
        let message = result.standardError
        #expect(message.contains("FeedItem"))
        #expect(message.contains("\"Q\""))
    }
}
