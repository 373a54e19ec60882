import Coherence
import CoherencePostgres
import Foundation

/// The saves the kill and fault campaigns make and look for: save `n` is a
/// server named "save n" with ``itemsPerSave`` items, written all or
/// nothing, so that a store tells which saves it holds and whether any is
/// partial.
enum NumberedSaves {
    static let itemsPerSave = 7

    /// The store of `directory`: `store.sqlite` there, or the PostgreSQL
    /// store whose URL (with its schema) a `store.url` file there holds.
    static func openContext(_ directory: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        if let url = try? String(contentsOf: directory.appending(path: "store.url"), encoding: .utf8) {
            try coordinator.addPersistentStore(.postgres(url: url))
        } else {
            try coordinator.addPersistentStore(.sqlite(directory.appending(path: "store.sqlite")))
        }
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    /// Saves number `number`; `padding` characters more in the server's
    /// name make each save bigger (to fill a disk).
    static func save(_ number: Int, in context: ManagedObjectContext, padding: Int = 0) throws {
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "save \(number)" + (padding > 0 ? " " + String(repeating: "x", count: padding) : "")
            for index in 0..<itemsPerSave {
                let item = FeedItem(context: context)
                item.title = "\(number).\(index)"
                item.server = server
            }
            try context.save()
        }
    }

    /// Items per save number in the store; items without a server count
    /// under -1.
    static func found(in context: ManagedObjectContext) throws -> [Int: Int] {
        try context.performAndWait {
            var found: [Int: Int] = [:]
            for server in try context.fetch(FetchRequest<Server>()) {
                let number = Int(server.name.split(separator: " ")[1]) ?? -1
                found[number] = server.feedItems.count
            }
            let orphans = try context.count(for: FetchRequest<FeedItem>(predicate: #Predicate { $0.server == nil }))
            if orphans > 0 { found[-1] = orphans }
            return found
        }
    }
}
