import Coherence
import Foundation
import Testing

@Suite("Managed document")
struct ManagedDocumentTests {
    private func storedNames(_ url: URL) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(.sqlite(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        return try context.performAndWait { try context.fetch(FetchRequest<Server>(sortBy: [SortDescriptor(\.name)])).map(\.name) }
    }

    @MainActor
    @Test func openEditAndSaveThroughTheWriter() async throws {
        let url = TestFiles.newURL("Document.sqlite")
        let document = ManagedDocument(url: url, managedObjectModel: try TestStack.model())
        #expect(!document.isOpen)
        await #expect(throws: DocumentError.notOpen) { try await document.save() }
        let context = try await document.open()
        #expect(document.isOpen)
        #expect(context.concurrencyType == .mainQueue)
        #expect(context.parent != nil, "a main-queue child of a private writer")
        #expect(context.parent?.concurrencyType == .privateQueue)
        #expect(try await document.open() === context, "opening again hands out the same context")

        Server(context: context).name = "drafted"
        try await document.save()
        #expect(!context.hasChanges)
        #expect(try storedNames(url) == ["drafted"])
        try await document.close()
        #expect(!document.isOpen)
    }

    @Test func completionHandlerOpen() async throws {
        let url = TestFiles.newURL("Document.sqlite")
        let document = ManagedDocument(url: url, managedObjectModel: try TestStack.model())
        let isMainQueue = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            document.open { result in
                continuation.resume(returning: (try? result.get())?.concurrencyType == .mainQueue)
            }
        }
        #expect(isMainQueue)
    }

    @Test func openingSomethingElseFails() async throws {
        let url = TestFiles.newURL("notes.txt")
        try Data("plain text".utf8).write(to: url)
        let document = ManagedDocument(url: url, managedObjectModel: try TestStack.model())
        await #expect(throws: StoreError.notASQLiteDatabase(path: url.path)) { try await document.open() }
        #expect(!document.isOpen)
    }

    @MainActor
    @Test func autosaveWritesChangesWithoutAnExplicitSave() async throws {
        let url = TestFiles.newURL("Document.sqlite")
        let document = ManagedDocument(url: url, managedObjectModel: try TestStack.model())
        document.autosaveDelay = .zero
        let context = try await document.open()
        let writer = try #require(context.parent)
        var saves = writer.events(for: ManagedObjectContext.DidSaveMessage.self).makeAsyncIterator()
        Server(context: context).name = "autosaved"
        context.processPendingChanges()
        let saved = try #require(await saves.next())
        #expect(saved.inserted.count == 1)
        #expect(try storedNames(url) == ["autosaved"])
        #expect(document.lastAutosaveError == nil)
    }
}
