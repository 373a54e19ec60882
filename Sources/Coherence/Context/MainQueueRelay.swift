import Dispatch
import Foundation

/// Work that code off the main queue needs done on the main queue (a child
/// reading through its main-queue parent, a `performAndWait` on a main-queue
/// context from a background thread). Every job runs on the main queue, in
/// order; a child's read may also be run by main-queue code that is waiting
/// for that very child, and only by such code.
///
/// Without that, a main-queue parent with a private child deadlocks where
/// Core Data does not: the main actor waits in the child's `performAndWait`
/// while the child's queue, busy with an automatic merge, waits for the
/// parent. With it, the waiting main queue answers the parent's read itself
/// (the child's holder is blocked on it, so nothing else runs meanwhile),
/// then goes on waiting for its turn on the child. Nothing else is run early:
/// other jobs wait for the main queue, so their order is kept and no save is
/// run in the middle of another.
///
/// Lock order: a context's ownership condition before the relay's lock;
/// ``run(for:_:)`` takes the conditions only after letting go of its own lock.
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
        /// The child context whose holder asks (a read through its parent),
        /// or `nil`: who may run the job early.
        let child: ContextOwnership?
        let done = DispatchSemaphore(value: 0)
        init(_ body: @escaping () -> Void, child: ContextOwnership?) {
            self.body = body
            self.child = child
        }
    }

    private let lock = NSLock()
    /// Jobs not started yet, first in first out (under `lock`).
    private var pending: [Job] = []
    /// The ownership conditions main-queue code is waiting on now (under
    /// `lock`): a new job wakes them so that the waiter can serve it.
    private var waiters: [NSCondition] = []

    /// Runs `body` on the main queue and returns when it has run. Call it
    /// off the main queue only. With a `child` (a read through its parent),
    /// main-queue code waiting for that child may run it.
    func run(for child: ContextOwnership?, _ body: () -> Void) {
        withoutActuallyEscaping(body) { body in
            let job = Job(body, child: child)
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

    /// Whether a child's read waits that main-queue code waiting for
    /// `child` may run.
    func hasPendingJobs(for child: ContextOwnership) -> Bool {
        lock.withLock { pending.contains { $0.child === child } }
    }

    /// Runs the jobs handed over so far, in order. Call it on the main queue.
    func serve() {
        while let job = lock.withLock({ pending.isEmpty ? nil : pending.removeFirst() }) {
            run(job)
        }
    }

    /// Runs the reads of `child` handed over so far: main-queue code waiting
    /// for `child` calls it, on the main queue.
    func serve(for child: ContextOwnership) {
        while let job = lock.withLock({ () -> Job? in
            guard let index = pending.firstIndex(where: { $0.child === child }) else { return nil }
            return pending.remove(at: index)
        }) {
            run(job)
        }
    }

    private func run(_ job: Job) {
        job.body?()
        job.body = nil
        job.done.signal()
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
