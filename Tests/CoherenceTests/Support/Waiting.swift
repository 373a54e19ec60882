import Foundation
import Testing

/// How long a wait lasts before it fails, in seconds. Deadlines catch hangs,
/// not slowness: on two cores, under the Thread Sanitizer, beside campaigns
/// whose child processes and blocking steps hold the cooperative pool's two
/// threads, a task can wait minutes for its turn (a 120-second deadline
/// failed that way in CI). Ten minutes still ends a hung run well within
/// CI's 90.
let hangDeadline: TimeInterval = 600

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

/// Starts `body` with `start` (on a thread, on a queue) and waits for it. A
/// deadlock fails the test at the deadline instead of hanging the run.
private func runStarted<T: Sendable>(_ what: String, deadline: TimeInterval,
                                     start: (@escaping @Sendable () -> Void) -> Void,
                                     _ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error>? = await withCheckedContinuation { continuation in
        let once = Once<Result<T, any Error>?>(continuation)
        start { once.resume(Result { try body() }) }
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { once.resume(nil) }
    }
    guard let result else { throw DeadlineExceeded(what: what) }
    return try result.get()
}

enum PlainThread {
    /// Runs `body` on a new thread (no dispatch queue, not the main thread)
    /// and waits for it, failing at the deadline.
    static func run<T: Sendable>(deadline: TimeInterval = hangDeadline,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await runStarted("the block on a plain thread", deadline: deadline, start: { Thread(block: $0).start() }, body)
    }
}

extension DispatchQueue {
    /// Runs `body` asynchronously on this queue and waits for it, failing at
    /// the deadline.
    func runWaiting<T: Sendable>(deadline: TimeInterval = hangDeadline,
                                 _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await runStarted("the block on queue \(label)", deadline: deadline, start: { self.async(execute: $0) }, body)
    }
}

private enum DeadlineOutcome<T: Sendable>: Sendable {
    case finished(T), timedOut
}

/// The result of `operation`, or ``DeadlineExceeded`` when it has not
/// finished by the deadline. It is then cancelled, so give it work that ends
/// on cancellation (waiting on an `AsyncStream` does).
func withDeadline<T: Sendable>(_ what: String, seconds: Double = hangDeadline,
                               _ operation: @escaping @Sendable () async -> T) async throws -> T {
    try await withThrowingTaskGroup(of: DeadlineOutcome<T>.self) { group in
        group.addTask { .finished(await operation()) }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return .timedOut
        }
        let first = try await group.next()
        group.cancelAll()
        guard case .finished(let value) = first else { throw DeadlineExceeded(what: what) }
        return value
    }
}

/// Polls `value` until it is not `nil` (every 10 ms, up to ``hangDeadline``):
/// for state with no notification of its own.
func waitUntil<T: Sendable>(_ what: String, seconds: Double = hangDeadline, _ value: @escaping @Sendable () -> T?) async throws -> T {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if let value = value() { return value }
        try await Task.sleep(for: .milliseconds(10))
    }
    throw DeadlineExceeded(what: what)
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
    func wait(for count: Int = 1, deadline: TimeInterval = hangDeadline) async -> Bool {
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
