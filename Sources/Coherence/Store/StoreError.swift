/// A store that could not be opened, read or written. Nothing was changed
/// when a store operation throws.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The coordinator has no store loaded.
    case noPersistentStore
    /// The object is not in the store (it was deleted, or never saved).
    case objectNotFound(ManagedObjectID)
    /// The object's entity is not part of the store's model.
    case unknownEntity(String)
    /// The store was saved by someone else since the object was read.
    case versionConflict(ManagedObjectID, expected: Int64, found: Int64)
    /// A store with this identifier is already loaded.
    case duplicateStore(String)
    /// A store of this kind cannot be opened here.
    case unsupportedStoreType(String)
    /// An SQLite store was described without a file URL.
    case missingStoreURL
    /// The store (by identifier) is not one of the coordinator's stores.
    case storeNotInCoordinator(String)
    /// A store file could not be deleted.
    case cannotDestroy(path: String, reason: String)
    /// The file exists but is not an SQLite database; it was left untouched.
    case notASQLiteDatabase(path: String)
    /// The database (an SQLite file, a PostgreSQL schema) holds tables that
    /// Coherence did not create; it was left untouched.
    case notACoherenceStore(path: String)
    /// The database is a Coherence store whose own records are damaged
    /// (its identifier or model description missing or unreadable, an
    /// entity's table missing): `reason` says which. It was left untouched.
    case damagedStore(path: String, reason: String)
    /// The store was opened read-only (``PersistentStoreDescription/isReadOnly``)
    /// and cannot be changed, or there is no store to open read-only.
    case readOnlyStore(path: String, reason: String)
    /// The store was saved with a model that the current one cannot migrate
    /// from; the file was left untouched.
    case incompatibleModel(reason: String)
    /// Saves go to one store; this coordinator has several.
    case severalStores(Int)
    /// SQLite refused an operation; nothing was changed.
    case sqlite(code: Int32, message: String, sql: String?)
    /// A column of the store holds a value its property cannot take (a file
    /// written by other software); the store was only read.
    case invalidStoredValue(entity: String, property: String, reason: String)
    /// The store's URL (as written, password left out) cannot name a store of
    /// its type; nothing was opened.
    case invalidStoreURL(String, reason: String)
    /// The database server could not be reached, or the connection to it was
    /// lost; an operation that was in flight did not commit.
    case serverUnreachable(host: String, port: Int, reason: String)
    /// PostgreSQL refused an operation (`code` is its SQLSTATE); nothing was changed.
    case postgres(code: String, message: String, sql: String?)
    /// Other writers' commits to the store (a file, a database) cannot be
    /// watched, for remote-change notifications; the store was not loaded.
    case cannotWatch(path: String, reason: String)

    public var description: String {
        switch self {
        case .noPersistentStore:
            "no persistent store is loaded; call loadPersistentStores() first"
        case .objectNotFound(let id):
            "\(id.entityName) \(id) is not in the store"
        case .unknownEntity(let name):
            "the entity \(name) is not part of the store's model"
        case .versionConflict(let id, let expected, let found):
            "\(id.entityName) \(id) was changed in the store (version \(found), expected \(expected))"
        case .duplicateStore(let identifier):
            "a store with identifier \(identifier) is already loaded"
        case .unsupportedStoreType(let type):
            "stores of type \(type) are not supported"
        case .missingStoreURL:
            "an SQLite store needs a file URL; set the description's url"
        case .storeNotInCoordinator(let identifier):
            "the store \(identifier) is not one of the coordinator's stores"
        case .cannotDestroy(let path, let reason):
            "\(path) could not be deleted: \(reason)"
        case .notASQLiteDatabase(let path):
            "\(path) is not an SQLite database; it was left untouched"
        case .notACoherenceStore(let path):
            "\(path) holds tables that Coherence did not create; it was left untouched"
        case .readOnlyStore(let path, let reason):
            "\(path) cannot be written: \(reason)"
        case .damagedStore(let path, let reason):
            "\(path) is a damaged Coherence store: \(reason); it was left untouched"
        case .incompatibleModel(let reason):
            "the store cannot be opened with this model: \(reason); it was left untouched"
        case .severalStores(let count):
            "the coordinator has \(count) stores; saving is supported with one store per coordinator"
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code)" + (Self.sqliteMeaning(code).map { " (\($0))" } ?? "") + ": \(message)" + (sql.map { " (\($0))" } ?? "")
        case .invalidStoredValue(let entity, let property, let reason):
            "\(entity).\(property): the store holds a value the property cannot take: \(reason)"
        case .invalidStoreURL(let url, let reason):
            "\(url) is not a valid store URL: \(reason)"
        case .serverUnreachable(let host, let port, let reason):
            "the database server at \(host):\(port) is unreachable: \(reason)"
        case .postgres(let code, let message, let sql):
            "PostgreSQL error \(code): \(message)" + (sql.map { " (\($0))" } ?? "")
        case .cannotWatch(let path, let reason):
            "other writers' changes to \(path) cannot be watched: \(reason)"
        }
    }
}

extension StoreError {
    /// What an SQLite result code means, in words, for the codes a user can
    /// act on; `nil` for others.
    /// <https://www.sqlite.org/rescode.html>
    static func sqliteMeaning(_ code: Int32) -> String? {
        // SQLITE_READONLY_DBMOVED: the file was deleted or renamed (its
        // directory removed) since the store opened it.
        if code == 1032 { return "the store's file was moved or deleted while it was open" }
        return switch code & 0xff {
        case 3: "permission denied"
        case 5: "the database is locked by another connection"
        case 8: "the store is read-only: the file, its directory or its file system cannot be written"
        case 10: "an input/output error of the disk or file system"
        case 11: "the database file is damaged"
        case 13: "the disk is full"
        case 14: "the file cannot be opened: its directory is missing or not accessible"
        case 26: "the file is not an SQLite database"
        default: nil
        }
    }

    /// Whether the database refused a write for a constraint: a unique index
    /// already holding its values (SQLite's `SQLITE_CONSTRAINT` family, which
    /// the stores' tables use for unique indexes only; PostgreSQL's
    /// `unique_violation`).
    var isUniquenessViolation: Bool {
        switch self {
        case .sqlite(let code, _, _): code & 0xff == 19
        case .postgres(let code, _, _): code == "23505"
        default: false
        }
    }
}
