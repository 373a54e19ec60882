import Coherence
import Foundation
import Testing

@Suite("Async event sequences")
struct EventSequenceTests {
    @Test func didChangeObjectsEventsCarryObjectIDs() async throws {
        let context = try TestStack.context()
        let events = context.events(for: ManagedObjectContext.ObjectsDidChangeMessage.self)
        var iterator = events.makeAsyncIterator()
        let id = try await context.perform {
            let server = Server(context: context)
            try context.obtainPermanentIDs(for: [server])
            return server.objectID
        }
        let first = try #require(await iterator.next())
        #expect(first.inserted == [id])
        await context.perform {
            (context.object(with: id) as! Server).name = "renamed"
        }
        let second = try #require(await iterator.next())
        #expect(second.updated == [id])
        #expect(second.inserted.isEmpty)
    }

    @Test func saveEventsArriveInOrder() async throws {
        let context = try TestStack.context()
        var willSave = context.events(for: ManagedObjectContext.WillSaveMessage.self).makeAsyncIterator()
        var didSave = context.events(for: ManagedObjectContext.DidSaveMessage.self).makeAsyncIterator()
        let id = try await context.perform {
            let server = Server(context: context)
            try context.save()
            return server.objectID
        }
        let saving = await willSave.next()
        #expect(saving === context)
        let saved = try #require(await didSave.next())
        #expect(saved.inserted == [id])
        #expect(!id.isTemporaryID)
    }

    @Test func endingTheSequenceRemovesTheObserver() async throws {
        let context = try TestStack.context()
        do {
            var iterator = context.events(for: ManagedObjectContext.ObjectsDidChangeMessage.self).makeAsyncIterator()
            await context.perform { _ = Server(context: context) }
            #expect(await iterator.next() != nil)
        }
        // The stream was released; posting again must not reach it, and
        // nothing else observes: a fresh sequence sees only its own events.
        var fresh = context.events(for: ManagedObjectContext.ObjectsDidChangeMessage.self).makeAsyncIterator()
        await context.perform { _ = Server(context: context) }
        let event = try #require(await fresh.next())
        #expect(event.inserted.count == 1)
    }
}
