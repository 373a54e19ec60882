import Foundation
import PostgresNIO

extension PostgresConnections {
    /// The mutable part of ``PostgresConnections``: idle connections, how
    /// many are open, and counters, all guarded by one `NSCondition` (on
    /// which callers wait for a free connection).
    final class Pool: @unchecked Sendable {
        struct State {
            /// Open connections not in use.
            var idle: [PostgresConnection] = []
            /// Connections open or being opened, idle or in use.
            var open = 0
            /// Statements sent (see ``PostgresConnections/roundTrips``).
            var roundTrips = 0
            /// The id of the last connection opened (postgres-nio logs it).
            var lastConnectionID = 0
        }

        /// What `take(maximum:)` gives: an idle connection, or the right to
        /// open one (counted in `open` already).
        enum Taken {
            case idle(PostgresConnection)
            case open
        }

        private let condition = NSCondition()
        // Guarded by `condition`.
        private var state = State()

        func withLock<T>(_ body: (inout State) -> T) -> T {
            condition.lock()
            defer { condition.unlock() }
            return body(&state)
        }

        /// An idle connection, or the right to open a new one when fewer than
        /// `maximum` are open; waits until one of them is possible.
        func take(maximum: Int) -> Taken {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let connection = state.idle.popLast() { return .idle(connection) }
                if state.open < maximum {
                    state.open += 1
                    return .open
                }
                condition.wait()
            }
        }

        /// Returns a connection in use to the idle ones.
        func giveBack(_ connection: PostgresConnection) {
            condition.lock()
            state.idle.append(connection)
            condition.signal()
            condition.unlock()
        }

        /// Forgets a connection that is closed (or was never opened).
        func discard() {
            condition.lock()
            state.open -= 1
            condition.signal()
            condition.unlock()
        }

        func nextConnectionID() -> Int {
            withLock { state in
                state.lastConnectionID += 1
                return state.lastConnectionID
            }
        }

        /// The idle connections, which the caller closes.
        func closeAll() -> [PostgresConnection] {
            withLock { state in
                defer { state.idle = [] }
                return state.idle
            }
        }
    }

    /// For each open connection, how to fail the statement it is waiting
    /// for: one callback per connection on its close, instead of one per
    /// statement.
    final class Watches: @unchecked Sendable {
        private struct Entry {
            var fail: (@Sendable (any Error) -> Void)?
        }

        private let lock = NSLock()
        // Guarded by `lock`; an entry per connection not closed yet.
        private var entries: [PostgresConnection.ID: Entry] = [:]

        /// Starts watching a new connection until it closes.
        func watch(_ connection: PostgresConnection) {
            // By the pool's connection number, which is never reused (an
            // object's address may be, once a closed connection is freed).
            let id = connection.id
            lock.withLock { entries[id] = Entry() }
            connection.closeFuture.whenComplete { _ in
                let fail = self.lock.withLock { self.entries.removeValue(forKey: id)?.fail }
                fail?(ConnectionClosed())
            }
        }

        /// Sets (or clears, with `nil`) how to fail the statement `connection`
        /// waits for; `false` when the connection is closed.
        func setPending(on connection: PostgresConnection, _ fail: (@Sendable (any Error) -> Void)?) -> Bool {
            lock.withLock {
                let id = connection.id
                guard entries[id] != nil else { return false }
                entries[id]?.fail = fail
                return true
            }
        }
    }
}
