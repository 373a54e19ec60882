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
            return Thread.isMainThread || DispatchQueue.getSpecific(key: MainQueueMarker.key) == true
        }
    }

    func _assertOnQueue(touching object: ManagedObject) {
        guard !isOnQueue else { return }
        preconditionFailure("Coherence: \(type(of: object).entityName) \(object.objectID) was touched off the queue of \(self); use the context's perform or performAndWait")
    }

    func _assertOnQueue(_ function: StaticString = #function) {
        #if DEBUG
        guard !isOnQueue else { return }
        preconditionFailure("Coherence: \(self).\(function) was called off the context's queue; use perform or performAndWait")
        #endif
    }

    /// Runs `block` on the context's queue and returns at once. Pending
    /// changes are processed (and announced) when the block ends, as Core
    /// Data's `perform(_:)` does.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async {
            self.runHoldingContext {
                block()
                self.processPendingChanges()
            }
        }
    }

    /// Runs `block` on the context's queue and returns its result. Only
    /// `Sendable` results leave the queue: return object IDs, not objects.
    /// Pending changes are processed (and announced) when the block ends.
    @discardableResult
    public func perform<T: Sendable, E: Error>(_ block: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                let result = self.runHoldingContext { () -> Result<T, E> in
                    let result = Result { () throws(E) -> T in try block() }
                    self.processPendingChanges()
                    return result
                }
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Runs `block` with exclusive use of the context and waits for it, as
    /// Core Data's `performAndWait(_:)`: reentrant, and never a deadlock
    /// where Core Data has none.
    ///
    /// - A private-queue context runs `block` **on the calling thread**, once
    ///   the blocks submitted to its queue before the call have run (the
    ///   queue is first in, first out). The thread that already holds the context
    ///   (inside `perform` or `performAndWait`) runs `block` at once. So a
    ///   block started on the main queue may also use main-queue contexts,
    ///   and a child may read through its main-queue parent.
    /// - A main-queue context runs `block` at once when called on the main
    ///   queue (or main actor); from another thread it waits for the main
    ///   queue to run it.
    ///
    /// Pending changes are processed (and announced) when the block ends.
    @discardableResult
    public func performAndWait<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        try withExclusiveAccess { () throws(E) -> T in
            let result = Result { () throws(E) -> T in try block() }
            processPendingChanges()
            return try result.get()
        }
    }

    /// Runs `body` with exclusive use of the context, on the calling thread
    /// where Core Data would (see ``performAndWait(_:)``), without processing
    /// pending changes: for reads a child makes through its parent.
    func withExclusiveAccess<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        switch concurrencyType {
        case .privateQueue:
            if ownership.isHeldByCurrentThread { return try ownership.withOwnership(body) }
            // Wait for the blocks submitted before this call (the queue is
            // FIFO, as Core Data's is), then hold the queue while `body` runs
            // here, on the calling thread.
            let turn = QueueTurn()
            queue.async { turn.hold() }
            turn.waitForStart()
            defer { turn.finish() }
            return try ownership.withOwnership(body)
        case .mainQueue:
            if isOnQueue { return try body() }
            var result: Result<T, E>?
            withoutActuallyEscaping(body) { body in
                let box = UncheckedBox(body)
                queue.sync {
                    result = Result { () throws(E) -> T in try box.value() }
                }
            }
            return try result!.get()
        }
    }

    /// Runs a block that `perform` submitted, on the context's queue.
    private func runHoldingContext<T>(_ body: () -> T) -> T {
        switch concurrencyType {
        case .privateQueue: ownership.withOwnership(body)
        case .mainQueue: body()
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
        guard concurrencyType == .mainQueue, !endOfTurnProcessingScheduled, !isScratch,
              tracker.hasPendingNotification else { return }
        endOfTurnProcessingScheduled = true
        DispatchQueue.main.async { [weak self] in
            guard let self else { return }
            self.endOfTurnProcessingScheduled = false
            self.processPendingChanges()
        }
    }
}

/// Lets a non-escaping, non-Sendable closure cross into `DispatchQueue.sync`,
/// which runs it before returning.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
