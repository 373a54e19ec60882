import Coherence
import Foundation
import Testing

/// The README's short example, kept compiling and true.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func shortExampleWorksAsWritten() async throws {
        let model = try ManagedObjectModel(entities: [Server.self, FeedItem.self])
        let container = PersistentContainer(name: "Zeader", managedObjectModel: model)
        container.persistentStoreDescriptions = [.sqlite(TestFiles.newURL("Zeader.sqlite"))]
        try container.loadPersistentStores()

        let id = try await container.performBackgroundTask { context in
            let server = Server(context: context)
            server.name = "swift.org"
            let item = FeedItem(context: context)
            item.title = "Swift 6.3 released"
            item.server = server
            try context.save()
            return server.objectID
        }

        let context = container.viewContext
        let titles = await context.perform {
            let server = context.object(with: id) as! Server
            return server.feedItems.map(\.title)
        }
        #expect(titles == ["Swift 6.3 released"])
    }
}
