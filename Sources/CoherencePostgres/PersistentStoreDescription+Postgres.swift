import Coherence
import Foundation

extension PersistentStoreType {
    /// A PostgreSQL database (``PostgresStore``); its raw value is
    /// `"Postgres"`. Using it registers the store's type with
    /// `PersistentStoreCoordinator`, so that descriptions of this type load.
    public static let postgres: PersistentStoreType = {
        let type = PersistentStoreType(rawValue: "Postgres")
        PersistentStoreCoordinator.registerStoreType(type) { description, model in
            try PostgresStore(configuration: PostgresConfiguration(description: description), model: model,
                              persistentHistoryTracking: description.keepsPersistentHistory)
        }
        return type
    }()
}

extension PersistentStoreDescription {
    /// A PostgreSQL store at a `postgres://` URL (see ``PostgresConfiguration``):
    ///
    /// ```swift
    /// container.persistentStoreDescriptions = [.postgres(url: "postgres://user@127.0.0.1:5432/zeader")]
    /// ```
    ///
    /// The description's `PersistentStoreDescription.type` is `"Postgres"`
    /// and its `PersistentStoreDescription.url` this URL, password included
    /// (percent-encoded), as libpq's connection URIs carry it. A string that
    /// is not a URL does not throw here: loading the store throws
    /// `StoreError.invalidStoreURL`.
    public static func postgres(url: String) -> PersistentStoreDescription {
        guard let parsed = URL(string: url) else {
            let description = PersistentStoreDescription()
            description.type = PersistentStoreType.postgres.rawValue
            description.url = nil
            description.setOption(url as NSString, forKey: PostgresConfiguration.unparsedURLOptionKey)
            return description
        }
        return postgres(url: parsed)
    }

    /// A PostgreSQL store at a `postgres://` URL (see ``PostgresConfiguration``).
    /// A URL that does not name a PostgreSQL database makes loading the store
    /// throw `StoreError.invalidStoreURL`.
    public static func postgres(url: URL) -> PersistentStoreDescription {
        let description = PersistentStoreDescription(url: url)
        description.type = PersistentStoreType.postgres.rawValue
        return description
    }

    /// A PostgreSQL store with `configuration`; its URL is the configuration's
    /// ``PostgresConfiguration/url``.
    public static func postgres(_ configuration: PostgresConfiguration) -> PersistentStoreDescription {
        postgres(url: configuration.url)
    }

    /// A PostgreSQL store in `database` on the server at `host` and `port`.
    public static func postgres(
        host: String,
        port: Int = 5432,
        user: String,
        password: String? = nil,
        database: String,
        tls: PostgresConfiguration.TLS = .prefer,
        schema: String = "public"
    ) -> PersistentStoreDescription {
        postgres(PostgresConfiguration(
            host: host, port: port, user: user, password: password, database: database, tls: tls, schema: schema
        ))
    }
}

extension PostgresConfiguration {
    /// The option under which `PersistentStoreDescription.postgres(url:)` (String)
    /// keeps a string that is not a URL, so that loading reports it.
    static let unparsedURLOptionKey = "CoherencePostgresUnparsedURL"

    /// The configuration a PostgreSQL store description names, for the
    /// store's factory.
    /// - Throws: `StoreError.invalidStoreURL` when it names none.
    package init(description: PersistentStoreDescription) throws {
        if let url = description.url {
            try self.init(url: url)
        } else if let string = description.options[Self.unparsedURLOptionKey] as? NSString {
            try self.init(url: string as String)
        } else {
            throw StoreError.invalidStoreURL("", reason: "the description has no URL; use PersistentStoreDescription.postgres(url:)")
        }
    }
}
