import Coherence
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import ZeaderKit

/// The web routes, through Hummingbird's router test client: the page, the
/// actions, and bad requests, each answered with a 4xx and a message, the
/// store unchanged and the server still serving.
@Suite("Web routes")
struct WebRoutesTests {
    static let fetchHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .init("X-Requested-With")!: "fetch"]

    /// A library with the three shipped feeds.
    static func library(in directory: TemporaryDirectory) async throws -> Library {
        let library = try directory.library()
        for name in ["coherence-blog.xml", "swift-server-notes.xml", "queue-and-merge.xml"] {
            _ = try await FeedImporter(library: library).importFeed(from: Files.feed(name).path)
        }
        return library
    }

    static func itemID(_ library: Library, titled title: String) async throws -> String {
        let context = library.container.newBackgroundContext()
        return try await context.perform {
            try context.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.title == title }))[0]
                .objectID.uriRepresentation().absoluteString
        }
    }

    static func post(_ client: any TestClientProtocol, _ path: String, _ body: String) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(uri: path, method: .post, headers: fetchHeaders, body: ByteBuffer(string: body)) {
            ($0.status, String(buffer: $0.body))
        }
    }

    @Test func thePageListsTheFeedsWithTheirUnreadCounts() async throws {
        let directory = try TemporaryDirectory()
        let library = try await Self.library(in: directory)
        let app = Application(router: WebRoutes(library: library, broadcaster: Broadcaster()).router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(html.contains("<title>zeader (15 unread)</title>"))
                for title in ["Coherence Blog", "Swift Server Notes", "Queue &amp; Merge"] { #expect(html.contains(title)) }
                // The first server by title is selected, with its six items.
                #expect(html.components(separatedBy: "class=\"item unread\"").count - 1 == 6)
            }
        }
    }

    @Test func clickingAnItemAndMarkingAFeedRead() async throws {
        let directory = try TemporaryDirectory()
        let library = try await Self.library(in: directory)
        let app = Application(router: WebRoutes(library: library, broadcaster: Broadcaster()).router())
        let id = try await Self.itemID(library, titled: "Two contexts, one conflict")
        try await app.test(.router) { client in
            #expect(try await Self.post(client, "/items/read", "id=\(Page.queryValue(id))") == (.ok, "Marked read"))
            var contents = try await StoreContents(library)
            #expect(contents.feeds.values.first { $0.title == "Queue & Merge" }?.unread == 3)

            let server = try await client.execute(uri: "/", method: .get) { response in
                String(buffer: response.body).firstMatch(of: /data-id="([^"]*\/Server\/p[0-9]+)"/).map { String($0.1) }
            }
            #expect(try await Self.post(client, "/servers/read", "id=\(Page.queryValue(try #require(server)))") == (.ok, "Marked 6 items read"))
            contents = try await StoreContents(library)
            #expect(contents.feeds.values.first { $0.title == "Coherence Blog" }?.unread == 0)

            // A plain form (no script) is sent back to the page.
            try await client.execute(uri: "/items/read", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "id=\(Page.queryValue(id))")) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/")
            }
        }
    }

    /// Each bad request: its path, its body, the status and a part of the message.
    static let badRequests: [(String, String, HTTPResponse.Status, String)] = [
        ("/items/read", "id=hello", .badRequest, "\"hello\" is not an object ID"),
        ("/items/read", "id=%zz", .badRequest, "malformed form data"),
        ("/items/read", "title=x", .badRequest, "the form has no id"),
        ("/items/read", "id=\(Page.queryValue("x-coherence://0000/FeedItem/p1"))", .notFound, "no FeedItem x-coherence://0000/FeedItem/p1 in this store"),
        ("/servers/read", "id=nonsense", .badRequest, "is not an object ID"),
        ("/feeds", "url=not%20a%20url", .badRequest, "the page adds http(s) feeds only"),
        ("/feeds", "url=ftp%3A%2F%2Fexample.com%2Ffeed.xml", .badRequest, "the scheme ftp is not http, https or file"),
        ("/feeds", "url=%2Fetc%2Fpasswd", .badRequest, "the page adds http(s) feeds only"),
        ("/feeds", "id=1", .badRequest, "the form has no url"),
        ("/items/read", "id=" + String(repeating: "a", count: 10 * 1024 * 1024), .contentTooLarge, "larger than 65536 bytes"),
    ]

    /// Feed text is untrusted: a quote followed by a combining mark is one
    /// Swift Character, and must still be escaped.
    @Test func feedTextIsEscaped() {
        let hostile = "https://x\"\u{301} onmouseover=alert(1) x=\"\u{301}<script>"
        let escaped = Page.escape(hostile)
        #expect(!escaped.unicodeScalars.contains { $0 == "\"" || $0 == "<" || $0 == ">" })
        #expect(escaped.contains("&quot;\u{301}"))
    }

    /// Another site's page cannot make the browser change the feeds, nor
    /// can a request for another host name (DNS rebinding).
    @Test func requestsFromOtherSitesAreRefused() async throws {
        let directory = try TemporaryDirectory()
        let library = try await Self.library(in: directory)
        let id = try await Self.itemID(library, titled: "Two contexts, one conflict")
        let before = try await StoreContents(library)
        let app = Application(router: WebRoutes(library: library, broadcaster: Broadcaster()).router())
        let refused: [HTTPFields] = [
            [.origin: "http://evil.example"],
            [.init("Sec-Fetch-Site")!: "cross-site"],
        ]
        try await app.test(.router) { client in
            for headers in refused {
                var all = Self.fetchHeaders
                all.append(contentsOf: headers)
                try await client.execute(uri: "/items/read", method: .post, headers: all,
                                         body: ByteBuffer(string: "id=\(Page.queryValue(id))")) { response in
                    #expect(response.status == .forbidden)
                    #expect(String(buffer: response.body).contains("cannot change zeader's feeds"))
                }
            }
            var sameOrigin = Self.fetchHeaders
            // Hummingbird's router test client asks for host "localhost".
            sameOrigin.append(contentsOf: [.origin: "http://localhost", .init("Sec-Fetch-Site")!: "same-origin"] as HTTPFields)
            try await client.execute(uri: "/items/read", method: .post, headers: sameOrigin,
                                     body: ByteBuffer(string: "id=\(Page.queryValue(id))")) { #expect($0.status == .ok) }
        }
        let after = try await StoreContents(library)
        #expect(after.feeds.values.reduce(0) { $0 + $1.unread } == before.feeds.values.reduce(0) { $0 + $1.unread } - 1)
    }

    @Test func badRequestsAreRefusedAndChangeNothing() async throws {
        let directory = try TemporaryDirectory()
        let library = try await Self.library(in: directory)
        let otherDirectory = try TemporaryDirectory()
        let other = try otherDirectory.library()
        _ = try await FeedImporter(library: other).importFeed(from: Files.feed("queue-and-merge.xml").path)
        let foreignID = try await Self.itemID(other, titled: "Two contexts, one conflict")
        let itemID = try await Self.itemID(library, titled: "Two contexts, one conflict")
        let before = try await StoreContents(library)
        let app = Application(router: WebRoutes(library: library, broadcaster: Broadcaster()).router())
        let requests = Self.badRequests + [
            // An ID of another store, and an item's ID given as a server's.
            ("/items/read", "id=\(Page.queryValue(foreignID))", .notFound, "no FeedItem"),
            ("/servers/read", "id=\(Page.queryValue(itemID))", .notFound, "no Server"),
            ("/items/read", "id=\(Page.queryValue(itemID.replacing(#/p[0-9]+$/#, with: "p99999")))", .notFound, "no FeedItem"),
        ]
        try await app.test(.router) { client in
            for (path, body, status, message) in requests {
                let (answered, text) = try await Self.post(client, path, body)
                #expect(answered == status, "\(path) \(body.prefix(80))")
                #expect(text.contains(message), "\(path) \(body.prefix(80)): \(text)")
            }
            // Still serving.
            try await client.execute(uri: "/", method: .get) { #expect($0.status == .ok) }
        }
        #expect(try await StoreContents(library) == before)
    }
}
