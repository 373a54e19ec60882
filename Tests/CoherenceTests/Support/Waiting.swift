import Foundation
import Testing

/// Failure of a wait that reached its deadline: a deadlock or a missing event.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) did not happen within the deadline" }
}

/// Resumes a continuation once: with the first of a result and a deadline.
private final class Once<T: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<T, Never>?>
    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = Locked(continuation) }
    func resume(_ value: T) {
        continuation.withLock { continuation in
            continuation?.resume(returning: value)
            continuation = nil
        }
    }
}

enum PlainThread {
    /// Runs `body` on a new thread (no dispatch queue, not the main thread)
    /// and waits for it. A deadlock fails the test at the deadline instead of
    /// hanging the run.
    static func run<T: Sendable>(deadline: TimeInterval = 120,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result: Result<T, any Error>? = await withCheckedContinuation { continuation in
            let once = Once<Result<T, any Error>?>(continuation)
            let thread = Thread { once.resume(Result { try body() }) }
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { once.resume(nil) }
        }
        guard let result else { throw DeadlineExceeded(what: "the block on a plain thread") }
        return try result.get()
    }
}

/// Collects the notifications of one name (and object) posted on
/// `NotificationCenter.default`, from any thread, and lets a test wait for them.
final class NotificationWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [Notification] = []
    private var waiters: [(id: UUID, count: Int, resume: @Sendable (Bool) -> Void)] = []
    private var token: (any NSObjectProtocol)?

    init(_ name: Notification.Name, object: AnyObject?) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            self?.store(note)
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    private func store(_ note: Notification) {
        let ready = lock.withLock { () -> [@Sendable (Bool) -> Void] in
            received.append(note)
            let ready = waiters.filter { $0.count <= received.count }
            waiters.removeAll { $0.count <= received.count }
            return ready.map(\.resume)
        }
        for resume in ready { resume(true) }
    }

    var notifications: [Notification] { lock.withLock { received } }
    var count: Int { lock.withLock { received.count } }

    /// Waits until `count` notifications have arrived; `false` at the deadline.
    func wait(for count: Int = 1, deadline: TimeInterval = 120) async -> Bool {
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let once = Once<Bool>(continuation)
            let arrived = lock.withLock { () -> Bool in
                if received.count >= count { return true }
                waiters.append((id, count, { once.resume($0) }))
                return false
            }
            if arrived { return once.resume(true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [weak self] in
                self?.lock.withLock { self?.waiters.removeAll { $0.id == id } }
                once.resume(false)
            }
        }
    }
}

/// Returns after the main queue has run everything submitted to it before.
func mainQueueRoundTrip() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { continuation.resume() }
    }
}

/// A value behind an `NSLock`, for test bookkeeping shared across threads.
/// (`Synchronization.Mutex` is invisible to ThreadSanitizer on Linux, which
/// then reports false races.)
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
