import Coherence
import Foundation
import PostgresNIO

/// The connections of one PostgreSQL store: a small pool, and read and write
/// transactions over it, as the shared SQL engine uses them.
///
/// **Blocking over postgres-nio.** Coherence's API is synchronous (`save()`,
/// `fetch(_:)`); postgres-nio's is asynchronous. Each call here starts
/// postgres-nio's work on one of its event loops (`MultiThreadedEventLoopGroup.singleton`)
/// and waits for the resulting future on the calling thread. This cannot
/// deadlock: the I/O runs on the event-loop threads, which never wait for
/// Coherence; the caller's thread (a context's queue, the main thread, or a
/// Swift concurrency task's thread) only waits. Calling from an event-loop
/// thread would block the loop that has to do the work, so it traps, in
/// release builds too, with a message saying to call Coherence from a
/// context's queue instead.
///
/// **Transactions.** A read runs in `BEGIN ISOLATION LEVEL REPEATABLE READ
/// READ ONLY`: all of its statements see one snapshot, as a read of SQLite's
/// WAL does. A write runs in a READ COMMITTED transaction, beside the other
/// writers of the store: the engine's statements keep them apart (updates
/// and deletes check the row's version, and wait for a writer that holds
/// the row; see `SQLStore+Writing.swift`). An exclusive write (opening and
/// migrating the store) first takes `pg_advisory_xact_lock` on a 64-bit key
/// derived from the schema name, so that two processes never migrate one
/// schema at once; the lock is released at COMMIT or ROLLBACK. A write commits
/// when its body returns and rolls back when the body throws (the body's
/// error is rethrown). A body must not catch a ``StoreError/postgres(code:message:sql:)``
/// and go on: PostgreSQL refuses every further statement of a failed transaction.
///
/// **Pool.** Up to ``maximumConnections`` connections are opened on demand
/// and kept; a caller waits for a free one. Each runs `SET search_path`
/// to the configuration's schema after connecting. A connection that failed
/// (closed by the server, `pg_terminate_backend`, the network) is discarded,
/// and a new one is opened by the next call: a transaction whose connection
/// dies throws ``StoreError/serverUnreachable(host:port:reason:)`` (it did not
/// commit), and a connection found dead at `BEGIN` is replaced once, silently.
/// Connecting takes at most the configuration's connect timeout. A call made
/// inside another call's body needs a connection of its own: with every
/// connection in use by the caller's own outer calls it would wait forever.
///
/// **Round trips.** A read or a write is `BEGIN`, its statements and
/// `COMMIT`; an exclusive write adds the lock. ``PostgresDatabase/executeMany(_:count:row:)``
/// of a single-row `INSERT` sends one statement per 65,535 parameters. A
/// query's rows are all received before the first is handed to the caller.
package final class PostgresConnections: SQLConnections {

    /// The server, database and schema.
    package let configuration: PostgresConfiguration
    /// The most connections open at once.
    package let maximumConnections: Int
    let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let tls: PostgresConnection.Configuration.TLS
    private let writeLockKey: Int64
    private let pool = Pool()
    private let watches = Watches()

    /// Connections for `configuration`; none is opened until the first call.
    /// - Throws: ``StoreError/serverUnreachable(host:port:reason:)`` when TLS
    ///   is asked for and cannot be set up.
    package init(configuration: PostgresConfiguration, maximumConnections: Int = 4) throws {
        if maximumConnections <= 0 { fatalError("Coherence: PostgresConnections needs at least one connection, not \(maximumConnections)") }
        self.configuration = configuration
        self.maximumConnections = maximumConnections
        var logger = Logger(label: "Coherence.Postgres")
        logger.logLevel = .critical
        self.logger = logger
        self.eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        self.writeLockKey = Self.lockKey(schema: configuration.schema)
        do {
            switch configuration.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw StoreError.serverUnreachable(
                host: configuration.host, port: configuration.port, reason: "TLS cannot be set up: \(error)"
            )
        }
    }

    deinit {
        for connection in pool.closeAll() {
            Self.close(connection)
        }
    }

    /// The statements sent to the server so far (each `BEGIN`, `COMMIT` and
    /// statement is one round trip), for tests and benchmarks.
    package var roundTrips: Int {
        pool.withLock { $0.roundTrips }
    }

    @discardableResult
    package func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try transaction(begin: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"], body)
    }

    @discardableResult
    package func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try transaction(begin: ["BEGIN"], body)
    }

    @discardableResult
    package func writeExclusively<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        try transaction(begin: ["BEGIN", "SELECT pg_advisory_xact_lock(\(writeLockKey))"], body)
    }

    private func transaction<T>(begin: [String], _ body: (PostgresDatabase) throws -> T) throws -> T {
        Self.preconditionNotOnEventLoop()
        var connection = try checkout()
        do {
            try start(begin, on: connection)
        } catch StoreError.serverUnreachable {
            // Died while idle in the pool, before anything of this
            // transaction ran: one fresh connection is tried.
            discard(connection)
            connection = try checkout()
            do {
                try start(begin, on: connection)
            } catch {
                if case StoreError.serverUnreachable = error { discard(connection) }
                throw error
            }
        }
        var broken = false
        defer { broken ? discard(connection) : checkin(connection) }
        let database = PostgresDatabase(connection: connection, connections: self)
        let result: T
        do {
            result = try body(database)
        } catch {
            if case StoreError.serverUnreachable = error { broken = true } else { rollback(connection) }
            throw error
        }
        do {
            try wait(on: connection, sql: "COMMIT", committing: true) {
                connection.query("COMMIT", logger: logger)
            }
        } catch {
            if case StoreError.serverUnreachable = error { broken = true }
            throw error
        }
        return result
    }

    /// Runs the `BEGIN` statements; on failure the connection is rolled back
    /// and returned to the pool (or discarded) before the error is thrown.
    private func start(_ statements: [String], on connection: PostgresConnection) throws {
        do {
            for statement in statements {
                try wait(on: connection, sql: statement) {
                    connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
        } catch {
            // A dead connection is discarded by the caller.
            if case StoreError.serverUnreachable = error {} else {
                rollback(connection)
                checkin(connection)
            }
            throw error
        }
    }

    private func rollback(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        _ = try? wait(on: connection, sql: "ROLLBACK") { connection.query("ROLLBACK", logger: logger) }
    }

    /// Waits on the calling thread for the future `make` starts on
    /// `connection`'s event loop; errors become ``StoreError``s.
    @discardableResult
    func wait<T: Sendable>(
        on connection: PostgresConnection, sql: String, committing: Bool = false,
        _ make: () -> EventLoopFuture<T>
    ) throws -> T {
        Self.preconditionNotOnEventLoop()
        pool.withLock { $0.roundTrips += 1 }
        do {
            // postgres-nio never completes a query sent on a connection that
            // is already closed: the wait also ends when the connection closes.
            guard !connection.isClosed else { throw ConnectionClosed() }
            let result = connection.eventLoop.makePromise(of: T.self)
            let once = Once()
            guard watches.setPending(on: connection, { error in if once.first() { result.fail(error) } }) else {
                throw ConnectionClosed()
            }
            defer { _ = watches.setPending(on: connection, nil) }
            make().whenComplete { outcome in
                if once.first() { result.completeWith(outcome) }
            }
            return try result.futureResult.wait()
        } catch {
            throw storeError(error, sql: sql, connection: connection, committing: committing)
        }
    }

    /// The connection closed before its statement completed.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection is closed" }
    }

    /// True for the first caller only.
    private final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false  // Guarded by `lock`.

        func first() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if done { return false }
            done = true
            return true
        }
    }

    // MARK: - Pool

    /// A free connection: an idle one that is still open, or a new one when
    /// fewer than ``maximumConnections`` are open; otherwise waits for one.
    private func checkout() throws -> PostgresConnection {
        while true {
            switch pool.take(maximum: maximumConnections) {
            case .idle(let connection) where connection.isClosed:
                discard(connection)
            case .idle(let connection):
                return connection
            case .open:
                do {
                    return try open()
                } catch {
                    pool.discard()
                    throw error
                }
            }
        }
    }

    /// Closes `connection`, which failed, and forgets it.
    private func discard(_ connection: PostgresConnection) {
        Self.close(connection)
        pool.discard()
    }

    /// Gives `connection` back to the pool, or discards it when it is closed.
    private func checkin(_ connection: PostgresConnection) {
        if connection.isClosed {
            discard(connection)
        } else {
            pool.giveBack(connection)
        }
    }

    /// postgres-nio's configuration of a connection to the store's server.
    var connectionConfiguration: PostgresConnection.Configuration {
        var nioConfiguration = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.user,
            password: configuration.password, database: configuration.database, tls: tls
        )
        let timeout = configuration.connectTimeout.components
        nioConfiguration.options.connectTimeout = .nanoseconds(
            timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000
        )
        return nioConfiguration
    }

    /// A number for a new connection, never given before.
    func nextConnectionID() -> Int {
        pool.nextConnectionID()
    }

    private func open() throws -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: eventLoopGroup.next(), configuration: connectionConfiguration,
                id: pool.nextConnectionID(), logger: logger
            ).wait()
        } catch {
            throw connectError(error)
        }
        watches.watch(connection)
        let setPath = "SET search_path TO \(Self.quoted(configuration.schema))"
        do {
            try wait(on: connection, sql: setPath) {
                connection.query(PostgresQuery(unsafeSQL: setPath), logger: logger)
            }
        } catch {
            Self.close(connection)
            throw error
        }
        return connection
    }

    /// Closes `connection` without waiting, keeping it alive until it is
    /// closed (postgres-nio requires a connection closed before it is released).
    private static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    // MARK: - Support

    /// Traps when called on a SwiftNIO event-loop thread, where waiting for
    /// postgres-nio would deadlock.
    static func preconditionNotOnEventLoop() {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            fatalError(
                "Coherence's PostgreSQL store was called on a SwiftNIO event loop, which it would block: "
                    + "call Coherence from a managed object context's queue (perform), the main thread "
                    + "or a task, not from an event loop"
            )
        }
    }

    /// `identifier` as a PostgreSQL quoted identifier.
    package static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The advisory lock key of a schema's exclusive writes: FNV-1a (64 bits) of its
    /// name, the same in every process.
    package static func lockKey(schema: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "Coherence write lock:\(schema)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    private func connectError(_ error: any Error) -> StoreError {
        if let error = error as? PSQLError, error.code == .server {
            return storeError(error, sql: nil, connection: nil, committing: false)
        }
        return .serverUnreachable(
            host: configuration.host, port: configuration.port, reason: Self.describe(error)
        )
    }

    private func storeError(_ error: any Error, sql: String?, connection: PostgresConnection?, committing: Bool) -> StoreError {
        if let error = error as? StoreError { return error }
        let lost = committing
            ? "the connection was lost while committing, so whether the transaction committed is unknown"
            : "the connection was lost; the transaction did not commit"
        if let error = error as? PSQLError {
            if error.code == .server, let info = error.serverInfo {
                let code = info[.sqlState] ?? ""
                let message = info[.message] ?? ""
                // Class 08 (connection exception) and 57P0x (the server
                // ended the session): the connection is gone.
                if code.hasPrefix("08") || code.hasPrefix("57P") {
                    return .serverUnreachable(
                        host: configuration.host, port: configuration.port, reason: "\(lost) (\(code): \(message))"
                    )
                }
                return .postgres(code: code, message: message, sql: sql)
            }
            if connection?.isClosed ?? true || [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code) {
                return .serverUnreachable(
                    host: configuration.host, port: configuration.port, reason: "\(lost) (\(Self.describe(error)))"
                )
            }
            return .postgres(code: "", message: Self.describe(error), sql: sql)
        }
        if connection?.isClosed ?? false {
            return .serverUnreachable(host: configuration.host, port: configuration.port, reason: "\(lost) (\(error))")
        }
        return .postgres(code: "", message: String(describing: error), sql: sql)
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        switch error.underlying {
        case let underlying as PSQLError: return "\(error.code): \(underlying.code)"
        case let underlying?: return "\(error.code): \(underlying)"
        case nil: return "\(error.code)"
        }
    }
}
