import Coherence
import CoherencePostgres
import Foundation
import PostgresNIO

/// The PostgreSQL insert and fetch workloads: raw postgres-nio (the
/// baseline) and Coherence's `PostgresStore`, on the same `Item` rows as the
/// SQLite ones (row i holding i in its ten columns), against the server that
/// `COHERENCE_POSTGRES_URL` names (`.ci/with-postgres` starts one). Every run
/// uses a schema of its own, created before and dropped after it (neither
/// measured), so that runs never add to each other's data.
package enum PostgresWorkloads {
    /// The server's URL, or nil when `COHERENCE_POSTGRES_URL` is not set.
    package static var serverURL: String? {
        ProcessInfo.processInfo.environment["COHERENCE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// PostgreSQL's limit on the parameters of one statement, which both
    /// sides batch their inserted rows by.
    static let maximumParameters = 65_535

    /// The columns of the `Item` table, for the raw side's SQL.
    static let columns = (0..<10).map { "i\($0)" }.joined(separator: ", ")

    // MARK: - Insert

    /// What one insert run did: the rows it wrote, and the round trips of
    /// Coherence's `save()` (0 for the raw side).
    package struct Inserted: Sendable {
        package var rows: Int
        package var saveRoundTrips: Int
    }

    /// A side of the insert workload: `rows` items written to a new table in
    /// a new schema, in one transaction; connecting and creating the table are
    /// measured, as opening the new file is in the SQLite workload.
    package typealias InsertWorkload = @Sendable (_ url: String, _ rows: Int, _ meter: any Meter) async throws -> Inserted

    /// The sides of the insert workload, baseline first.
    package static let insertWorkloads: KeyValuePairs<String, InsertWorkload> = [
        "Postgres raw": insertRaw,
        "Postgres Coherence": { try await insertCoherence(url: $0, rows: $1, meter: $2) },
        "Postgres Coherence history": { try await insertCoherence(url: $0, rows: $1, meter: $2, history: true) },
    ]

    /// Baseline: one connection, one transaction, multi-row `INSERT`s of up to
    /// 65,535 bound parameters each (6,553 rows of ten columns): the fastest
    /// way a user of postgres-nio would reasonably write it, and the same
    /// batching as Coherence's save, so that the ratio measures Coherence's
    /// object layer rather than a different wire strategy. The text of a full
    /// statement is built once and reused, as a prepared statement would be.
    static func insertRaw(url: String, rows: Int, meter: any Meter) async throws -> Inserted {
        let configuration = try PostgresConfiguration(url: url)
        let schema = try await createSchema(configuration)
        let table = "\(quoted(schema)).item"
        let rowsPerStatement = maximumParameters / 10
        meter.start()
        let connection = try await connect(configuration)
        try await connection.query("BEGIN", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (i0 BIGINT, i1 BIGINT, i2 BIGINT, i3 BIGINT, i4 BIGINT, i5 BIGINT, i6 BIGINT, i7 BIGINT, i8 BIGINT, i9 BIGINT)"), logger: logger)
        let fullStatement = insertStatement(table, rows: rowsPerStatement)
        for start in stride(from: 0, to: rows, by: rowsPerStatement) {
            let count = min(rowsPerStatement, rows - start)
            var bindings = PostgresBindings(capacity: count * 10)
            for i in start..<start + count {
                let value = Int64(i)
                for _ in 0..<10 { bindings.append(value) }
            }
            let sql = count == rowsPerStatement ? fullStatement : insertStatement(table, rows: count)
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        }
        try await connection.query("COMMIT", logger: logger)
        meter.stop()
        try await connection.close()
        try await dropSchema(configuration, schema)
        return Inserted(rows: rows, saveRoundTrips: 0)
    }

    /// `INSERT INTO table VALUES ($1, …, $10), ($11, …), …` for `rows` rows.
    static func insertStatement(_ table: String, rows: Int) -> String {
        var sql = "INSERT INTO \(table) VALUES "
        sql.reserveCapacity(rows * 70)
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<10 {
                sql += column == 0 ? "$\(row * 10 + 1)" : ", $\(row * 10 + column + 1)"
            }
            sql += ")"
        }
        return sql
    }

    /// Coherence: a `PostgresStore` opened in the new schema, managed objects
    /// inserted in a context, one `save()`. Also counts the save's round trips.
    /// With `history`, persistent history is on (the save also writes its
    /// history transaction and sends its `NOTIFY`).
    static func insertCoherence(url: String, rows: Int, meter: any Meter, history: Bool = false) async throws -> Inserted {
        var configuration = try PostgresConfiguration(url: url)
        configuration.schema = try await createSchema(configuration)
        let roundTrips = try insertAndSave(configuration, rows: rows, meter: meter, history: history)
        try await dropSchema(configuration, configuration.schema)
        return Inserted(rows: rows, saveRoundTrips: roundTrips)
    }

    /// The measured part of ``insertCoherence(url:rows:meter:)``; returns the
    /// round trips of the save.
    private static func insertAndSave(_ configuration: PostgresConfiguration, rows: Int, meter: any Meter, history: Bool) throws -> Int {
        meter.start()
        let description = PersistentStoreDescription.postgres(configuration)
        description.persistentHistoryTracking = history
        let context = try Stack.context(Stack.itemModel, description)
        let roundTrips = try context.performAndWait {
            Stack.insertItems(rows, in: context)
            let store = context.persistentStoreCoordinator!.persistentStores[0] as! PostgresStore
            let before = store.roundTrips
            try context.save()
            return store.roundTrips - before
        }
        meter.stop()
        withExtendedLifetime(context) {}
        return roundTrips
    }

    // MARK: - Fetch

    /// A side of the fetch workload: every row of the `Item` table in
    /// `schema` (written by Coherence, ``itemSchema(url:count:)``), every
    /// column read. Each side connects and reads one row before the measured
    /// part, and closes after it. Returns the sum of every column of every row.
    package typealias FetchWorkload = @Sendable (_ url: String, _ schema: String, _ meter: any Meter) async throws -> Int64

    /// The sides of the fetch workload, baseline first.
    package static let fetchWorkloads: KeyValuePairs<String, FetchWorkload> = [
        "Postgres raw": fetchRaw,
        "Postgres Coherence": fetchCoherence,
    ]

    /// Baseline: one `SELECT` of every row, streamed by postgres-nio's
    /// `PostgresRowSequence`, each row decoded into ten `Int64`s.
    static func fetchRaw(url: String, schema: String, meter: any Meter) async throws -> Int64 {
        let configuration = try PostgresConfiguration(url: url)
        let connection = try await connect(configuration)
        let sql = "SELECT \(columns) FROM \(quoted(schema)).\"Item\""
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql + " LIMIT 1"), logger: logger) {
            keep(row)
        }
        var total: Int64 = 0
        meter.start()
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await row in rows {
            let (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) = try row.decode(
                (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64).self)
            total &+= i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9
        }
        meter.stop()
        try await connection.close()
        return total
    }

    /// Coherence: a fetch request with `returnsObjectsAsFaults = false`,
    /// reading every attribute of each object.
    static func fetchCoherence(url: String, schema: String, meter: any Meter) throws -> Int64 {
        var configuration = try PostgresConfiguration(url: url)
        configuration.schema = schema
        return try Workloads.fetchCoherence(.postgres(configuration), meter: meter)
    }

    /// A new schema holding `count` items (row i holds i), written by
    /// Coherence, so that both sides of the fetch workload read the same
    /// rows; drop it with ``dropSchema(url:_:)``.
    package static func itemSchema(url: String, count: Int) async throws -> String {
        var configuration = try PostgresConfiguration(url: url)
        configuration.schema = try await createSchema(configuration)
        let context = try Stack.context(Stack.itemModel, .postgres(configuration))
        try context.performAndWait {
            for start in stride(from: 0, to: count, by: 50_000) {
                Stack.insertItems(min(50_000, count - start), from: start, in: context)
                try context.save()
                context.reset()
            }
        }
        return configuration.schema
    }

    // MARK: - Support

    static let logger: Logger = {
        var logger = Logger(label: "CoherenceBenchmarks.Postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// A connection as Coherence's store opens one (same TLS mode).
    static func connect(_ configuration: PostgresConfiguration) async throws -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        switch configuration.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: configuration.database, tls: tls),
            id: 1, logger: logger)
    }

    /// Runs `statements` on a connection of their own.
    static func administer(_ configuration: PostgresConfiguration, _ statements: [String]) async throws {
        let connection = try await connect(configuration)
        do {
            for statement in statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// A new, empty schema with a name no other run uses.
    static func createSchema(_ configuration: PostgresConfiguration) async throws -> String {
        let schema = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await administer(configuration, ["CREATE SCHEMA \(quoted(schema))"])
        return schema
    }

    static func dropSchema(_ configuration: PostgresConfiguration, _ schema: String) async throws {
        try await administer(configuration, ["DROP SCHEMA IF EXISTS \(quoted(schema)) CASCADE"])
    }

    /// Drops `schema` and everything in it.
    package static func dropSchema(url: String, _ schema: String) async throws {
        try await dropSchema(try PostgresConfiguration(url: url), schema)
    }

    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
