import Dispatch
import Foundation

/// Work that code off the main queue needs done on the main queue (a child
/// reading through its main-queue parent, a `performAndWait` on a main-queue
/// context from a background thread), served by whichever comes first: the
/// main queue itself, or main-queue code that is waiting for a private-queue
/// context.
///
/// Without the second way, a main-queue parent with a private child
/// deadlocks where Core Data does not: the main actor waits in the child's
/// `performAndWait` while the child's queue, busy with an automatic merge,
/// waits for the parent. With it, the waiting main queue answers the parent's
/// part itself, then goes on waiting for its turn on the child.
///
/// Lock order: a context's ownership condition before the relay's lock;
/// ``run(_:)`` takes the conditions only after letting go of its own lock.
///
/// **Complexity:** O(1) to hand over a job and to serve one, plus O(w) to
/// wake the w (at most a few) ownership conditions the main queue waits on.
final class MainQueueRelay: @unchecked Sendable {
    /// The one relay: there is one main queue.
    static let shared = MainQueueRelay()

    /// A job handed over by a thread off the main queue, which waits for it.
    private final class Job: @unchecked Sendable {
        /// Dropped by the thread that runs it before it signals `done`, so
        /// that nothing holds the caller's closure once `run` returns.
        var body: (() -> Void)?
        let done = DispatchSemaphore(value: 0)
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private let lock = NSLock()
    /// Jobs not started yet, first in first out (under `lock`).
    private var pending: [Job] = []
    /// The ownership conditions main-queue code is waiting on now (under
    /// `lock`): a new job wakes them so that the waiter can serve it.
    private var waiters: [NSCondition] = []

    /// Runs `body` on the main queue and returns when it has run. Call it
    /// off the main queue only.
    func run(_ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            let job = Job(body)
            let conditions = lock.withLock {
                pending.append(job)
                return waiters
            }
            for condition in conditions {
                condition.lock()
                condition.broadcast()
                condition.unlock()
            }
            DispatchQueue.main.async { MainQueueRelay.shared.serve() }
            job.done.wait()
        }
    }

    /// Whether a job waits to be served.
    var hasPendingJobs: Bool {
        lock.withLock { !pending.isEmpty }
    }

    /// Runs the jobs handed over so far. Call it on the main queue.
    func serve() {
        while let job = lock.withLock({ pending.isEmpty ? nil : pending.removeFirst() }) {
            job.body?()
            job.body = nil
            job.done.signal()
        }
    }

    /// Main-queue code starts waiting on `condition`: new jobs wake it.
    /// Called holding `condition`'s lock.
    func beginWaiting(on condition: NSCondition) {
        lock.withLock { waiters.append(condition) }
    }

    /// Main-queue code stopped waiting on `condition`.
    func endWaiting(on condition: NSCondition) {
        lock.withLock {
            if let index = waiters.lastIndex(where: { $0 === condition }) { waiters.remove(at: index) }
        }
    }
}
