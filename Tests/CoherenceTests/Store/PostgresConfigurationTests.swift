import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// PostgreSQL store descriptions and their URLs (no server needed).
@Suite("PostgreSQL configuration")
struct PostgresConfigurationTests {
    @Test("A postgres:// URL gives host, port, user, password, database, schema, TLS and timeout")
    func parsesURLs() throws {
        let full = try PostgresConfiguration(
            url: "postgresql://app:p%40ss%3Aw0rd@db.example.com:6543/zeader?schema=reader&sslmode=require&connect_timeout=3"
        )
        #expect(full == PostgresConfiguration(
            host: "db.example.com", port: 6543, user: "app", password: "p@ss:w0rd", database: "zeader",
            tls: .require, schema: "reader", connectTimeout: .seconds(3)
        ))
        let short = try PostgresConfiguration(url: "postgres://user@127.0.0.1/zeader")
        #expect(short == PostgresConfiguration(host: "127.0.0.1", user: "user", database: "zeader"))
        #expect(short.port == 5432 && short.schema == "public" && short.tls == .prefer && short.password == nil)
        #expect(try PostgresConfiguration(url: "postgres://u@h/d?sslmode=disable").tls == .disable)
        // The URL round-trips, password percent-encoded.
        #expect(try PostgresConfiguration(url: full.url) == full)
        #expect(full.url.absoluteString.contains("p%40ss"))
    }

    @Test("A URL that names no PostgreSQL database is invalidStoreURL, without its password",
          arguments: [
              "http://u@h/d", "postgres://h/d", "postgres://u@/d", "postgres://u@h", "postgres://u@h/a/b",
              "postgres://u:secret@h/d?sslmode=sometimes", "postgres://u@h/d?color=blue", "postgres://u@h:0/d",
              "postgres://u@h/d?connect_timeout=soon", "not a url at all",
          ])
    func rejectsBadURLs(url: String) {
        #expect {
            try PostgresConfiguration(url: url)
        } throws: { error in
            guard case StoreError.invalidStoreURL(let shown, let reason) = error else { return false }
            return !shown.contains("secret") && !reason.isEmpty && !"\(error)".contains("secret")
        }
    }

    @Test("Descriptions: type Postgres, the URL as given; a string that is not a URL fails at loading, not before")
    func descriptions() throws {
        let description = PersistentStoreDescription.postgres(url: "postgres://user@127.0.0.1:5432/zeader")
        #expect(description.type == "Postgres" && PersistentStoreType.postgres.rawValue == "Postgres")
        #expect(description.url == URL(string: "postgres://user@127.0.0.1:5432/zeader"))
        #expect(try PostgresConfiguration(description: description) == PostgresConfiguration(
            host: "127.0.0.1", user: "user", database: "zeader"
        ))
        let parts = PersistentStoreDescription.postgres(
            host: "db", port: 7000, user: "u", password: "a b/c", database: "d", tls: .disable, schema: "s"
        )
        #expect(try PostgresConfiguration(description: parts) == PostgresConfiguration(
            host: "db", port: 7000, user: "u", password: "a b/c", database: "d", tls: .disable, schema: "s"
        ))
        let bad = PersistentStoreDescription.postgres(url: "postgres://u@h:port/d")
        #expect(bad.type == "Postgres" && bad.url == nil)
        #expect {
            try PostgresConfiguration(description: bad)
        } throws: { error in
            guard case StoreError.invalidStoreURL = error else { return false }
            return true
        }
        // The description loads through the PostgreSQL store, which reports
        // the bad URL when the store is loaded.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: []))
        #expect {
            try coordinator.addPersistentStore(bad)
        } throws: { error in
            guard case StoreError.invalidStoreURL = error else { return false }
            return true
        }
    }

    @Test("Each schema has its own write lock key, the same in every process")
    func lockKeys() {
        #expect(PostgresConnections.lockKey(schema: "public") == PostgresConnections.lockKey(schema: "public"))
        #expect(PostgresConnections.lockKey(schema: "public") != PostgresConnections.lockKey(schema: "reader"))
        // FNV-1a is fixed: a process built later computes the same key.
        #expect(PostgresConnections.lockKey(schema: "public") == -1_113_625_232_477_283_884)
        #expect(PostgresConnections.quoted("we\"ird") == "\"we\"\"ird\"")
    }
}
