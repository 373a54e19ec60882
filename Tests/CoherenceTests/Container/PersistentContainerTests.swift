import Coherence
import Foundation
import Testing

@Suite("Persistent container")
struct PersistentContainerTests {
    /// A container on a new SQLite file.
    private func container() throws -> PersistentContainer {
        let container = PersistentContainer(name: "Zeader", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.sqlite(TestFiles.newURL("Zeader.sqlite"))]
        return container
    }

    @Test func defaultsToAnSQLiteFileNamedAfterTheContainer() throws {
        let container = PersistentContainer(name: "Zeader", managedObjectModel: try TestStack.model())
        #expect(container.persistentStoreDescriptions == [
            .sqlite(PersistentContainer.defaultDirectoryURL().appending(path: "Zeader.sqlite")),
        ])
    }

    @Test func loadsStoresAndHandsOutContexts() async throws {
        let container = try container()
        try container.loadPersistentStores()
        #expect(container.persistentStoreCoordinator.persistentStores.first?.type == "SQLite")
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
        #expect(container.viewContext.concurrencyType == .mainQueue)

        let background = container.newBackgroundContext()
        #expect(background.concurrencyType == .privateQueue)
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)

        let id = try await container.performBackgroundTask { context in
            let server = Server(context: context)
            server.name = "from the background"
            try context.save()
            return server.objectID
        }
        let name = await container.viewContext.perform {
            (container.viewContext.object(with: id) as! Server).name
        }
        #expect(name == "from the background")
    }

    @Test func completionHandlerFormReportsEachStore() throws {
        let container = PersistentContainer(name: "Zeader", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.inMemory]
        var reported: [PersistentStoreDescription] = []
        container.loadPersistentStores { description, error in
            #expect(error == nil)
            reported.append(description)
        }
        #expect(reported == [.inMemory])
    }

    @MainActor
    @Test func viewContextWorksOnTheMainActor() throws {
        let container = PersistentContainer(name: "Zeader", managedObjectModel: try TestStack.model())
        try container.loadPersistentStores()
        let context = container.viewContext
        let log = ChangeLog(context)
        let server = Server(context: context)
        server.name = "main"
        try context.save()
        #expect(log.saves.count == 1)
        #expect(context.performAndWait { server.name } == "main", "performAndWait on the main queue runs inline")
    }

    @Test func fireAndForgetBackgroundTask() async throws {
        let container = try container()
        try container.loadPersistentStores()
        let saved: ManagedObjectID = await withCheckedContinuation { continuation in
            container.performBackgroundTask { context in
                let server = Server(context: context)
                try? context.save()
                continuation.resume(returning: server.objectID)
            }
        }
        #expect(!saved.isTemporaryID)
    }
}
