import Coherence
import Foundation

// zeader: a tiny terminal feed reader over the seed articles' two entities,
// kept in an SQLite file between runs. Every didChangeObjects notification,
// the changes a fetched results controller reports for the item list, and
// the (derived) unread counts are printed as they change.
//
//   swift run zeader                      show the feeds (adds a demo on first run)
//   swift run zeader add <server> <title> add an item to a server (created if new)
//   swift run zeader read <title>         mark an item read
//   swift run zeader unread <title>       mark an item unread
//   swift run zeader delete <title>       delete an item
//   swift run zeader demo                 run a scripted session
//
// The file is `Zeader.sqlite` in `PersistentContainer.defaultDirectoryURL()`;
// set COHERENCE_STORE_DIRECTORY to keep it elsewhere.

let model = try ManagedObjectModel(entities: [Server.self, FeedItem.self])
let container = PersistentContainer(name: "Zeader", managedObjectModel: model)
try container.loadPersistentStores()
let context = container.viewContext
let reader = try Reader(context: context)
print("store: \(container.persistentStoreDescriptions[0])")

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "show" : arguments.removeFirst()
do {
    switch (command, arguments.count) {
    case ("show", 0):
        if try reader.servers().isEmpty { try reader.demo() }
    case ("demo", 0):
        try reader.demo()
    case ("add", 2):
        try reader.step("Add \"\(arguments[1])\" to \(arguments[0])") { try reader.add(title: arguments[1], to: arguments[0]) }
    case ("read", 1):
        try reader.step("Mark \"\(arguments[0])\" read") { try reader.item(titled: arguments[0]).read = true }
    case ("unread", 1):
        try reader.step("Mark \"\(arguments[0])\" unread") { try reader.item(titled: arguments[0]).read = false }
    case ("delete", 1):
        try reader.step("Delete \"\(arguments[0])\"") { context.delete(try reader.item(titled: arguments[0])) }
    default:
        print("usage: zeader [show | demo | add <server> <title> | read <title> | unread <title> | delete <title>]")
        exit(2)
    }
    try context.save()
    try reader.printFeeds()
} catch {
    print("error: \(error)")
    exit(1)
}
