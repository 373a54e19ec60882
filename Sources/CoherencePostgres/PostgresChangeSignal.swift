import Coherence
import Foundation
import PostgresNIO

/// Notices commits to a PostgreSQL store by other writers (other
/// coordinators, processes, machines), for the remote-change watcher.
///
/// Every save that records history sends `NOTIFY` on the store's channel
/// inside its transaction, so the notification is delivered only if the
/// save commits, and after it did. This signal keeps one connection of its
/// own (outside the store's pool) in `LISTEN` on that channel and wakes the
/// watcher for each notification.
///
/// **Dropped connections.** When the listening connection fails (the server
/// restarted, `pg_terminate_backend`, the network), the signal reconnects,
/// waiting 50 ms, then twice as long after each failed attempt, up to 2 s;
/// once it listens again it wakes the watcher once, which reads every
/// transaction committed since the last one it saw: a commit made while
/// nobody listened is caught up, not lost.
///
/// **Cost:** one connection per watched store; nothing per save here (the
/// saving side pays one `pg_notify` statement).
package final class PostgresChangeSignal: SQLChangeSignal, @unchecked Sendable {
    private let connections: PostgresConnections
    private let channel: String
    private let lock = NSLock()
    // Guarded by `lock`.
    private var task: Task<Void, Never>?
    private var listener: PostgresConnection?
    private var pid: Int32?
    private var connected = 0
    private var holding = false
    private var stopped = false

    init(connections: PostgresConnections, channel: String) {
        self.connections = connections
        self.channel = channel
    }

    deinit {
        stop()
    }

    /// The server process of the listening connection, once it listens and
    /// until it fails (for tests that cut it with `pg_terminate_backend`).
    package var backendPID: Int32? { lock.withLock { pid } }

    /// How many times the signal connected and started listening.
    package var connectionCount: Int { lock.withLock { connected } }

    /// While `true`, a dropped connection is not replaced (for tests that
    /// commit while nobody listens, to observe the catch-up).
    package func holdReconnection(_ hold: Bool) {
        lock.withLock { holding = hold }
    }

    package func start(_ changed: @escaping @Sendable () -> Void) throws {
        let task = Task.detached { [weak self] in
            var delay = Duration.milliseconds(50)
            while let self, !self.isStopped {
                if await self.listen(changed) { delay = .milliseconds(50) }
                await self.waitWhileHeld()
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
        }
        lock.withLock { self.task = task }
    }

    package func stop() {
        let (task, listener) = lock.withLock { () -> (Task<Void, Never>?, PostgresConnection?) in
            stopped = true
            defer { self.task = nil; self.listener = nil }
            return (self.task, self.listener)
        }
        task?.cancel()
        listener?.close().whenComplete { _ in withExtendedLifetime(listener) {} }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Connects, listens and wakes the watcher for every notification until
    /// the connection fails; whether it got as far as listening.
    private func listen(_ changed: @escaping @Sendable () -> Void) async -> Bool {
        let logger = connections.logger
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: connections.connectionConfiguration,
                id: connections.nextConnectionID(), logger: logger)
        } catch {
            return false
        }
        defer {
            lock.withLock {
                listener = nil
                pid = nil
            }
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
        }
        var listened = false
        do {
            var backend: Int32?
            for try await row in try await connection.query("SELECT pg_backend_pid()", logger: logger) {
                backend = try row.decode(Int32.self)
            }
            let admitted = lock.withLock {
                guard !stopped else { return false }
                listener = connection
                return true
            }
            guard admitted else { return false }
            try await connection.listen(on: channel) { notifications in
                lock.withLock {
                    connected += 1
                    pid = backend
                }
                listened = true
                // Whatever committed while nobody listened.
                changed()
                for try await _ in notifications { changed() }
            }
        } catch {
            return listened
        }
        return listened
    }

    private func waitWhileHeld() async {
        while lock.withLock({ holding && !stopped }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
