import Coherence
import Foundation
import Testing

@Suite("Indexed observers")
struct ObjectObserverTests {
    @Test func objectObserversHearOnlyTheirObjectAndProperties() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let server = Server(context: context)
            let other = Server(context: context)
            try context.save()
            var all: [ObjectChange] = []
            var names: [ObjectChange] = []
            let everything = context.observe(server) { all.append($0) }
            let onlyName = context.observe(server, keyPaths: [\.name]) { names.append($0) }

            other.name = "not observed"
            context.processPendingChanges()
            #expect(all.isEmpty && names.isEmpty)

            server.unreadCount = 2
            context.processPendingChanges()
            #expect(all.map(\.kind) == [.updated])
            #expect(all.last?.changedKeys == ["unreadCount"])
            #expect(names.isEmpty, "a key-path observer ignores other properties")

            server.name = "renamed"
            context.processPendingChanges()
            #expect(names.map(\.changedKeys) == [["name"]])

            onlyName.cancel()
            context.delete(server)
            context.processPendingChanges()
            #expect(all.last?.kind == .deleted)
            #expect(names.count == 1, "a cancelled observer hears nothing more")
            _ = everything
        }
    }

    @Test func entityObserversFilterByPredicate() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            var seen: [EntityChange<FeedItem>] = []
            let token = context.observe(FeedItem.self, matching: #Predicate { $0.read == false }) { seen.append($0) }
            let unread = FeedItem(context: context)
            let read = FeedItem(context: context)
            read.read = true
            _ = Server(context: context) // another entity: not delivered
            context.processPendingChanges()
            #expect(seen.count == 1)
            #expect(seen.last?.inserted == [unread], "only matching insertions")
            try context.save()
            read.read = false
            context.processPendingChanges()
            #expect(seen.last?.updated == [read])
            context.delete(unread)
            context.processPendingChanges()
            #expect(seen.last?.deleted == [unread])
            _ = token
        }
    }

    @Test func asyncSequencesOfObjectAndEntityChanges() async throws {
        let context = try TestStack.context()
        let id = try await context.perform {
            let server = Server(context: context)
            try context.save()
            return server.objectID
        }
        var objectChanges = context.changes(of: id, as: Server.self, keyPaths: [\.name]).makeAsyncIterator()
        var entityChanges = context.changes(of: Server.self).makeAsyncIterator()
        await context.perform { (context.object(with: id) as! Server).name = "async" }
        #expect(await objectChanges.next()?.changedKeys == ["name"])
        #expect(await entityChanges.next()?.updated == [id])
    }

    @Test func dispatchCostFollowsMatchingObserversNotAllObservers() throws {
        // 5,000 observers of other objects: one change still calls exactly one.
        let context = try TestStack.context()
        try context.performAndWait {
            let servers = (0..<5_000).map { _ in Server(context: context) }
            try context.save()
            var calls = 0
            let tokens = servers.map { context.observe($0) { _ in calls += 1 } }
            servers[42].name = "one change"
            context.processPendingChanges()
            #expect(calls == 1)
            _ = tokens
        }
    }

    @Test func releasingTheTokenEndsTheObservation() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            var calls = 0
            var token: ContextObservation? = context.observe(server) { _ in calls += 1 }
            server.name = "one"
            context.processPendingChanges()
            #expect(calls == 1)
            withExtendedLifetime(token) {}
            token = nil
            server.name = "two"
            context.processPendingChanges()
            #expect(calls == 1, "a released token ends its observation")
        }
    }
}
