import Coherence
import Foundation

// zeader: a tiny terminal feed reader over the seed articles' two entities.
// It creates servers and items, marks items read, deletes one, and prints
// every didChangeObjects notification and the unread counts as they change.

let model = try ManagedObjectModel(entities: [Server.self, FeedItem.self])
let container = PersistentContainer(name: "Zeader", managedObjectModel: model)
try container.loadPersistentStores()
let context = container.viewContext

/// A short, stable description of a set of objects.
func describe(_ objects: Set<ManagedObject>) -> String {
    objects.map { object -> String in
        switch object {
        case let server as Server: "server \(server.name)"
        case let item as FeedItem: "item \(item.title)"
        default: "\(object)"
        }
    }.sorted().joined(separator: ", ")
}

// Core Data style: observe the notification on NotificationCenter.
let observer = NotificationCenter.default.addObserver(
    forName: .NSManagedObjectContextObjectsDidChange, object: context, queue: nil
) { note in
    guard let change = ObjectsDidChange(note) else { return }
    var parts: [String] = []
    if !change.inserted.isEmpty { parts.append("inserted [\(describe(change.inserted))]") }
    if !change.updated.isEmpty { parts.append("updated [\(describe(change.updated))]") }
    if !change.deleted.isEmpty { parts.append("deleted [\(describe(change.deleted))]") }
    print("  didChangeObjects: " + parts.joined(separator: "; "))
}

func printUnreadCounts() throws {
    let servers = try context.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.name)]))
    for server in servers {
        print("  \(server.name): \(server.unreadCount) unread of \(server.feedItems.count)")
    }
}

func step(_ title: String, _ body: () throws -> Void) throws {
    print("\(title)")
    try body()
    context.processPendingChanges()
    try printUnreadCounts()
}

var items: [FeedItem] = []
try step("Add two servers with three items each") {
    for name in ["objc.io", "swift.org"] {
        let server = Server(context: context)
        server.name = name
        for number in 1...3 {
            let item = FeedItem(context: context)
            item.title = "\(name) #\(number)"
            item.server = server
            items.append(item)
        }
    }
}
try step("Save") { try context.save() }
try step("Mark objc.io #1 read") { items[0].read = true }
try step("Mark swift.org #2 and #3 read") {
    items[4].read = true
    items[5].read = true
}
try step("Delete objc.io #2") { try context.delete(items[1]) }
try step("Move swift.org #1 to objc.io") { items[3].server = items[0].server }
try step("Save") { try context.save() }
NotificationCenter.default.removeObserver(observer)
