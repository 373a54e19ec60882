import Coherence
import Foundation
import Testing

/// Core Data's typed NotificationCenter messages (2026): a main-queue context
/// posts `NotificationCenter.MainActorMessage`s (ObjectsDidChangeMessage,
/// WillSaveMessage, DidSaveMessage, DidSaveObjectIDsMessage,
/// DidMergeChangesMessage), "Only use this message type for contexts with
/// `NSMainQueueConcurrencyType`"
/// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/objectsdidchangemessage);
/// a private-queue context posts the `NotificationCenter.AsyncMessage` forms
/// (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didsaveobjectidsasyncmessage,
/// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/didmergechangesasyncmessage).
/// "The notification center delivers `MainActorMessage` types synchronously
/// when posted"
/// (https://developer.apple.com/documentation/foundation/notificationcenter/mainactormessage),
/// so a main-actor message arrives in the same moment as its notification.
@Suite("Typed NotificationCenter messages")
struct ContextMessageTests {
    private func container() throws -> PersistentContainer {
        let container = PersistentContainer(name: "Messages", managedObjectModel: try TestStack.model())
        container.persistentStoreDescriptions = [.inMemory]
        try container.loadPersistentStores()
        return container
    }

    /// What a main-actor observer received, in order.
    @MainActor private final class Received {
        var labels: [String] = []
        var changes: [ManagedObjectContext.ObjectsDidChangeMessage] = []
        var saves: [ManagedObjectContext.DidSaveMessage] = []
        var savedIDs: [ManagedObjectContext.DidSaveObjectIDsMessage] = []
        var merges: [ManagedObjectContext.DidMergeChangesMessage] = []
    }

    @MainActor @Test func viewContextPostsObjectsDidChangeMessageWithTheNotification() throws {
        let viewContext = try container().viewContext
        let received = Received()
        // An observer of every context, as Foundation allows: filter on the context.
        let token = NotificationCenter.default.addObserver(of: ManagedObjectContext.self, for: .objectsDidChange) { message in
            if message.context === viewContext { received.changes.append(message) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let notifications = NotificationWaiter(.NSManagedObjectContextObjectsDidChange, object: viewContext)

        let server = Server(context: viewContext)
        server.name = "inserted"
        viewContext.processPendingChanges()

        // Both observers saw the change before processPendingChanges returned.
        #expect(notifications.count == 1)
        try #require(received.changes.count == 1)
        let message = received.changes[0]
        #expect(message.context === viewContext)
        #expect(message.inserted == [server])
        #expect(message.updated.isEmpty && message.deleted.isEmpty)
        #expect(message.invalidatedAll == nil)
        // The same event as the notification's.
        let fromNotification = try #require(ManagedObjectContext.ObjectsDidChangeMessage.makeMessage(notifications.notifications[0]))
        #expect(fromNotification.inserted == message.inserted)
        #expect(fromNotification.event == message.event)
    }

    @MainActor @Test func resetIsAnnouncedAsInvalidatedAll() throws {
        let viewContext = try container().viewContext
        let server = Server(context: viewContext)
        server.name = "saved"
        try viewContext.save()
        let received = Received()
        let token = NotificationCenter.default.addObserver(of: viewContext, for: .objectsDidChange) { message in
            received.changes.append(message)
        }
        defer { NotificationCenter.default.removeObserver(token) }

        viewContext.reset()

        let message = try #require(received.changes.last)
        #expect(message.invalidatedAll == true)
        #expect(message.invalidatedAllIDs == [server.objectID])
    }

    @MainActor @Test func viewContextSaveMessagesArriveInCoreDataOrder() throws {
        let viewContext = try container().viewContext
        let received = Received()
        let center = NotificationCenter.default
        let tokens = [
            center.addObserver(of: viewContext, for: .willSave) { message in
                received.labels.append("willSave")
                #expect(message.context === viewContext)
            },
            center.addObserver(of: viewContext, for: .didSave) { message in
                received.labels.append("didSave")
                received.saves.append(message)
            },
            center.addObserver(of: viewContext, for: .didSaveObjectIDs) { message in
                received.labels.append("didSaveObjectIDs")
                received.savedIDs.append(message)
            },
        ]
        defer { for token in tokens { center.removeObserver(token) } }

        let server = Server(context: viewContext)
        server.name = "saved"
        try viewContext.save()

        #expect(received.labels == ["willSave", "didSave", "didSaveObjectIDs"])
        let saved = try #require(received.saves.first)
        #expect(saved.inserted == [server])
        #expect(saved.inserted.allSatisfy { !$0.objectID.isTemporaryID }, "inserted objects already have permanent IDs")
        // No persistent history or query generations in Coherence yet.
        #expect(saved.historyToken == nil)
        #expect(saved.queryGeneration == nil)
        let ids = try #require(received.savedIDs.first)
        #expect(ids.insertedIDs == [server.objectID])
        #expect(ids.updatedIDs.isEmpty && ids.deletedIDs.isEmpty && ids.invalidatedIDs.isEmpty)
        #expect(ids.historyToken == nil)
    }

    @MainActor @Test func willSaveObserverChangesWhatIsSaved() throws {
        let viewContext = try container().viewContext
        let token = NotificationCenter.default.addObserver(of: viewContext, for: .willSave) { message in
            Server(context: message.context).name = "added by the observer"
        }
        defer { NotificationCenter.default.removeObserver(token) }

        try viewContext.save()

        #expect(!viewContext.hasChanges)
        let names = try viewContext.fetch(FetchRequest<Server>()).map(\.name)
        #expect(names == ["added by the observer"])
    }

    @MainActor @Test func viewContextMergePostsDidMergeChangesMessage() async throws {
        let container = try container()
        let viewContext = container.viewContext
        let received = Received()
        let token = NotificationCenter.default.addObserver(of: viewContext, for: .didMergeChanges) { message in
            received.merges.append(message)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let background = container.newBackgroundContext()
        let saved = try await background.perform {
            let server = Server(context: background)
            server.name = "elsewhere"
            try background.save()
            return ObjectIDChanges(inserted: [server.objectID])
        }

        viewContext.mergeChanges(fromContextDidSave: saved)

        let message = try #require(received.merges.first)
        #expect(message.context === viewContext)
        #expect(message.insertedIDs == saved.inserted)
        #expect(message.historyToken == nil)
    }

    @Test func backgroundContextPostsAsyncDidSaveObjectIDsMessage() async throws {
        let container = try container()
        let background = container.newBackgroundContext()
        let (stream, continuation) = AsyncStream<ManagedObjectContext.DidSaveObjectIDsAsyncMessage>.makeStream()
        let center = NotificationCenter.default
        let token = center.addObserver(of: background, for: .didSaveObjectIDsAsync) { message in
            continuation.yield(message)
        }
        defer { center.removeObserver(token) }
        // Apple's main-actor form is for main-queue contexts only: a
        // private-queue context does not post it.
        let mainActorMessages = Locked(0)
        let mainActorToken = center.addObserver(of: background, for: .didSaveObjectIDs) { _ in
            mainActorMessages.withLock { $0 += 1 }
        }
        defer { center.removeObserver(mainActorToken) }
        let notifications = NotificationWaiter(.NSManagedObjectContextDidSaveObjectIDs, object: background)

        let savedID = try await background.perform {
            let server = Server(context: background)
            server.name = "background"
            try background.save()
            return server.objectID
        }

        let message = try await withDeadline("the async didSaveObjectIDs message") {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(message?.context === background)
        #expect(message?.insertedIDs == [savedID])
        #expect(message?.historyToken == nil)
        // The notification observer saw the same save.
        let note = try #require(notifications.notifications.first)
        #expect(ManagedObjectContext.DidSaveObjectIDsAsyncMessage.makeMessage(note)?.objectIDs == message?.objectIDs)
        #expect(mainActorMessages.withLock { $0 } == 0)
    }

    /// The README's way to keep a view context current with a background
    /// context's saves.
    @Test func asyncSaveMessageFeedsTheViewContextsMerge() async throws {
        let container = try container()
        let viewContext = container.viewContext
        let background = container.newBackgroundContext()
        let merges = NotificationWaiter(.NSManagedObjectContextDidMergeChangesObjectIDs, object: viewContext)
        let token = NotificationCenter.default.addObserver(of: background, for: .didSaveObjectIDsAsync) { message in
            await viewContext.perform { viewContext.mergeChanges(fromContextDidSave: message.objectIDs) }
        }
        defer { NotificationCenter.default.removeObserver(token) }

        let savedID = try await background.perform {
            let server = Server(context: background)
            server.name = "from the background"
            try background.save()
            return server.objectID
        }

        #expect(await merges.wait(), "the view context never merged the background save")
        let merged = try #require(merges.notifications.first.flatMap(ManagedObjectContext.DidMergeChangesMessage.makeMessage))
        #expect(merged.insertedIDs == [savedID])
        let name = await viewContext.perform { (viewContext.object(with: savedID) as? Server)?.name }
        #expect(name == "from the background")
    }

    @Test func backgroundContextPostsAsyncDidMergeChangesMessage() async throws {
        let container = try container()
        let writer = container.newBackgroundContext()
        let reader = container.newBackgroundContext()
        let (stream, continuation) = AsyncStream<ManagedObjectContext.DidMergeChangesAsyncMessage>.makeStream()
        let token = NotificationCenter.default.addObserver(of: reader, for: .didMergeChangesAsync) { message in
            continuation.yield(message)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let saved = try await writer.perform {
            let server = Server(context: writer)
            server.name = "written"
            try writer.save()
            return ObjectIDChanges(inserted: [server.objectID])
        }

        await reader.perform { reader.mergeChanges(fromContextDidSave: saved) }

        let message = try await withDeadline("the async didMergeChanges message") {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(message?.context === reader)
        #expect(message?.insertedIDs == saved.inserted)
    }

    @Test func messagesConvertToAndFromTheirNotifications() async throws {
        let context = try TestStack.context()
        let saves = Locked<[Notification]>([])
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidMergeChangesObjectIDs, object: context,
                                                           queue: nil) { note in saves.withLock { $0.append(note) } }
        defer { NotificationCenter.default.removeObserver(token) }
        let ids = try context.performAndWait {
            let server = Server(context: context)
            server.name = "saved"
            try context.save()
            return ObjectIDChanges(inserted: [server.objectID])
        }
        context.performAndWait { context.mergeChanges(fromContextDidSave: ids) }

        let note = try #require(saves.withLock { $0.first })
        let message = try #require(ManagedObjectContext.DidMergeChangesMessage.makeMessage(note))
        #expect(message.insertedIDs == ids.inserted)
        #expect(ManagedObjectContext.DidSaveMessage.makeMessage(note) == nil, "a message reads only its own notification")
        let back = ManagedObjectContext.DidMergeChangesMessage.makeNotification(message)
        #expect(back.name == .NSManagedObjectContextDidMergeChangesObjectIDs)
        #expect(back.object as? ManagedObjectContext === context)
        #expect(back.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue] as? Set<ManagedObjectID> == ids.inserted)
    }
}
