import Coherence
import Foundation

/// The PostgreSQL server, database and schema a PostgreSQL store uses.
///
/// ```swift
/// let configuration = try PostgresConfiguration(url: "postgres://app:secret@db.example.com/zeader?schema=reader")
/// ```
///
/// A URL has the form of libpq's connection URIs:
/// `postgres://user:password@host:port/database?schema=name&sslmode=disable|prefer|require&connect_timeout=seconds`
/// (`postgresql://` too). The password is percent-encoded in it; the port
/// defaults to 5432, the schema to `public`, `sslmode` to `prefer` (libpq's
/// default), the connect timeout to 10 seconds.
public struct PostgresConfiguration: Sendable, Hashable {
    /// Whether connections are encrypted with TLS.
    public enum TLS: Sendable, Hashable {
        /// Never: connections are plain TCP.
        case disable
        /// When the server offers TLS; plain TCP when it does not (libpq's
        /// `sslmode=prefer`). A server that offers TLS must present a
        /// certificate that the system trusts for `host`.
        case prefer
        /// Always: a server without TLS, or whose certificate the system does
        /// not trust for `host`, is refused (libpq's `sslmode=verify-full`).
        case require
    }

    /// The server's host name or IP address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The user to connect as.
    public var user: String
    /// The user's password, or `nil` for none (trust or peer authentication).
    public var password: String?
    /// The database to connect to.
    public var database: String
    /// Whether connections use TLS.
    public var tls: TLS
    /// The schema (namespace) that holds the store's tables; every connection
    /// sets its `search_path` to it. Several stores can share one database,
    /// each in its own schema.
    public var schema: String
    /// How long opening a connection may take before loading or an operation
    /// throws `StoreError.serverUnreachable`.
    public var connectTimeout: Duration

    /// A configuration with every part given.
    public init(
        host: String,
        port: Int = 5432,
        user: String,
        password: String? = nil,
        database: String,
        tls: TLS = .prefer,
        schema: String = "public",
        connectTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.schema = schema
        self.connectTimeout = connectTimeout
    }

    /// The configuration a `postgres://` URL describes.
    /// - Throws: `StoreError.invalidStoreURL` when `url` is not
    ///   a PostgreSQL URL (the password is left out of the error).
    public init(url: URL) throws {
        let shown = Self.withoutPassword(url.absoluteString)
        func invalid(_ reason: String) -> StoreError { .invalidStoreURL(shown, reason: reason) }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw invalid("it cannot be parsed")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("it names no host") }
        guard let user = components.user, !user.isEmpty else { throw invalid("it names no user") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("the port \(port) is out of range") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw invalid("the path must be /database") }
        var tls = TLS.prefer
        var schema = "public"
        var connectTimeout = Duration.seconds(10)
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("schema", let value?) where !value.isEmpty: schema = value
            case ("sslmode", "disable"): tls = .disable
            case ("sslmode", "prefer"): tls = .prefer
            case ("sslmode", "require"), ("sslmode", "verify-full"): tls = .require
            case ("sslmode", let value): throw invalid("sslmode \(value ?? "") is not one of disable, prefer, require")
            case ("connect_timeout", let value):
                guard let seconds = value.flatMap(Int.init), seconds > 0 else {
                    throw invalid("connect_timeout must be a positive number of seconds")
                }
                connectTimeout = .seconds(seconds)
            default: throw invalid("unknown parameter \(item.name)")
            }
        }
        self.init(
            host: host, port: port, user: user, password: components.password, database: database,
            tls: tls, schema: schema, connectTimeout: connectTimeout
        )
    }

    /// The configuration a `postgres://` URL string describes.
    /// - Throws: `StoreError.invalidStoreURL` when `string` is
    ///   not a PostgreSQL URL.
    public init(url string: String) throws {
        guard let url = URL(string: string) else {
            throw StoreError.invalidStoreURL(Self.withoutPassword(string), reason: "it is not a URL")
        }
        try self.init(url: url)
    }

    /// The URL of this configuration, password included (percent-encoded).
    /// The connect timeout is in it in whole seconds.
    public var url: URL {
        var components = URLComponents()
        components.scheme = "postgres"
        components.host = host
        components.port = port
        components.user = user
        components.password = password
        components.path = "/" + database
        var items: [URLQueryItem] = []
        if schema != "public" { items.append(URLQueryItem(name: "schema", value: schema)) }
        switch tls {
        case .disable: items.append(URLQueryItem(name: "sslmode", value: "disable"))
        case .prefer: break
        case .require: items.append(URLQueryItem(name: "sslmode", value: "require"))
        }
        if connectTimeout != .seconds(10) {
            items.append(URLQueryItem(name: "connect_timeout", value: String(max(1, connectTimeout.components.seconds))))
        }
        components.queryItems = items.isEmpty ? nil : items
        guard let url = components.url else {
            fatalError("PostgreSQL configuration for \(host) does not make a URL")
        }
        return url
    }

    /// ``url`` without the password, for notifications and messages.
    public var urlWithoutPassword: URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else { return url }
        components.password = nil
        return components.url ?? url
    }

    /// `url` as text with its password replaced by `***`, for messages.
    static func withoutPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
