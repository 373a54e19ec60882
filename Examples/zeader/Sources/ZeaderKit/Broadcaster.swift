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

    /// How many events a page may fall behind before its stream is ended.
    public let bufferLimit: Int

    /// A broadcaster with no subscriber. A page that falls `bufferLimit`
    /// events behind (stalled, or on a slow link) has its stream ended:
    /// its EventSource reconnects and starts again from a snapshot, instead
    /// of the server keeping every event for it.
    public init(bufferLimit: Int = 1_000) {
        self.bufferLimit = bufferLimit
    }

    /// How many pages are subscribed.
    public var count: Int { subscribers.withLock { $0.continuations.count } }

    /// A new subscription whose first event is `first`; it ends when the
    /// stream's consumer stops (the page closed) or at ``finish()``.
    public func subscribe(first: String) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
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
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) {
            // Behind by more than the limit: the page starts again.
            if case .dropped = continuation.yield(event) { continuation.finish() }
        }
    }

    /// Ends every subscription (the server is shutting down).
    public func finish() {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
