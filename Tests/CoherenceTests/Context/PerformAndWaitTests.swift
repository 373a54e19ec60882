import Coherence
import Foundation
import Testing

/// Core Data's `performAndWait` runs its block on the calling thread while it
/// holds the context, and "supports reentrancy — meaning it's safe to call the
/// method again, from within the closure, before the previous invocation
/// completes" (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/performandwait(_:)-ypye).
/// Each pattern below is everyday Core Data code; each crashed or deadlocked
/// when `performAndWait` was built on `DispatchQueue.sync`. Each runs from the
/// main actor (here, under `swift test` on Linux, a thread draining the main
/// queue after `dispatch_main`, not the process's main thread) and from a
/// plain thread, where the main queue is free.
@Suite("performAndWait, as Core Data's")
struct PerformAndWaitTests {
    /// A main-queue view context over a new SQLite store, with one saved server.
    struct Stack: @unchecked Sendable {
        let coordinator: PersistentStoreCoordinator
        let viewContext: ManagedObjectContext
        let serverID: ManagedObjectID

        init() throws {
            coordinator = try TestStack.coordinator(.sqlite)
            let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
            viewContext.name = "viewContext"
            self.viewContext = viewContext
            serverID = try viewContext.performAndWait {
                let server = Server(context: viewContext)
                server.name = "v1"
                try viewContext.save()
                return server.objectID
            }
        }

        func background() -> ManagedObjectContext {
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            context.name = "background"
            return context
        }

        /// The server's name as the view context has it now.
        func viewName() -> String {
            viewContext.performAndWait { (viewContext.object(with: serverID) as! Server).name }
        }
    }

    // MARK: The patterns

    /// A private-queue child of a main-queue context reads through its parent
    /// (existingObject, a fault, a fetch) inside `performAndWait`.
    static func childReadsThroughItsMainQueueParent() throws -> [String] {
        let stack = try Stack()
        let viewContext = stack.viewContext
        let (unsavedID, faultID) = try viewContext.performAndWait {
            let other = Server(context: viewContext)
            other.name = "saved, not loaded"
            try viewContext.save()
            let unsaved = Server(context: viewContext)
            unsaved.name = "unsaved in the parent"
            return (unsaved.objectID, other.objectID)
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: viewContext)
        return try child.performAndWait {
            let existing = try child.existingObject(with: stack.serverID) as! Server
            let fault = child.object(with: faultID) as! Server
            let unsaved = try child.existingObject(with: unsavedID) as! Server
            let fetched = try child.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.name)])).map(\.name)
            return [existing.name, fault.name, unsaved.name] + fetched
        }
    }

    static let childReads = ["v1", "saved, not loaded", "unsaved in the parent",
                             "saved, not loaded", "unsaved in the parent", "v1"]

    /// `mergeChanges(fromRemoteContextSave:into: [viewContext])` inside a
    /// background context's `performAndWait`.
    static func mergeIntoTheViewContextInsideABackgroundBlock() throws -> String {
        let stack = try Stack()
        let background = stack.background()
        try background.performAndWait {
            (try background.existingObject(with: stack.serverID) as! Server).name = "v2"
            try background.save()
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [stack.serverID]],
                                              into: [stack.viewContext])
        }
        return stack.viewName()
    }

    /// A didSave observer registered without a context, run synchronously on
    /// the saving context's queue, merges into the view context with
    /// `performAndWait` while the caller waits for the save.
    static func didSaveObserverMergesWithPerformAndWait() throws -> (name: String, merges: Int) {
        let stack = try Stack()
        let background = stack.background()
        let viewContext = stack.viewContext
        let merges = NotificationWaiter(.NSManagedObjectContextDidMergeChangesObjectIDs, object: viewContext)
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: nil, queue: nil) { note in
            guard (note.object as AnyObject) === background else { return }
            viewContext.performAndWait { viewContext.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try background.performAndWait {
            (try background.existingObject(with: stack.serverID) as! Server).name = "v2"
            try background.save()
        }
        return (stack.viewName(), merges.count)
    }

    /// Nested `performAndWait` on one context, and on a parent from inside
    /// its child's block, and back into the child from the parent's block.
    ///
    /// Back into the child is left out for a main-queue parent called from a
    /// plain thread: the parent's block then runs on the main queue while the
    /// plain thread holds the child, as in Core Data, where it deadlocks too.
    static func nestedPerformAndWait(parentType: ManagedObjectContext.ConcurrencyType,
                                     reenterChildFromParent: Bool = true) throws -> [String] {
        let parent = ManagedObjectContext(concurrencyType: parentType, persistentStoreCoordinator: try TestStack.coordinator(.sqlite))
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        return try child.performAndWait {
            var names: [String] = []
            let server = Server(context: child)
            child.performAndWait {
                server.name = "inner"
                child.performAndWait { names.append(server.name) }
            }
            try child.save()
            try parent.performAndWait {
                let inParent = try parent.fetch(FetchRequest<Server>())
                names += inParent.map(\.name)
                inParent.first?.name = "renamed in the parent"
                if reenterChildFromParent {
                    child.performAndWait { names.append(server.name) }
                } else {
                    names.append("inner")
                }
                try parent.save()
            }
            child.refresh(server, mergeChanges: false)
            names.append(server.name)
            return names
        }
    }

    static let nestedNames = ["inner", "inner", "inner", "renamed in the parent"]

    // MARK: From the main actor

    @MainActor @Test func childReadsThroughItsMainQueueParentFromTheMainActor() throws {
        #expect(try Self.childReadsThroughItsMainQueueParent() == Self.childReads)
    }

    @MainActor @Test func mergeIntoTheViewContextFromTheMainActor() throws {
        #expect(try Self.mergeIntoTheViewContextInsideABackgroundBlock() == "v2")
    }

    @MainActor @Test func didSaveObserverMergesFromTheMainActor() throws {
        let result = try Self.didSaveObserverMergesWithPerformAndWait()
        #expect(result.name == "v2")
        #expect(result.merges == 1)
    }

    @MainActor @Test(arguments: [ManagedObjectContext.ConcurrencyType.privateQueue, .mainQueue])
    func nestedPerformAndWaitFromTheMainActor(parentType: ManagedObjectContext.ConcurrencyType) throws {
        #expect(try Self.nestedPerformAndWait(parentType: parentType) == Self.nestedNames)
    }

    /// Legal in Core Data: the background block runs on the calling thread,
    /// which is the main queue, so the view context's objects may be used.
    @MainActor @Test func aBackgroundBlockCalledFromTheMainActorMayUseViewContextObjects() throws {
        let stack = try Stack()
        let server = stack.viewContext.object(with: stack.serverID) as! Server
        let background = stack.background()
        let seen = try background.performAndWait {
            let mine = try background.existingObject(with: stack.serverID) as! Server
            mine.name = "changed in the background"
            server.name = "changed in the view context"
            return [server.name, mine.name]
        }
        #expect(seen == ["changed in the view context", "changed in the background"])
        #expect(server.isUpdated)
    }

    // MARK: From a plain thread

    @Test func childReadsThroughItsMainQueueParentFromAPlainThread() async throws {
        #expect(try await PlainThread.run { try Self.childReadsThroughItsMainQueueParent() } == Self.childReads)
    }

    @Test func mergeIntoTheViewContextFromAPlainThread() async throws {
        #expect(try await PlainThread.run { try Self.mergeIntoTheViewContextInsideABackgroundBlock() } == "v2")
    }

    @Test func didSaveObserverMergesFromAPlainThread() async throws {
        let (name, merges) = try await PlainThread.run { try Self.didSaveObserverMergesWithPerformAndWait() }
        #expect(name == "v2")
        #expect(merges == 1)
    }

    @Test(arguments: [ManagedObjectContext.ConcurrencyType.privateQueue, .mainQueue])
    func nestedPerformAndWaitFromAPlainThread(parentType: ManagedObjectContext.ConcurrencyType) async throws {
        let names = try await PlainThread.run {
            try Self.nestedPerformAndWait(parentType: parentType, reenterChildFromParent: parentType == .privateQueue)
        }
        #expect(names == Self.nestedNames)
    }

    /// From a plain thread, the view context's objects are reached through
    /// its own `performAndWait`, which hops to the main queue, even from
    /// inside another context's block.
    @Test func aBackgroundBlockOnAPlainThreadReachesTheViewContextThroughItsQueue() async throws {
        let names = try await PlainThread.run { () throws -> [String] in
            let stack = try Stack()
            let background = stack.background()
            return try background.performAndWait {
                let mine = try background.existingObject(with: stack.serverID) as! Server
                let theirs = stack.viewName()
                return [mine.name, theirs]
            }
        }
        #expect(names == ["v1", "v1"])
    }

    // MARK: Ordering and exclusion

    /// Core Data's queue is first in, first out: a `performAndWait` runs
    /// after the blocks submitted with `perform` before it.
    @Test func performAndWaitRunsAfterEarlierPerformBlocks() throws {
        let context = try TestStack.context()
        let order = Locked<[Int]>([])
        for step in 0..<50 {
            context.perform { order.withLock { $0.append(step) } }
        }
        context.performAndWait { order.withLock { $0.append(50) } }
        #expect(order.withLock { $0 } == Array(0...50))
    }

    /// While one thread's `performAndWait` block runs, a `perform` block of
    /// the same context waits for it.
    @Test func performAndWaitExcludesPerformBlocks() async throws {
        let context = try TestStack.context()
        let log = Locked<[String]>([])
        try await PlainThread.run {
            context.performAndWait {
                context.perform { log.withLock { $0.append("perform") } }
                log.withLock { $0.append("performAndWait, first half") }
                // The queued block cannot run while this one holds the context.
                context.performAndWait { log.withLock { $0.append("performAndWait, reentered") } }
            }
        }
        await context.perform {}
        #expect(log.withLock { $0 } == ["performAndWait, first half", "performAndWait, reentered", "perform"])
    }

    /// `performAndWait` runs on the caller's thread and keeps the caller's
    /// queue identity: code that asks which queue it is on (as Coherence's
    /// own main-queue check does) still sees the caller's queue.
    @Test func performAndWaitRunsOnTheCallersThreadAndQueue() async throws {
        let context = try TestStack.context()
        let callerQueue = DispatchQueue(label: "caller")
        let key = DispatchSpecificKey<String>()
        callerQueue.setSpecific(key: key, value: "caller")
        let (sameThread, queueName) = try await callerQueue.runWaiting {
            let caller = Thread.current
            return context.performAndWait { (Thread.current === caller, DispatchQueue.getSpecific(key: key)) }
        }
        #expect(sameThread)
        #expect(queueName == "caller")
    }

    /// Pending changes are processed when the outermost block ends, not at
    /// the end of each nested one, so observers never see half a block.
    @Test func nestedBlocksAnnounceOnceWhenTheOutermostEnds() throws {
        let context = try TestStack.context()
        let log = context.performAndWait { ChangeLog(context) }
        let countsInside = context.performAndWait { () -> [Int] in
            _ = Server(context: context)
            context.performAndWait { _ = Server(context: context) }
            let afterInner = log.changes.count
            _ = FeedItem(context: context)
            return [afterInner]
        }
        #expect(countsInside == [0])
        context.performAndWait {
            #expect(log.changes.count == 1)
            #expect(log.last?.inserted.count == 3)
        }
    }
}
