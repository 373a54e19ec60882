@testable import Coherence
@testable import CoherencePostgres
import Foundation
import PostgresNIO
import Testing

/// Transactions, the pool, reconnecting and threads.
extension PostgresConnectionTests {
    private struct BodyFailed: Error, Equatable {}

    @Test("A write whose body throws rolls back, and the body's error is rethrown",
          .enabled(if: PostgresTestServer.shouldRun))
    func writeRollsBack() throws {
        let connections = try connections()
        try connections.write { try $0.execute("CREATE TABLE t (n BIGINT)", []) }
        #expect(throws: BodyFailed()) {
            try connections.write { database in
                try database.execute("INSERT INTO t (n) VALUES (?)", [.integer(1)])
                #expect(try database.int64("SELECT count(*) FROM t") == 1)
                throw BodyFailed()
            }
        }
        #expect(try connections.read { try $0.int64("SELECT count(*) FROM t") } == 0)
        // A server error inside the body: rolled back too, the connection usable after.
        #expect {
            try connections.write { database in
                try database.execute("INSERT INTO t (n) VALUES (?)", [.integer(2)])
                try database.execute("INSERT INTO missing (n) VALUES (?)", [.integer(3)])
            }
        } throws: { error in
            guard case StoreError.postgres(code: "42P01", _, let sql) = error else { return false }
            return sql == "INSERT INTO missing (n) VALUES (?)"
        }
        try connections.write { try $0.execute("INSERT INTO t (n) VALUES (?)", [.integer(4)]) }
        #expect(try connections.read { try $0.int64s("SELECT n FROM t") } == [4])
    }

    @Test("A read sees one snapshot: a write committed meanwhile is not visible until the next read",
          .enabled(if: PostgresTestServer.shouldRun))
    func readIsOneSnapshot() throws {
        let connections = try connections()
        try connections.write { try $0.execute("CREATE TABLE t (n BIGINT)", []) }
        let counts = try connections.read { database in
            let before = try database.int64("SELECT count(*) FROM t")
            try connections.write { try $0.execute("INSERT INTO t (n) VALUES (1)", []) }
            return [before, try database.int64("SELECT count(*) FROM t")]
        }
        #expect(counts == [0, 0])
        #expect(try connections.read { try $0.int64("SELECT count(*) FROM t") } == 1)
        #expect {
            try connections.read { try $0.execute("INSERT INTO t (n) VALUES (2)", []) }
        } throws: { error in
            guard case StoreError.postgres(code: "25006", _, _) = error else { return false }
            return true
        }
    }

    /// Issue 32: saves of several processes run side by side. While one
    /// write is open, another pool (another process) commits its own write,
    /// and the server shows no advisory lock held; an exclusive write holds one.
    @Test("An ordinary write takes no schema-wide lock: another process's write commits while it is open",
          .enabled(if: PostgresTestServer.shouldRun))
    func ordinaryWritesRunSideBySide() throws {
        let configuration = try PostgresTestServer.newSchemaConfiguration()
        let first = try PostgresConnections(configuration: configuration)
        let second = try PostgresConnections(configuration: configuration)
        try first.write { try $0.execute("CREATE TABLE events (what TEXT)", []) }
        // This schema's lock (a bigint key: its high and low halves).
        let key = UInt64(bitPattern: PostgresConnections.lockKey(schema: configuration.schema))
        func advisoryLocks() throws -> Int64? {
            try second.read {
                try $0.int64("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = \(key >> 32) AND objid = \(key & 0xffff_ffff) AND objsubid = 1")
            }
        }
        let seen = try first.write { database -> (locks: Int64?, committed: Int64?) in
            try database.execute("INSERT INTO events (what) VALUES ('first')", [])
            // Checked first: with the lock held, the other write would wait forever.
            let locks = try advisoryLocks()
            guard locks == 0 else { return (locks, nil) }
            try second.write { try $0.execute("INSERT INTO events (what) VALUES ('second')", []) }
            return (locks, try second.read { try $0.int64("SELECT count(*) FROM events WHERE what = 'second'") })
        }
        #expect(seen.locks == 0, "no advisory lock is held during an ordinary write")
        #expect(seen.committed == 1, "the other write committed while the first was open")
        let exclusiveLocks = try first.writeExclusively { _ in try advisoryLocks() }
        #expect(exclusiveLocks == 1, "an exclusive write holds the schema's advisory lock")
    }

    @Test("Two exclusive writes (opening, migrating) from two threads run one after another: the second starts after the first commits",
          .enabled(if: PostgresTestServer.shouldRun))
    func exclusiveWritesAreSerialized() async throws {
        let configuration = try PostgresTestServer.newSchemaConfiguration()
        let first = try PostgresConnections(configuration: configuration)
        // Another pool, as another process would have.
        let second = try PostgresConnections(configuration: configuration)
        try first.write { try $0.execute("CREATE TABLE events (n BIGSERIAL, what TEXT)", []) }
        let observer = try PostgresConnections(configuration: configuration, maximumConnections: 1)
        // Blocking waits run on a plain thread, never on the concurrency pool.
        let secondSaw = try await PlainThread.run { () throws -> Int64? in
            let firstInside = DispatchSemaphore(value: 0)
            let secondWaits = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            let outcomes = Locked<[String: Result<Int64?, any Error>]>([:])
            Thread {
                let outcome = Result<Int64?, any Error> {
                    try first.writeExclusively { database in
                        try database.execute("INSERT INTO events (what) VALUES ('first begins')", [])
                        firstInside.signal()
                        secondWaits.wait()
                        try database.execute("INSERT INTO events (what) VALUES ('first ends')", [])
                    }
                    return nil
                }
                outcomes.withLock { $0["first"] = outcome }
                done.signal()
            }.start()
            firstInside.wait()
            Thread {
                let outcome = Result<Int64?, any Error> {
                    try second.writeExclusively { database in
                        try database.execute("INSERT INTO events (what) VALUES ('second begins')", [])
                        return try database.int64("SELECT count(*) FROM events WHERE what = 'first ends'")
                    }
                }
                outcomes.withLock { $0["second"] = outcome }
                done.signal()
            }.start()
            // Wait (with a deadline) until the second write waits for the lock.
            let deadline = Date.now.addingTimeInterval(60)
            func waiting() throws -> Int64? {
                try observer.read { try $0.int64("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") }
            }
            while try waiting() != 1 {
                guard Date.now < deadline else {
                    Issue.record("the second write never waited for the first")
                    break
                }
                Thread.sleep(forTimeInterval: 0.001)
            }
            secondWaits.signal()
            #expect(done.wait(timeout: .now() + 120) == .success)
            #expect(done.wait(timeout: .now() + 120) == .success)
            _ = try #require(outcomes.withLock { $0["first"] }).get()
            return try #require(outcomes.withLock { $0["second"] }).get()
        }
        #expect(secondSaw == 1, "the second write saw the first one's last row")
        let order = try observer.read { try $0.strings("SELECT what FROM events ORDER BY n") }
        #expect(order == ["first begins", "first ends", "second begins"])
    }

    @Test("executeMany of 20,000 rows lands every row, in as many INSERT statements as 65,535 parameters allow",
          .enabled(if: PostgresTestServer.shouldRun))
    func executeManyBatches() throws {
        let connections = try connections()
        try connections.write {
            try $0.execute("CREATE TABLE r (a BIGINT, b TEXT, c DOUBLE PRECISION, d BYTEA, e BOOLEAN, f BIGINT, g TEXT)", [])
        }
        func row(_ n: Int) -> [StoreValue] {
            let number = StoreValue.integer(Int64(n))
            let text = StoreValue.string("row \(n) '?'")
            let real = StoreValue.double(Double(n) / 4)
            let bytes = StoreValue.data(Data([UInt8(n % 256)]))
            return [number, text, real, bytes, .bool(n % 2 == 0), .null, .decimal(Decimal(n))]
        }
        let rows = (0..<20_000).map(row)
        let roundTrips = try connections.write { database in
            let before = connections.roundTrips
            try database.executeMany("INSERT INTO r (a, b, c, d, e, f, g) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            return connections.roundTrips - before
        }
        // 140,000 parameters: two full statements of 9,362 rows (the second
        // reuses the first's text) and one of the remaining 1,276.
        #expect(roundTrips == 3)
        try connections.read { database throws in
            #expect(try database.int64("SELECT count(*) FROM r") == 20_000)
            #expect(try database.int64("SELECT sum(a) FROM r") == 199_990_000)
            #expect(try database.string("SELECT b FROM r WHERE a = 9999") == "row 9999 '?'")
            #expect(try database.string("SELECT b FROM r WHERE a = 19999") == "row 19999 '?'")
            #expect(try database.int64("SELECT count(*) FROM r WHERE e") == 10_000)
            #expect(try database.int64("SELECT count(*) FROM r WHERE f IS NULL") == 20_000)
        }
        // Any other statement runs once per row.
        let updates = try connections.write { database in
            let before = connections.roundTrips
            try database.executeMany("UPDATE r SET f = ? WHERE a = ?", [[.integer(1), .integer(1)], [.integer(2), .integer(2)]])
            return connections.roundTrips - before
        }
        #expect(updates == 2)
        #expect(try connections.read { try $0.int64("SELECT sum(f) FROM r") } == 3)
    }

    @Test("A connection terminated by the server is replaced: the next call reconnects and succeeds",
          .enabled(if: PostgresTestServer.shouldRun))
    func reconnectsAfterTermination() throws {
        let connections = try connections(maximum: 1)
        let admin = try PostgresConnections(configuration: try PostgresTestServer.configuration(), maximumConnections: 1)
        try connections.write { try $0.execute("CREATE TABLE t (n BIGINT)", []) }

        // Between two calls.
        let pid = try #require(try connections.read { try $0.int64("SELECT pg_backend_pid()") })
        #expect(try admin.read { try $0.int64("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", [.integer(pid)]) } == 1)
        try admin.write { try $0.execute("SELECT pg_terminate_backend(?::integer)", [.integer(pid)]) }
        let newPID = try connections.read { try $0.int64("SELECT pg_backend_pid()") }
        #expect(newPID != nil && newPID != pid)

        // During a write: it throws, nothing of it is kept, and the next call succeeds.
        #expect {
            try connections.write { database in
                try database.execute("INSERT INTO t (n) VALUES (1)", [])
                let pid = try database.int64("SELECT pg_backend_pid()")!
                try admin.write { try $0.execute("SELECT pg_terminate_backend(?::integer)", [.integer(pid)]) }
                try database.execute("INSERT INTO t (n) VALUES (2)", [])
            }
        } throws: { error in
            guard case StoreError.serverUnreachable(host: "127.0.0.1", _, let reason) = error else { return false }
            return reason.contains("did not commit")
        }
        try connections.write { try $0.execute("INSERT INTO t (n) VALUES (3)", []) }
        #expect(try connections.read { try $0.int64s("SELECT n FROM t") } == [3])
    }

    @Test("An unreachable server throws serverUnreachable naming host and port, without hanging")
    func unreachableServer() throws {
        // Port 1 on the loopback: nothing listens there.
        let configuration = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "nobody", database: "none", tls: .disable)
        let connections = try PostgresConnections(configuration: configuration)
        #expect {
            try connections.read { try $0.int64("SELECT 1") }
        } throws: { error in
            guard case StoreError.serverUnreachable(host: "127.0.0.1", port: 1, _) = error else { return false }
            return "\(error)".contains("127.0.0.1:1")
        }
    }

    @Test("Called from the main actor, the call waits without deadlock", .enabled(if: PostgresTestServer.shouldRun))
    @MainActor
    func fromMainActor() throws {
        let connections = try connections()
        #expect(try connections.write { try $0.int64("SELECT ? + 1", [.integer(41)]) } == 42)
        #expect(try connections.read { try $0.string("SELECT current_schema()") } == connections.configuration.schema)
    }

    @Test("Called inside perform on a private-queue context, the call waits without deadlock",
          .enabled(if: PostgresTestServer.shouldRun))
    func fromPerform() async throws {
        let connections = try connections(maximum: 1)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        let result = try await context.perform {
            try connections.write { database in
                try database.execute("CREATE TABLE t (n BIGINT)", [])
                try database.execute("INSERT INTO t (n) VALUES (?)", [.integer(7)])
            }
            return try connections.read { try $0.int64s("SELECT n FROM t") }
        }
        #expect(result == [7])
        let fromWait = try context.performAndWait { try connections.read { try $0.int64("SELECT max(n) FROM t") } }
        #expect(fromWait == 7)
    }

    @Test("Called on a SwiftNIO event loop, a call traps with a message saying to use a context's queue")
    func onEventLoopTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let configuration = PostgresConfiguration(host: "127.0.0.1", port: 1, user: "u", database: "d", tls: .disable)
            let connections = try PostgresConnections(configuration: configuration)
            try await MultiThreadedEventLoopGroup.singleton.next().submit {
                _ = try? connections.read { try $0.int64("SELECT 1") }
            }.get()
        }
        #expect(result.standardError.contains("event loop"))
        #expect(result.standardError.contains("context's queue"))
    }

    @Test("TLS required of a server without TLS is refused, never silently plain; prefer falls back to plain",
          .enabled(if: PostgresTestServer.shouldRun))
    func requiredTLSIsNotFaked() throws {
        var configuration = try PostgresTestServer.configuration()
        configuration.tls = .require
        let required = try PostgresConnections(configuration: configuration)
        #expect {
            try required.read { try $0.int64("SELECT 1") }
        } throws: { error in
            guard case StoreError.serverUnreachable(host: configuration.host, port: configuration.port, let reason) = error else {
                return false
            }
            return reason.contains("ssl")
        }
        configuration.tls = .prefer
        let preferred = try PostgresConnections(configuration: configuration)
        #expect(try preferred.read { try $0.int64("SELECT 1") } == 1)
    }
}
