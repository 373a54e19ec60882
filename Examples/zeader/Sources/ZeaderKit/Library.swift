// Opening the store: the embedded default (SQLite in
// PersistentContainer.defaultDirectoryURL()), another SQLite file, or a
// PostgreSQL database shared by several zeader processes.
//
// Core Data technique (seed article: "the parent watching its child"): the
// view context merges what background contexts save
// (automaticallyMergesChangesFromParent) and, through persistent history
// and remote-change notifications, what other processes and servers commit
// (automaticallyMergesRemoteChanges).
import Coherence
import CoherencePostgres
import Foundation

/// zeader's store and its view context.
public final class Library: Sendable {
    /// The container: the model, the coordinator and the view context.
    public let container: PersistentContainer
    /// Where the feeds are kept, for messages (a PostgreSQL password left out).
    public let location: String

    /// The view context, on the main queue: the one the web page reads.
    public var viewContext: ManagedObjectContext { container.viewContext }

    /// Opens the store `store` names: `nil` for `Zeader.sqlite` in
    /// `PersistentContainer.defaultDirectoryURL()`, a `postgres://` URL, or
    /// an SQLite file's path.
    /// - Throws: the store's error when it cannot be opened (`StoreError`).
    public convenience init(store: String?) throws {
        let description: PersistentStoreDescription? = switch store {
        case nil: nil
        case let url? where url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"): .postgres(url: url)
        case let path?: .sqlite(URL(fileURLWithPath: path))
        }
        try self.init(description: description)
    }

    /// Opens the store `description` describes (the container's default
    /// SQLite file when `nil`), with persistent history and remote-change
    /// notifications on (except in memory, which keeps no history).
    public init(description: PersistentStoreDescription?) throws {
        container = PersistentContainer(name: "Zeader", managedObjectModel: try .zeader())
        if let description { container.persistentStoreDescriptions = [description] }
        let store = container.persistentStoreDescriptions[0]
        let keepsHistory = store.type != InMemoryStoreType
        store.postsRemoteChangeNotifications = keepsHistory
        try container.loadPersistentStores()
        location = if let url = store.url {
            url.isFileURL ? url.path : ((try? PostgresConfiguration(url: url))?.urlWithoutPassword.absoluteString ?? url.absoluteString)
        } else {
            "memory"
        }
        let view = container.viewContext
        view.name = "view"
        view.automaticallyMergesChangesFromParent = true
        view.automaticallyMergesRemoteChanges = keepsHistory
    }

    /// A new context on its own queue, for one import or one change.
    func backgroundContext(author: String) -> ManagedObjectContext {
        let context = container.newBackgroundContext()
        context.name = author
        context.transactionAuthor = author
        // A row another writer inserted meanwhile keeps its values (its
        // read flags); see FeedImporter.
        context.mergePolicy = .mergeByPropertyStoreTrump
        return context
    }
}
