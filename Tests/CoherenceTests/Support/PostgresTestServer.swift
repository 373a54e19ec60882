import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// The PostgreSQL server the PostgreSQL tests use: the one at
/// `COHERENCE_POSTGRES_URL`, which `.ci/with-postgres` starts and exports
/// (`.ci/with-postgres swift test`). Without it the PostgreSQL tests are
/// skipped, except under CI (`CI` set), where they run and fail.
enum PostgresTestServer {
    static let urlVariable = "COHERENCE_POSTGRES_URL"

    /// The server's URL, when one is given.
    static var url: String? {
        guard let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty else { return nil }
        return url
    }

    /// Whether a server is given.
    static var isAvailable: Bool { url != nil }

    /// Whether the PostgreSQL tests run: a server is given, or this is CI,
    /// where they must never pass by being skipped.
    static var shouldRun: Bool {
        isAvailable || !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    }

    /// Thrown when the tests run without a server (under CI).
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "\(PostgresTestServer.urlVariable) is not set: run the tests under a PostgreSQL server with "
                + "`.ci/with-postgres swift test`, which starts a throwaway PostgreSQL 15 and sets it"
        }
    }

    /// The configuration of the server's URL (its `public` schema).
    static func configuration() throws -> PostgresConfiguration {
        guard let url else { throw Missing() }
        return try PostgresConfiguration(url: url)
    }

    /// A configuration using a new, empty schema `t_<uuid>`, so that tests
    /// run in parallel on one database. (Schemas are left behind: the
    /// cluster of `.ci/with-postgres` is thrown away.)
    static func newSchemaConfiguration() throws -> PostgresConfiguration {
        var configuration = try configuration()
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnections(configuration: configuration, maximumConnections: 1)
        try admin.write { try $0.execute("CREATE SCHEMA \(PostgresConnections.quoted(schema))", []) }
        configuration.schema = schema
        return configuration
    }
}
