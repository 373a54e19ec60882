import Coherence
@testable import CoherencePostgres
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A database a test opens, reopens and looks into behind the store's back:
/// an SQLite file or a PostgreSQL schema. Opening the same `TestDatabase`
/// again opens the same store, as an app does at its next launch.
enum TestDatabase {
    case sqlite(URL)
    case postgres(PostgresConfiguration)

    /// A new, empty database of `kind` (``StoreKind/sqlite`` or ``StoreKind/postgres``).
    static func new(_ kind: StoreKind) throws -> TestDatabase {
        switch kind {
        case .sqlite: .sqlite(TestFiles.newURL("store.sqlite"))
        case .postgres: .postgres(try PostgresTestServer.newSchemaConfiguration())
        case .inMemory: preconditionFailure("an in-memory store has no database to reopen")
        }
    }

    /// The description that opens this database.
    var description: PersistentStoreDescription {
        switch self {
        case .sqlite(let url): .sqlite(url)
        case .postgres(let configuration): .postgres(configuration)
        }
    }

    /// Where the store is, as ``StoreError/notACoherenceStore(path:)`` names it.
    var location: String {
        switch self {
        case .sqlite(let url): url.path
        case .postgres(let configuration): configuration.displayName
        }
    }

    /// A coordinator with this database's store loaded, for a model of `entities`.
    func coordinator(_ entities: [ManagedObject.Type] = TestStack.entities) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: entities))
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// A private-queue context on a new coordinator of this database.
    func context(_ entities: [ManagedObject.Type] = TestStack.entities) throws -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator(entities))
    }

    /// The tables in the database (the schema), sorted.
    func tableNames() throws -> [String] {
        switch self {
        case .sqlite(let url):
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            }
        case .postgres(let configuration):
            return try PostgresConnections(configuration: configuration, maximumConnections: 1).read { try $0.tableNames() }
        }
    }

    /// The columns of `table`, in order.
    func columnNames(_ table: String) throws -> [String] {
        switch self {
        case .sqlite(let url):
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in try db.columns(in: table).map(\.name) }
        case .postgres(let configuration):
            return try PostgresConnections(configuration: configuration, maximumConnections: 1).read { try $0.columnNames(table) }
        }
    }

    /// Runs `sql` (statements another application would run) in one write transaction.
    func execute(_ sql: String) throws {
        switch self {
        case .sqlite(let url):
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            try queue.write { db in try db.execute(sql: sql) }
        case .postgres(let configuration):
            try PostgresConnections(configuration: configuration, maximumConnections: 1).write { try $0.execute(sql, []) }
        }
    }

    /// The integers one query returns (its first column).
    func int64s(_ sql: String) throws -> [Int64] {
        switch self {
        case .sqlite(let url):
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in try Int64.fetchAll(db, sql: sql) }
        case .postgres(let configuration):
            return try PostgresConnections(configuration: configuration, maximumConnections: 1).read { try $0.int64s(sql) }
        }
    }
}

extension PostgresTestServer {
    /// A configuration using a new, empty database `d_<uuid>` of its own on
    /// the test server, for tests that terminate every connection to their
    /// database (other tests, in other databases, keep theirs).
    static func newDatabaseConfiguration() async throws -> PostgresConfiguration {
        var configuration = try configuration()
        let database = "d_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.user,
                                 password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: Logger(label: "CoherenceTests.Postgres")
        )
        do {
            // CREATE DATABASE cannot run in a transaction, so not through PostgresConnections.
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(PostgresConnections.quoted(database))"),
                                       logger: Logger(label: "CoherenceTests.Postgres"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        configuration.database = database
        return configuration
    }

    /// Connections for looking into the server behind a store's back, in a
    /// schema of their own (so that their writes never wait for a store's
    /// write lock).
    static func adminConnections(maximum: Int = 2) throws -> PostgresConnections {
        try PostgresConnections(configuration: try newSchemaConfiguration(), maximumConnections: maximum)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound by the kernel,
    /// then released without listening.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
