// Marking items read: one item on a background context, saved and merged
// like any change; a whole feed with a batch update.
//
// Core Data technique: a batch update runs in the store without loading an
// object and posts no notification, so its changed IDs are merged into the
// live contexts by hand (mergeChanges(fromRemoteContextSave:into:)). The
// store recomputes the derived unread count in the same statement's
// transaction, and other processes hear of it through persistent history.
import Coherence
import Foundation

/// Why a reading change was refused. Each names what was asked for.
public enum ReadingError: Error, Equatable, CustomStringConvertible {
    /// The text is not an object ID's URI.
    case malformedID(String)
    /// A well-formed ID of another store, of another entity, or of a row
    /// that is gone.
    case noSuchObject(String, entity: String)
    /// No item has this title.
    case noItemTitled(String)

    /// A message naming what was asked for.
    public var description: String {
        switch self {
        case .malformedID(let text): "\"\(text)\" is not an object ID"
        case .noSuchObject(let id, let entity): "no \(entity) \(id) in this store"
        case .noItemTitled(let title): "no item is titled \"\(title)\""
        }
    }
}

extension Library {
    /// The ID of a `Entity` object of this store that `text` (an object ID's
    /// URI) names. The object's row is not read.
    /// - Throws: ``ReadingError``.
    public func objectID<Entity: ManagedObject>(_ text: String, of type: Entity.Type) throws(ReadingError) -> ManagedObjectID {
        let entityName = type.entityName
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { throw .malformedID(text) }
        guard let id = container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: url),
              id.entityName == entityName
        else { throw .noSuchObject(text, entity: entityName) }
        return id
    }

    /// Marks the item `id` read (or unread), on a background context.
    /// - Throws: ``ReadingError/noSuchObject(_:entity:)`` when its row is gone.
    public func setRead(_ read: Bool, item id: ManagedObjectID) async throws {
        let context = backgroundContext(author: "page")
        try await context.perform {
            guard let item = try? context.existingObject(with: id) as? FeedItem else {
                throw ReadingError.noSuchObject(id.uriRepresentation().absoluteString, entity: "FeedItem")
            }
            item.read = read
            try context.save()
        }
    }

    /// Marks every item titled `title` read, on a background context.
    /// - Returns: how many were unread.
    /// - Throws: ``ReadingError/noItemTitled(_:)`` when none has this title.
    @discardableResult
    public func markRead(titled title: String) async throws -> Int {
        let context = backgroundContext(author: "read")
        return try await context.perform {
            let items = try context.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.title == title }))
            guard !items.isEmpty else { throw ReadingError.noItemTitled(title) }
            let unread = items.filter { !$0.read }
            for item in unread { item.read = true }
            try context.save()
            return unread.count
        }
    }

    /// Marks every item of the server `id` read with one batch update, and
    /// merges its changes into the view context.
    /// - Returns: how many items changed.
    public func markAllRead(server id: ManagedObjectID) async throws -> Int {
        let context = backgroundContext(author: "page")
        let result = try await context.perform {
            guard let server = try? context.existingObject(with: id) as? Server else {
                throw ReadingError.noSuchObject(id.uriRepresentation().absoluteString, entity: "Server")
            }
            let address = server.url
            let request = BatchUpdateRequest<FeedItem>(
                predicate: #Predicate { $0.feedURL == address && $0.read == false }, propertiesToUpdate: ["read": true])
            return try context.execute(request) as! BatchUpdateResult
        }
        // Merged from here rather than from the background queue, which would
        // then wait for the view context's.
        let (view, changes) = (viewContext, result.changes)
        await view.perform { ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [view]) }
        return result.count
    }
}
