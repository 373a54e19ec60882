import Coherence
import Foundation
import Testing
@testable import ZeaderKit

/// The live stream: a page's snapshot, then the view context's changes,
/// whatever made them: a background context, a batch update merged by hand,
/// another coordinator on the same file (as another process).
@Suite("Live stream")
struct LiveStreamTests {
    /// A library with two feeds, its live stream, and one page's events.
    struct Page {
        let directory: TemporaryDirectory
        let library: Library
        let live: LiveStream
        let events: AsyncStream<String>

        init() async throws {
            directory = try TemporaryDirectory()
            library = try directory.library()
            for name in ["coherence-blog.xml", "queue-and-merge.xml"] {
                _ = try await FeedImporter(library: library).importFeed(from: Files.feed(name).path)
            }
            let (library, broadcaster) = (library, Broadcaster())
            live = try library.viewContext.performAndWait { try LiveStream(context: library.viewContext, broadcaster: broadcaster) }
            events = try await library.viewContext.perform {
                try LiveStream.subscribe(in: library.viewContext, broadcaster: broadcaster, selected: nil)
            }
        }
    }

    static func decode(_ event: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(event.utf8))) as? [String: Any] ?? [:]
    }

    static func total(_ unread: Int) -> @Sendable (String) -> Bool {
        { event in
            let object = decode(event)
            return object["kind"] as? String == "total" && object["unread"] as? Int == unread
        }
    }

    @Test func aPageStartsWithASnapshot() async throws {
        let page = try await Page()
        let events = await read(page.events) { _ in true }
        let snapshot = Self.decode(try #require(events.first))
        #expect(snapshot["kind"] as? String == "snapshot")
        #expect(snapshot["unread"] as? Int == 10)
        // The first server by title and its items, newest first.
        #expect((snapshot["feed"] as? String)?.hasSuffix("coherence-blog.xml") == true)
        #expect((snapshot["items"] as? String)?.components(separatedBy: "<li class=\"item unread\"").count == 7)
    }

    /// A background save, merged into the view context by
    /// automaticallyMergesChangesFromParent, reaches the page as the item's
    /// new row, its server's new count, and the new total.
    @Test func aChangeOnABackgroundContextReachesThePage() async throws {
        let page = try await Page()
        try await page.library.markRead(titled: "Two contexts, one conflict")
        let events = await read(page.events, until: Self.total(9)).map(Self.decode)
        let items = try #require(events.first { $0["kind"] as? String == "items" })
        let feeds = try #require(items["feeds"] as? [String: [String: Any]])
        let updated = try #require(feeds.values.first?["update"] as? [[String: Any]])
        #expect(updated.count == 1)
        #expect((updated[0]["html"] as? String)?.contains("class=\"item read\"") == true)
        let servers = try #require(events.first { $0["kind"] as? String == "servers" })
        let row = try #require((servers["update"] as? [[String: Any]])?.first?["html"] as? String)
        #expect(row.contains("Queue &amp; Merge") && row.contains("<span class=\"count\">3</span>"))
        withExtendedLifetime(page.live) {}
    }

    /// A batch update posts nothing; merged by hand, it reaches the page.
    @Test func aBatchUpdateMergedByHandReachesThePage() async throws {
        let page = try await Page()
        let server = try await page.library.viewContext.perform { [library = page.library] in
            try library.viewContext.fetch(FetchRequest<Server>(predicate: #Predicate { $0.title == "Coherence Blog" }))[0].objectID
        }
        #expect(try await page.library.markAllRead(server: server) == 6)
        let events = await read(page.events, until: Self.total(4)).map(Self.decode)
        let servers = events.filter { $0["kind"] as? String == "servers" }
        #expect(servers.contains { (($0["update"] as? [[String: Any]])?.first?["html"] as? String)?.contains("<span class=\"count\">0</span>") == true })
        withExtendedLifetime(page.live) {}
    }

    /// The element IDs of the item rows in `html`, in order.
    static func itemIDs(_ html: String) -> [String] {
        html.matches(of: /<li class="item [a-z]+" id="([^"]+)"/).map { String($0.1) }
    }

    /// A re-import of the shown feed with a new item (at the top) and a
    /// changed title: the events, applied as the page's script applies them
    /// (removals, insertions in ascending index, updates), give the rows a
    /// new page shows, in its order.
    @Test func insertionsAppliedAsThePageDoesGiveTheNewList() async throws {
        let page = try await Page()
        let first = await read(page.events) { _ in true }
        let snapshot = Self.decode(try #require(first.first))
        var rows = Self.itemIDs(try #require(snapshot["items"] as? String))
        let feed = try #require(snapshot["feed"] as? String)
        let updated = try FeedParser.parse(Data(contentsOf: Files.fixture("coherence-blog-updated.xml")), source: feed)
        let summary = try await FeedImporter(library: page.library).save(updated, address: feed)
        #expect(summary.added == 1 && summary.updated == 1)
        let events = await read(page.events, until: Self.total(11)).map(Self.decode)
        var titles: [String: String] = [:]
        for event in events where event["kind"] as? String == "items" {
            rows.removeAll { (event["remove"] as? [String] ?? []).contains($0) }
            let change = try #require((event["feeds"] as? [String: [String: Any]])?[feed])
            rows.removeAll { (change["remove"] as? [String] ?? []).contains($0) }
            for row in change["insert"] as? [[String: Any]] ?? [] {
                let id = try #require(row["id"] as? String)
                rows.removeAll { $0 == id }
                rows.insert(id, at: try #require(row["index"] as? Int))
                titles[id] = row["html"] as? String
            }
            for row in change["update"] as? [[String: Any]] ?? [] { titles[row["id"] as! String] = row["html"] as? String }
        }
        let context = page.library.viewContext
        let fresh = try await context.perform { try LiveStream.page(in: context, selected: nil) }
        #expect(rows == Self.itemIDs(fresh))
        #expect(titles[rows[0]]?.contains("Coherence 1.0 release candidate") == true)
        #expect(titles.values.contains { $0.contains("Persistent history across processes (updated)") })
        withExtendedLifetime(page.live) {}
    }

    /// Another coordinator on the same file (what another zeader process
    /// is) commits; the view context hears of it through persistent history
    /// and remote-change notifications, and so does the page. Then that
    /// other writer imports a new feed, which appears as a new server.
    @Test func anotherWritersChangesReachThePage() async throws {
        let page = try await Page()
        let other = try page.directory.library()
        try await other.markRead(titled: "Two contexts, one conflict")
        _ = await read(page.events, until: Self.total(9))
        _ = try await FeedImporter(library: other).importFeed(from: Files.fixture("late-breaking.xml").path)
        let events = await read(page.events, until: Self.total(12)).map(Self.decode)
        let inserted = events.compactMap { ($0["insert"] as? [[String: Any]])?.first?["html"] as? String }
        #expect(inserted.contains { $0.contains("Late Breaking") && $0.contains("<span class=\"count\">3</span>") })
        withExtendedLifetime(page.live) {}
    }
}
