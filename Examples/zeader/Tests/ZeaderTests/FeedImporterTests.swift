import Coherence
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import ZeaderKit

/// Importing: one save per feed, re-imports that update instead of
/// duplicating, failures that leave the store as it was.
@Suite("Feed importer")
struct FeedImporterTests {
    @Test func importsTheShippedFeeds() async throws {
        let directory = try TemporaryDirectory()
        let library = try directory.library()
        let importer = FeedImporter(library: library)
        for name in ["coherence-blog.xml", "swift-server-notes.xml", "queue-and-merge.xml"] {
            let summary = try await importer.importFeed(from: Files.feed(name).path)
            #expect(summary.added == summary.items && summary.updated == 0)
        }
        let contents = try await StoreContents(library)
        #expect(contents.feeds.count == 3)
        #expect(contents.itemCount == 15)
        // The derived count is stored with the rows.
        #expect(contents.feeds.values.allSatisfy { $0.unread == $0.items.count })
    }

    /// A re-import finds items by guid: an unchanged feed changes nothing, a
    /// changed one updates titles and adds new items, and read flags stay.
    @Test func reimportingUpdatesByGuidAndKeepsReadFlags() async throws {
        let directory = try TemporaryDirectory()
        let library = try directory.library()
        let feed = directory.url.appendingPathComponent("blog.xml")
        try FileManager.default.copyItem(at: Files.feed("coherence-blog.xml"), to: feed)
        let importer = FeedImporter(library: library)
        _ = try await importer.importFeed(from: feed.path)
        let first = try FeedParserTests.parse(feed).items[0]
        try await library.markRead(titled: first.title)
        let before = try await StoreContents(library)

        let again = try await importer.importFeed(from: feed.path)
        #expect(again.added == 0 && again.updated == 0)
        #expect(try await StoreContents(library) == before)

        try FileManager.default.removeItem(at: feed)
        try FileManager.default.copyItem(at: Files.fixture("coherence-blog-updated.xml"), to: feed)
        let updated = try await importer.importFeed(from: feed.path)
        #expect(updated.added == 1 && updated.updated == 1)
        let after = try await StoreContents(library)
        let server = try #require(after.feeds[feed.path])
        #expect(server.items.count == 7)
        #expect(server.items[first.guid] == true)
        #expect(server.unread == 6)
    }

    /// Two imports of one new feed at once: both find nothing and insert;
    /// the uniqueness constraints turn the second save's rows into the
    /// first's, as Core Data's constraint conflicts and merge policies do.
    @Test func concurrentImportsOfOneFeedDoNotDuplicate() async throws {
        let directory = try TemporaryDirectory()
        let library = try directory.library()
        let url = Files.feed("swift-server-notes.xml")
        let feed = try FeedParserTests.parse(url)
        let contexts = [library.backgroundContext(author: "a"), library.backgroundContext(author: "b")]
        // Both contexts look before either saves.
        for context in contexts {
            try await context.perform { _ = try FeedImporter.apply(feed, address: url.path, in: context) }
        }
        for context in contexts { try await context.perform { try context.save() } }
        let contents = try await StoreContents(library)
        #expect(contents.feeds.count == 1)
        #expect(contents.itemCount == 5)
        #expect(contents.feeds[url.path]?.unread == 5)
    }

    @Test(arguments: ["malformed.xml", "empty.xml", "not-a-feed.xml", "missing.xml"])
    func aFailedImportLeavesTheStoreAsItWas(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let library = try directory.library()
        let importer = FeedImporter(library: library)
        _ = try await importer.importFeed(from: Files.feed("queue-and-merge.xml").path)
        let before = try await StoreContents(library)
        let path = Files.fixture(name).path
        await #expect {
            _ = try await importer.importFeed(from: path)
        } throws: { error in
            (error as? FeedError)?.description.hasPrefix(path) == true
        }
        #expect(try await StoreContents(library) == before)
    }

    /// A save that fails (the store opened read-only) leaves the store as
    /// it was: one save per feed, nothing half-written, and the error
    /// reaches the caller.
    @Test func aFailedSaveLeavesTheStoreAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let writer = try directory.library()
        _ = try await FeedImporter(library: writer).importFeed(from: Files.feed("queue-and-merge.xml").path)
        let before = try await StoreContents(writer)
        let description = PersistentStoreDescription.sqlite(directory.url.appendingPathComponent("Zeader.sqlite"))
        description.isReadOnly = true
        let reader = try Library(description: description)
        await #expect {
            _ = try await FeedImporter(library: reader).importFeed(from: Files.feed("coherence-blog.xml").path)
        } throws: { error in
            if case .readOnlyStore? = error as? StoreError { true } else { false }
        }
        #expect(try await StoreContents(writer) == before)
        #expect(try await StoreContents(reader) == before)
    }

    /// A feed fetched over HTTP, and the errors of an HTTP server and of no
    /// server at all, each naming the URL.
    @Test func importsOverHTTP() async throws {
        let directory = try TemporaryDirectory()
        let library = try directory.library()
        let router = Router()
        let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: FeedSource.maximumSize + 1)
        // Announced too large, and too large without announcing it.
        router.get("/huge.xml") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: huge)) }
        router.get("/endless.xml") { _, _ in
            Response(status: .ok, body: ResponseBody { writer in
                for _ in 0..<12 { try await writer.write(ByteBuffer(repeating: UInt8(ascii: " "), count: 1024 * 1024)) }
                try await writer.finish(nil)
            })
        }
        router.get("/feed.xml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/rss+xml"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: try Data(contentsOf: Files.fixture("late-breaking.xml")))))
        }
        try await Application(router: router).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let summary = try await FeedImporter(library: library).importFeed(from: base + "/feed.xml")
            #expect(summary.title == "Late Breaking" && summary.added == 3)
            await #expect(throws: FeedError.httpStatus(source: base + "/missing.xml", status: 404)) {
                _ = try await FeedImporter(library: library).importFeed(from: base + "/missing.xml")
            }
            for name in ["/huge.xml", "/endless.xml"] {
                await #expect(throws: FeedError.tooLarge(source: base + name, limit: FeedSource.maximumSize)) {
                    _ = try await FeedImporter(library: library).importFeed(from: base + name)
                }
            }
        }
        await #expect {
            _ = try await FeedImporter(library: library).importFeed(from: "http://127.0.0.1:1/feed.xml")
        } throws: { error in
            guard case .unreachable(let source, _) = error as? FeedError else { return false }
            return source == "http://127.0.0.1:1/feed.xml"
        }
        #expect(try await StoreContents(library).itemCount == 3)
    }
}
