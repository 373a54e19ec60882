// The fan-out from the view context's queue to every open page: each page's
// event stream is an AsyncStream of ready-made Server-Sent Events; the view
// context's queue sends, the web server's threads receive.
//
// Core Data technique (seed article: interqueue merging): only Sendable
// values cross queues; here, the events' text.
import Coherence

/// Sends each event to every subscribed page. Safe from any thread.
public final class Broadcaster: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<String>.Continuation] = [:]
    }

    // Coherence's lock (a pthread mutex the Thread Sanitizer can see).
    private let subscribers = Locked(Subscribers())

    /// A broadcaster with no subscriber.
    public init() {}

    /// How many pages are subscribed.
    public var count: Int { subscribers.withLock { $0.continuations.count } }

    /// A new subscription whose first event is `first`; it ends when the
    /// stream's consumer stops (the page closed) or at ``finish()``.
    public func subscribe(first: String) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        continuation.yield(first)
        let id = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every subscriber.
    public func send(_ event: String) {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
    }

    /// Ends every subscription (the server is shutting down).
    public func finish() {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
