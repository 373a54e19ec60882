import Dispatch
import Foundation

// Queues: Core Data's threading rules. A private-queue context is held by
// one thread at a time (`ContextOwnership`); a main-queue context belongs to
// the main queue.
extension ManagedObjectContext {
    /// Whether the calling code may use this context now.
    ///
    /// A private-queue context: the thread that holds it, that is, a
    /// `perform` block on its queue or a `performAndWait` block on the thread
    /// that called it. A main-queue context: the main thread, or any thread
    /// draining the main queue (on Linux, after `dispatchMain()`, the main
    /// queue, and with it the main actor, runs on a thread that is not the
    /// main thread).
    var isOnQueue: Bool {
        switch concurrencyType {
        case .privateQueue:
            return ownership.isHeldByCurrentThread
        case .mainQueue:
            return MainQueueMarker.isCurrent
        }
    }

    /// Stops the program, naming the entity, the object and the context,
    /// when `object` is used off this context's queue and the concurrency
    /// check is on (``ConcurrencyDebug``). The message prints in release
    /// builds too.
    func _assertOnQueue(touching object: ManagedObject) {
        guard ConcurrencyDebug.isEnabled, !isOnQueue else { return }
        fatalError("Coherence: \(object.entityNameForMessages) \(object.objectID) was touched off the queue of \(self); use the context's perform or performAndWait (COHERENCE_CONCURRENCY_DEBUG=0 turns this check off)")
    }

    /// Stops the program, naming the context and the call, when the context
    /// is used off its queue and the concurrency check is on.
    func _assertOnQueue(_ function: StaticString = #function) {
        guard ConcurrencyDebug.isEnabled, !isOnQueue else { return }
        fatalError("Coherence: \(self).\(function) was called off the context's queue; use perform or performAndWait (COHERENCE_CONCURRENCY_DEBUG=0 turns this check off)")
    }

    /// Runs `block` on the context's queue and returns at once. Pending
    /// changes are processed (and announced) when the block ends, as Core
    /// Data's `perform(_:)` does.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        submit { self.runAsOutermostBlock(block) }
    }

    /// Runs `block` on the context's queue and returns its result. Only
    /// `Sendable` results leave the queue: return object IDs, not objects.
    /// Pending changes are processed (and announced) when the block ends.
    @discardableResult
    public func perform<T: Sendable, E: Error>(_ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            submit {
                let result = self.runAsOutermostBlock { Result { () throws(E) -> T in try block() } }
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Runs `block` with exclusive use of the context and waits for it, as
    /// Core Data's `performAndWait(_:)`, which is reentrant.
    ///
    /// - A private-queue context runs `block` **on the calling thread**, once
    ///   the blocks submitted before the call have run (first in, first out,
    ///   as Core Data's queue). The thread that already holds the context
    ///   (inside its `perform` or `performAndWait`) runs `block` at once.
    ///   Because the block runs where it was called, a block called on the
    ///   main queue may also use main-queue contexts: a child may read through
    ///   its main-queue parent, and a background block may merge into the view
    ///   context.
    /// - A main-queue context runs `block` at once when called on the main
    ///   queue (or main actor); from another thread it waits for the main
    ///   queue to run it.
    ///
    /// Main-queue code that waits here for a child answers meanwhile the
    /// reads that child's queue makes through its main-queue parent (an
    /// automatic merge, a fault), and nothing else, so the main actor
    /// waiting in a child's `performAndWait` does not deadlock, as it does
    /// not with Core Data. Threads that each hold a context and wait for the
    /// other's still deadlock, as in Core Data.
    ///
    /// Pending changes are processed (and announced) when the outermost
    /// block on the context ends. Apple documents that call for `perform`
    /// only; Coherence makes it for `performAndWait` too, so observers may
    /// hear of a block's changes earlier than with Core Data, never later.
    @discardableResult
    public func performAndWait<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        let result = withExclusiveAccess {
            runAsOutermostBlock(finishingMergedDeletions: false) { Result { () throws(E) -> T in try block() } }
        }
        // A merge's deletions in a main-queue context are processed at the
        // end of the main-queue turn, as Core Data's run loop does.
        if concurrencyType == .mainQueue, isOnQueue, !mergedDeletions.isEmpty { scheduleEndOfTurnProcessing() }
        return try result.get()
    }

    /// Runs a `perform` or `performAndWait` block, holding the context, and
    /// processes pending changes when the outermost one ends.
    /// Objects a merge deleted stay in `deletedObjects` after a
    /// `performAndWait` block (`finishingMergedDeletions: false`): Core Data
    /// processes nothing there.
    private func runAsOutermostBlock<T>(finishingMergedDeletions: Bool = true, _ block: () -> T) -> T {
        blockDepth += 1
        let result = block()
        blockDepth -= 1
        if blockDepth == 0 { processPendingChanges(finishingMergedDeletions: finishingMergedDeletions) }
        return result
    }

    /// Runs `body` with exclusive use of the context, on the calling thread
    /// where Core Data would (see ``performAndWait(_:)``), without processing
    /// pending changes: for reads a child makes through its parent. A
    /// main-queue context's read for a `child` may be run by main-queue code
    /// that is waiting for that child (see ``MainQueueRelay``).
    func withExclusiveAccess<T, E: Error>(readingFor child: ContextOwnership? = nil, _ body: () throws(E) -> T) throws(E) -> T {
        switch concurrencyType {
        case .privateQueue:
            return try ownership.withOwnership(body)
        case .mainQueue:
            if isOnQueue { return try body() }
            // Relayed rather than `queue.sync`: main-queue code waiting for
            // the child that reads serves it too (see MainQueueRelay).
            var result: Result<T, E>?
            MainQueueRelay.shared.run(for: child) {
                result = Result { () throws(E) -> T in try body() }
            }
            return try result!.get()
        }
    }

    /// Submits a `perform` block to the context's queue.
    private func submit(_ block: @escaping @Sendable () -> Void) {
        switch concurrencyType {
        case .privateQueue: ownership.submit(to: queue, block)
        case .mainQueue: queue.async(execute: block)
        }
    }

    /// Core Data processes a main-queue context's pending changes at the end
    /// of each run-loop turn, so a change made on the main queue outside any
    /// `perform` block is announced without a save or an explicit
    /// ``processPendingChanges()``. The first pending change of a turn asks
    /// the main queue for one coalesced processing after the work already
    /// queued; changes processed sooner (end of a `perform` block, save,
    /// fetch) leave it nothing to do.
    func scheduleEndOfTurnProcessing() {
        // Inside a block, the end of the outermost block processes them.
        guard concurrencyType == .mainQueue, blockDepth == 0, !endOfTurnProcessingScheduled, !isProcessingPendingChanges,
              !isScratch, tracker.hasPendingNotification || !mergedDeletions.isEmpty else { return }
        endOfTurnProcessingScheduled = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.endOfTurnProcessingScheduled = false
            self.processPendingChanges()
        }
    }
}
