import Foundation

/// The typed observers of one context. Registration and removal may happen on
/// any thread; handlers are called on the context's queue, outside the lock.
final class ContextObservers: Sendable {
    /// A handler and the notification it wants. Handlers are only ever called
    /// on the context's queue, which is what makes holding them here safe.
    private struct Entry: @unchecked Sendable {
        let name: Notification.Name
        let handler: (Notification) -> Void
    }

    private struct State {
        /// Per notification name, the handlers in registration (= id) order.
        var entries: [Notification.Name: [(id: Int, entry: Entry)]] = [:]
        /// Which name each registration is under.
        var names: [Int: Notification.Name] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    func add(_ name: Notification.Name, handler: @escaping (Notification) -> Void) -> Int {
        let entry = Entry(name: name, handler: handler)
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[name, default: []].append((id, entry))
            state.names[id] = name
            return id
        }
    }

    func remove(_ id: Int) {
        state.withLock { state in
            guard let name = state.names.removeValue(forKey: id), var list = state.entries[name] else { return }
            // Ids grow with registration, so each list is sorted by id.
            var low = 0, high = list.count
            while low < high {
                let middle = (low + high) / 2
                if list[middle].id < id { low = middle + 1 } else { high = middle }
            }
            guard low < list.count, list[low].id == id else { return }
            list.remove(at: low)
            state.entries[name] = list.isEmpty ? nil : list
        }
    }

    /// Calls every handler registered for the notification's name, in
    /// registration order; one removed meanwhile (by an earlier handler, say)
    /// is skipped. **Complexity:** O(observers of that notification).
    func deliver(_ notification: Notification) {
        let handlers = state.withLock { $0.entries[notification.name] ?? [] }
        for (id, entry) in handlers where state.withLock({ $0.names[id] != nil }) {
            entry.handler(notification)
        }
    }
}

/// A registration made with ``ManagedObjectContext/addObserver(for:using:)``.
/// The observation ends when this token is released or cancelled.
public final class ContextObservation: Sendable {
    private let remove: @Sendable () -> Void

    init(remove: @escaping @Sendable () -> Void) {
        self.remove = remove
    }

    convenience init(observers: ContextObservers, id: Int) {
        self.init(remove: { observers.remove(id) })
    }

    /// Ends the observation; the handler is not called again.
    public func cancel() {
        remove()
    }

    deinit {
        remove()
    }
}

extension ManagedObjectContext {
    /// Calls `handler` on this context's queue for each notification of the
    /// given kind that this context posts, as its message type, in the same
    /// moment it is posted on `NotificationCenter.default`. Works for every
    /// context and every message type, the main-actor ones included on a
    /// private-queue context.
    ///
    /// Unlike `NotificationCenter`'s block API, the handler need not be
    /// `Sendable`: it runs on the context's queue and may use the context's
    /// objects, which makes it the way for an object to observe its own
    /// context (the seed article's parent that watches its children):
    ///
    /// ```swift
    /// override func awakeFromInsert() {
    ///     observation = managedObjectContext?.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { [unowned self] change in
    ///         recount(change)
    ///     }
    /// }
    /// ```
    ///
    /// - Returns: a token; the observation lasts until it is released or cancelled.
    public func addObserver<Kind: ContextNotification>(
        for kind: Kind.Type, using handler: @escaping (Kind) -> Void
    ) -> ContextObservation {
        let id = observers.add(Kind.name) { notification in
            if let typed = Kind.makeMessage(notification) { handler(typed) }
        }
        return ContextObservation(observers: observers, id: id)
    }

    /// The notifications of one kind this context posts from now on, as
    /// `Sendable` events (object IDs, not objects: the sequence is consumed on
    /// another task). The sequence ends when the consuming task stops
    /// iterating; events are buffered until consumed.
    ///
    /// ```swift
    /// for await change in context.events(for: ManagedObjectContext.ObjectsDidChangeMessage.self) {
    ///     print(change.updated)
    /// }
    /// ```
    public func events<Kind: ContextNotification>(for kind: Kind.Type) -> AsyncStream<Kind.Event> {
        let (stream, continuation) = AsyncStream<Kind.Event>.makeStream()
        let token = addObserver(for: kind) { typed in
            continuation.yield(typed.event)
        }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Posts a notification to the typed observers and to
    /// `NotificationCenter.default`, then its message form (see
    /// ``postMessage(for:)``), on the calling (context's) queue.
    func post(name: Notification.Name, userInfo: [AnyHashable: Any]?) {
        guard !isScratch else { return }
        let notification = Notification(name: name, object: self, userInfo: userInfo)
        observers.deliver(notification)
        NotificationCenter.default.post(notification)
        postMessage(for: notification)
    }

    func post(_ change: ObjectsDidChangeMessage) {
        post(name: ManagedObjectContext.didChangeObjectsNotification, userInfo: change.userInfo)
    }
}
