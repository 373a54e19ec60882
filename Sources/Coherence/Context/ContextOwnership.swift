import Foundation
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exclusive, reentrant ownership of a private-queue context by one thread at
/// a time: Core Data's "the context's queue", which is held either by a block
/// submitted with `perform` (on the context's serial dispatch queue) or by a
/// `performAndWait` block (on the thread that called it).
///
/// Blocks are served first in, first out, whichever way they came: each takes
/// a ticket when it is submitted (`perform`) or called (`performAndWait`), and
/// runs when its ticket is served and the previous holder let go.
/// `performAndWait` does not hop to another thread: when its turn comes, it
/// runs its block on the calling thread, which keeps its own queue identity
/// (a block started on the main queue is still on the main queue). On an idle
/// context that costs one uncontended lock, no thread switch. The thread that
/// holds the context may take it again at once (reentrancy).
///
/// **Complexity:** O(1) to take, release or ask; taking waits for the blocks
/// ahead in line.
final class ContextOwnership: @unchecked Sendable {
    private let condition = NSCondition()
    /// The holding thread, or 0 when free. Written under `condition`; read
    /// without it only to ask "is it this thread?", which a thread answers
    /// correctly from its own writes alone.
    private let owner = Atomic<UInt>(0)
    /// How many times the owner has taken the context; touched only by the
    /// owner, and handed between threads under `condition`.
    private var depth = 0
    /// The next ticket to hand out, and the ticket whose turn it is (under
    /// `condition`).
    private var nextTicket: UInt64 = 0
    private var servedTicket: UInt64 = 0

    /// Whether the calling thread holds the context.
    var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == ThreadIdentity.current
    }

    /// Runs `body` on the calling thread holding the context: at once if this
    /// thread holds it already, otherwise after the blocks ahead in line.
    func withOwnership<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        if isHeldByCurrentThread {
            depth += 1
            defer { depth -= 1 }
            return try body()
        }
        condition.lock()
        let ticket = takeTicket()
        hold(ticket)
        defer { release() }
        return try body()
    }

    /// Submits `body` to `queue`, where it runs holding the context, in line
    /// with the other blocks.
    func submit(to queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        condition.lock()
        let ticket = takeTicket()
        // Submitted under the lock, so the queue's order is the tickets' order.
        queue.async {
            self.condition.lock()
            self.hold(ticket)
            body()
            self.release()
        }
        condition.unlock()
    }

    /// Under `condition`.
    private func takeTicket() -> UInt64 {
        defer { nextTicket += 1 }
        return nextTicket
    }

    /// Called with `condition` locked; returns holding the context, unlocked.
    /// Main-queue code that has to wait runs meanwhile the reads this
    /// context's holder asks of a main-queue parent (``MainQueueRelay``):
    /// the holder may be waiting for them.
    private func hold(_ ticket: UInt64) {
        let servesMainQueue = servedTicket != ticket && MainQueueMarker.isCurrent
        if servesMainQueue { MainQueueRelay.shared.beginWaiting(on: condition) }
        while servedTicket != ticket {
            if servesMainQueue, MainQueueRelay.shared.hasPendingJobs(for: self) {
                condition.unlock()
                MainQueueRelay.shared.serve(for: self)
                condition.lock()
                continue
            }
            condition.wait()
        }
        if servesMainQueue { MainQueueRelay.shared.endWaiting(on: condition) }
        owner.store(ThreadIdentity.current, ordering: .relaxed)
        condition.unlock()
        depth = 1
    }

    private func release() {
        depth -= 1
        require(depth == 0, "Coherence: a context was released by a block that did not hold it")
        condition.lock()
        owner.store(0, ordering: .relaxed)
        servedTicket += 1
        condition.broadcast()
        condition.unlock()
    }
}

/// A number naming the calling thread, never 0.
enum ThreadIdentity {
    static var current: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}

/// Marks the main queue, so that code draining it on a thread other than the
/// main thread (Linux after `dispatchMain()`) is recognised as on it.
enum MainQueueMarker {
    /// Set on `DispatchQueue.main` once, before first use; never changed.
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the calling code runs on the main queue: on the main thread,
    /// or in a block the main queue runs on another thread.
    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true
    }
}
