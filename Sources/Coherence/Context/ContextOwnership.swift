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
/// `performAndWait` does not hop to another thread: it waits until no other
/// thread holds the context, then runs its block on the calling thread. That
/// is what lets a block started on the main queue read a main-queue context,
/// and a thread that already holds the context take it again (reentrancy).
///
/// **Complexity:** O(1) to take, release or ask; taking waits while another
/// thread holds the context.
final class ContextOwnership: @unchecked Sendable {
    private let condition = NSCondition()
    /// The holding thread, or 0 when free. Written under `condition`; read
    /// without it only to ask "is it this thread?", which a thread answers
    /// correctly from its own writes alone.
    private let owner = Atomic<UInt>(0)
    /// How many times the owner has taken the context; touched only by the
    /// owner, and handed between threads under `condition`.
    private var depth = 0

    /// Whether the calling thread holds the context.
    var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == ThreadIdentity.current
    }

    /// Runs `body` holding the context, waiting first while another thread
    /// holds it.
    func withOwnership<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        acquire()
        defer { release() }
        return try body()
    }

    private func acquire() {
        let me = ThreadIdentity.current
        if owner.load(ordering: .relaxed) == me {
            depth += 1
            return
        }
        condition.lock()
        while owner.load(ordering: .relaxed) != 0 {
            condition.wait()
        }
        owner.store(me, ordering: .relaxed)
        condition.unlock()
        depth = 1
    }

    private func release() {
        depth -= 1
        guard depth == 0 else { return }
        condition.lock()
        owner.store(0, ordering: .relaxed)
        condition.signal()
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
}

/// One `performAndWait` from a thread that does not hold a private-queue
/// context: a block on the context's queue that starts when the blocks
/// submitted before it have run, then keeps the queue busy until the calling
/// thread has run its block. The caller's block thus runs in queue order, on
/// the caller's thread, which keeps its own queue identity (the main queue
/// stays the main queue), unlike `DispatchQueue.sync`.
final class QueueTurn: Sendable {
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// On the context's queue: lets the caller run, and waits for it.
    func hold() {
        started.signal()
        finished.wait()
    }

    /// On the calling thread: waits until the queue is held for it.
    func waitForStart() {
        started.wait()
    }

    /// On the calling thread: gives the queue back.
    func finish() {
        finished.signal()
    }
}
