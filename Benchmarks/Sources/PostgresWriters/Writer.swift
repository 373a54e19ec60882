import Coherence
import CoherencePostgres
import Foundation
import PostgresNIO
import Workloads

/// One writer process's work, as its command line carries it:
/// `--writer <scenario> <side> <schema> <writerIndex> <saves> [history]`.
struct WriterTask: Sendable {
    let scenario: Scenario
    let side: Side
    let schema: String
    let index: Int
    let saves: Int
    /// Whether the store keeps persistent history (Coherence side only).
    let history: Bool

    init(scenario: Scenario, side: Side, schema: String, index: Int, saves: Int, history: Bool) {
        self.scenario = scenario
        self.side = side
        self.schema = schema
        self.index = index
        self.saves = saves
        self.history = history
    }

    /// The task a writer's command line names.
    init(arguments: [String]) throws {
        guard arguments.count >= 7, arguments[1] == "--writer",
              let scenario = Scenario(rawValue: arguments[2]), let side = Side(rawValue: arguments[3]),
              let index = Int(arguments[5]), let saves = Int(arguments[6]), saves >= 0 else {
            throw Failure("usage: postgres-writers --writer <scenario> <side> <schema> <writerIndex> <saves> [history]; got \(arguments.dropFirst())")
        }
        self.init(scenario: scenario, side: side, schema: arguments[4], index: index, saves: saves,
                  history: arguments.count > 7 && arguments[7] == "history")
    }

    /// The command line's arguments for this task.
    var arguments: [String] {
        ["--writer", scenario.rawValue, side.rawValue, schema, String(index), String(saves)] + (history ? ["history"] : [])
    }
}

/// What one writer did, printed by the writer as one line of JSON.
struct WriterReport: Codable, Sendable {
    /// Saves that committed.
    var saves = 0
    /// Saves refused by a conflict and tried again.
    var retries = 0
    /// Errors thrown by `save()` other than the retried conflicts (for
    /// object-trump: every error thrown).
    var errors = 0
    /// From the start signal to the last save.
    var seconds = 0.0
}

// MARK: - The raw side

/// The raw side's SQL: the statements Coherence's PostgreSQL store sends for
/// the same saves (`SQLStatements`, parameters numbered as the store numbers
/// them), plus the version-checked counter loop of the contended scenario.
enum RawSQL {
    /// The key of one new row, from the entity's sequence.
    static let nextKeys = #"SELECT nextval('"Row_Z_PK_seq"')"#
    /// Coherence's versioned update: every column, in the entity's order.
    static let update = #"UPDATE "Row" SET "Z_OPT" = "Z_OPT" + 1, "writer" = $1, "serial" = $2, "count" = $3 WHERE "Z_PK" = $4 AND "Z_OPT" = $5 RETURNING "Z_OPT""#
    /// Coherence's insert; `Z_OPT` (1) is bound, as the store binds it.
    static let insert = #"INSERT INTO "Row" ("Z_PK", "Z_OPT", "writer", "serial", "count") VALUES ($1, $2, $3, $4, $5)"#
    /// Whether the store made the key sequence the raw side reads.
    static let keySequenceExists = #"SELECT to_regclass('"Row_Z_PK_seq"') IS NOT NULL"#
    static let counterKey = #"SELECT "Z_PK" FROM "Row" WHERE "writer" = -1"#
    static let readCounter = #"SELECT "count", "Z_OPT" FROM "Row" WHERE "Z_PK" = $1"#
    /// The counter's version-checked increment; a returned row means it applied.
    static let writeCounter = #"UPDATE "Row" SET "count" = $1, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" = $2 AND "Z_OPT" = $3 RETURNING "Z_OPT""#

    static let logger: Logger = {
        var logger = Logger(label: "postgres-writers")
        logger.logLevel = .critical
        return logger
    }()

    /// A connection as Coherence's store opens one (same TLS mode), its
    /// `search_path` set to `schema`.
    static func connect(schema: String) async throws -> PostgresConnection {
        let configuration = try Writers.configuration(schema: schema)
        let tls: PostgresConnection.Configuration.TLS
        switch configuration.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: configuration.database, tls: tls),
            id: 1, logger: logger)
        do {
            try await execute("SET search_path TO \"\(schema.replacingOccurrences(of: "\"", with: "\"\""))\"", on: connection)
        } catch {
            try? await connection.close()
            throw error
        }
        return connection
    }

    /// Runs `body` on a new connection to `schema`, closed after it.
    static func withConnection<T: Sendable>(schema: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await connect(schema: schema)
        let result: T
        do {
            result = try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return result
    }

    /// Runs one statement (one round trip) and returns its rows.
    @discardableResult
    static func execute(_ sql: String, _ values: Int64..., on connection: PostgresConnection) async throws -> [PostgresRow] {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { bindings.append(value) }
        return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).collect()
    }

    /// The single `BIGINT` of a one-row, one-column result.
    static func int64(_ sql: String, _ values: Int64..., on connection: PostgresConnection) async throws -> Int64 {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { bindings.append(value) }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).collect()
        guard rows.count == 1 else { throw Failure("\(sql) returned \(rows.count) rows, not one") }
        return try rows[0].decode(Int64.self)
    }
}

/// A writer of the raw side: one postgres-nio connection, the same
/// transactions as Coherence's, one statement per round trip.
enum RawWriter {
    /// Connects, prepares, waits for `go`, saves; the report of the saves.
    static func run(_ task: WriterTask) async throws -> WriterReport {
        try await RawSQL.withConnection(schema: task.schema) { (connection: PostgresConnection) async throws -> WriterReport in
            switch task.scenario {
            case .uncontended:
                try WriterChild.waitForGo()
                let start = ContinuousClock.now
                var report = try await insertAndUpdate(task, on: connection)
                report.seconds = seconds(since: start)
                return report
            case .contendedError:
                let key = try await RawSQL.int64(RawSQL.counterKey, on: connection)
                try WriterChild.waitForGo()
                let start = ContinuousClock.now
                var report = try await increment(key, times: task.saves, on: connection)
                report.seconds = seconds(since: start)
                return report
            case .contendedObjectTrump:
                throw Failure("the raw side has no object-trump scenario")
            }
        }
    }

    /// The uncontended saves: each inserts a row and updates the one the
    /// previous save inserted.
    static func insertAndUpdate(_ task: WriterTask, on connection: PostgresConnection) async throws -> WriterReport {
        var report = WriterReport()
        var previous: Int64?
        for serial in 0..<Int64(task.saves) {
            previous = try await save(writer: Int64(task.index), serial: serial, previous: previous, on: connection)
            report.saves += 1
        }
        return report
    }

    /// One save as Coherence's store sends it: `BEGIN`, the new row's key
    /// from the sequence, the versioned update of the previous row (whose
    /// version is 1, written by this writer only), the insert, `COMMIT`.
    /// Returns the new row's key.
    static func save(writer: Int64, serial: Int64, previous: Int64?, on connection: PostgresConnection) async throws -> Int64 {
        try await RawSQL.execute("BEGIN", on: connection)
        let keys = try await RawSQL.execute(RawSQL.nextKeys, 1, on: connection)
        guard keys.count == 1 else { throw Failure("writer \(writer): the key sequence gave \(keys.count) keys for one row") }
        let key = try keys[0].decode(Int64.self)
        if let previous {
            let updated = try await RawSQL.execute(RawSQL.update, writer, serial - 1, 1, previous, 1, on: connection)
            guard updated.count == 1 else {
                throw Failure("writer \(writer): row \(previous) was changed by someone else (a conflict no other writer can cause)")
            }
        }
        try await RawSQL.execute(RawSQL.insert, key, 1, writer, serial, 0, on: connection)
        try await RawSQL.execute("COMMIT", on: connection)
        return key
    }

    /// The contended saves: a version-checked read-increment-write of the
    /// counter, rolled back and tried again whenever another writer's
    /// increment got in between.
    static func increment(_ key: Int64, times: Int, on connection: PostgresConnection) async throws -> WriterReport {
        var report = WriterReport()
        while report.saves < times {
            try await RawSQL.execute("BEGIN", on: connection)
            let read = try await RawSQL.execute(RawSQL.readCounter, key, on: connection)
            guard let row = read.first else { throw Failure("the counter row \(key) is gone") }
            let (count, version) = try row.decode((Int64, Int64).self)
            let written = try await RawSQL.execute(RawSQL.writeCounter, count + 1, key, version, on: connection)
            if written.count == 1 {
                try await RawSQL.execute("COMMIT", on: connection)
                report.saves += 1
            } else {
                try await RawSQL.execute("ROLLBACK", on: connection)
                report.retries += 1
                guard report.retries < Writers.maximumFailures else { throw Failure("\(report.retries) retries: giving up") }
            }
        }
        return report
    }
}

// MARK: - The Coherence side

/// A writer of the Coherence side: one private-queue context on a
/// coordinator and `PostgresStore` of its own, `performAndWait` and
/// `save()` for each save.
enum CoherenceWriter {
    /// Opens the store, prepares, waits for `go`, saves; the report of the saves.
    static func run(_ task: WriterTask) throws -> WriterReport {
        let context = try Stack.context(Writers.model, Writers.storeDescription(schema: task.schema, history: task.history))
        context.mergePolicy = task.scenario == .contendedObjectTrump ? .mergeByPropertyObjectTrump : .error
        switch task.scenario {
        case .uncontended:
            try WriterChild.waitForGo()
            let start = ContinuousClock.now
            var report = try insertAndUpdate(task, in: context)
            report.seconds = seconds(since: start)
            return report
        case .contendedError, .contendedObjectTrump:
            let counter = try fetchCounter(in: context)
            try WriterChild.waitForGo()
            let start = ContinuousClock.now
            var report: WriterReport
            if task.scenario == .contendedError {
                report = try incrementRetryingConflicts(counter, times: task.saves, in: context)
            } else {
                report = overwrite(counter, task, in: context)
            }
            report.seconds = seconds(since: start)
            return report
        }
    }

    /// The counter row the parent saved.
    static func fetchCounter(in context: ManagedObjectContext) throws -> Row {
        try context.performAndWait { () throws -> Row in
            guard let counter = try context.fetch(FetchRequest<Row>()).first else {
                throw Failure("the schema holds no counter row")
            }
            return counter
        }
    }

    /// The uncontended saves: each inserts a row and updates the one the
    /// previous save inserted.
    static func insertAndUpdate(_ task: WriterTask, in context: ManagedObjectContext) throws -> WriterReport {
        var report = WriterReport()
        var previous: Row?
        for serial in 0..<Int64(task.saves) {
            let last = previous
            previous = try context.performAndWait { () throws -> Row in
                let row = Row(context: context)
                row.writer = Int64(task.index)
                row.serial = serial
                if let last { last.count += 1 }
                try context.save()
                return row
            }
            report.saves += 1
        }
        return report
    }

    /// The contended saves under `.error`: on a conflict, the changes are
    /// rolled back, the counter refreshed from the store and incremented
    /// again, until the increment is saved.
    static func incrementRetryingConflicts(_ counter: Row, times: Int, in context: ManagedObjectContext) throws -> WriterReport {
        var report = WriterReport()
        for _ in 0..<times {
            try context.performAndWait { () throws -> Void in
                counter.count += 1
                while true {
                    do {
                        try context.save()
                        return
                    } catch is MergeError {
                        report.retries += 1
                    } catch {
                        report.errors += 1
                        WriterChild.note(error)
                    }
                    guard report.retries + report.errors < Writers.maximumFailures else {
                        throw Failure("\(report.retries) conflicts and \(report.errors) other errors: giving up")
                    }
                    context.rollback()
                    context.refresh(counter, mergeChanges: false)
                    counter.count += 1
                }
            }
            report.saves += 1
        }
        return report
    }

    /// The contended saves under `.mergeByPropertyObjectTrump`: each sets the
    /// counter's `serial` to a value of this writer's and increments its
    /// `count`. Every error `save()` throws is counted (and the save
    /// dropped); there must be none.
    static func overwrite(_ counter: Row, _ task: WriterTask, in context: ManagedObjectContext) -> WriterReport {
        var report = WriterReport()
        for serial in 0..<Int64(task.saves) {
            context.performAndWait {
                counter.serial = Int64(task.index) * 1_000_000 + serial
                counter.count += 1
                do {
                    try context.save()
                    report.saves += 1
                } catch {
                    report.errors += 1
                    WriterChild.note(error)
                    context.rollback()
                    context.refresh(counter, mergeChanges: false)
                }
            }
        }
        return report
    }
}

// MARK: - The writer process

/// A writer process: connects, says `ready`, waits for the parent's `go`,
/// saves, and prints `result` and its ``WriterReport`` as JSON, one line.
enum WriterChild {
    /// Runs `task` on its side and prints its report.
    static func run(_ task: WriterTask) async throws {
        let report: WriterReport
        switch task.side {
        case .raw: report = try await RawWriter.run(task)
        case .coherence: report = try CoherenceWriter.run(task)
        }
        let json = try JSONEncoder().encode(report)
        try FileHandle.standardOutput.write(contentsOf: Data("result ".utf8) + json + Data("\n".utf8))
    }

    /// The start barrier: tells the parent this writer is ready, and returns
    /// when the parent says `go`.
    static func waitForGo() throws {
        try FileHandle.standardOutput.write(contentsOf: Data("ready\n".utf8))
        guard let line = readLine(), line == "go" else { throw Failure("the parent never said go") }
    }

    /// Writes an error a save threw to standard error (the parent's).
    static func note(_ error: any Error) {
        FileHandle.standardError.write(Data("postgres-writers writer: save() threw \(error)\n".utf8))
    }
}
