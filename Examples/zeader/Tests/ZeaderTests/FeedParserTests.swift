import Foundation
import Testing
@testable import ZeaderKit

/// The parser on the shipped feeds and on broken ones.
@Suite("Feed parser")
struct FeedParserTests {
    static func parse(_ url: URL) throws -> ParsedFeed {
        try FeedParser.parse(Data(contentsOf: url), source: url.path)
    }

    @Test func readsTheShippedRSSFeed() throws {
        let feed = try Self.parse(Files.feed("coherence-blog.xml"))
        #expect(feed.title == "Coherence Blog")
        #expect(feed.items.count == 6)
        #expect(Set(feed.items.map(\.guid)).count == 6)
        #expect(feed.items.allSatisfy { $0.link?.hasPrefix("https://coherence.example/blog/") == true })
        // RFC 822 dates, a named zone and a numeric one, read as instants.
        #expect(feed.items.allSatisfy { $0.published > Date(timeIntervalSince1970: 1_700_000_000) })
        #expect(feed.items.allSatisfy { $0.line > 1 })
    }

    @Test func readsTheShippedAtomFeed() throws {
        let feed = try Self.parse(Files.feed("swift-server-notes.xml"))
        #expect(feed.title == "Swift Server Notes")
        #expect(feed.link == "https://swiftserver.example/")
        #expect(feed.items.count == 5)
        // An entity in a title is decoded.
        #expect(feed.items.map(\.title).contains("Connection pools & back-pressure"))
        #expect(feed.items.allSatisfy { $0.guid.hasPrefix("urn:") || $0.guid.hasPrefix("tag:") })
        #expect(feed.items.allSatisfy { $0.published > Date(timeIntervalSince1970: 1_700_000_000) })
    }

    @Test func fractionalSecondsAndOffsetsInAtomDates() throws {
        let atom = """
        <feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>
        <entry><title>a</title><id>1</id><updated>2026-10-21T08:15:30.250Z</updated></entry>
        <entry><title>b</title><id>2</id><published>2026-10-21T10:15:30+02:00</published><updated>2027-01-01T00:00:00Z</updated></entry>
        </feed>
        """
        let feed = try FeedParser.parse(Data(atom.utf8), source: "inline")
        #expect(feed.items[0].published.timeIntervalSince1970 == 1_792_570_530.25)
        // `published` wins over `updated`; the offset is applied.
        #expect(feed.items[1].published.timeIntervalSince1970 == 1_792_570_530)
    }

    /// RFC 822's two-digit years, read as RFC 2822 says.
    @Test func twoDigitYears() throws {
        let rss = """
        <rss version="2.0"><channel><title>T</title>
        <item><title>a</title><guid>1</guid><pubDate>Tue, 03 Nov 26 09:30:00 GMT</pubDate></item>
        <item><title>b</title><guid>2</guid><pubDate>03 Nov 99 09:30:00 +0000</pubDate></item>
        </channel></rss>
        """
        let items = try FeedParser.parse(Data(rss.utf8), source: "inline").items
        #expect(items[0].published.timeIntervalSince1970 == 1_793_698_200)
        #expect(items[1].published.timeIntervalSince1970 == 941_621_400)
    }

    /// `dc:date` in W3C's day form.
    @Test func aDayAloneIsADate() throws {
        let rss = """
        <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>
        <item><title>a</title><guid>1</guid><dc:date>2026-11-03</dc:date></item>
        </channel></rss>
        """
        #expect(try FeedParser.parse(Data(rss.utf8), source: "inline").items[0].published.timeIntervalSince1970 == 1_793_664_000)
    }

    @Test func anRSSItemWithoutAGuidIsKnownByItsLink() throws {
        let feed = try Self.parse(Files.feed("queue-and-merge.xml"))
        #expect(feed.title == "Queue & Merge")
        #expect(feed.items.count == 4)
        let withoutGuid = try #require(feed.items.first { !$0.guid.hasPrefix("queue-and-merge-") })
        #expect(withoutGuid.guid == withoutGuid.link)
    }

    @Test func malformedXMLNamesTheFileAndLine() throws {
        let url = Files.fixture("malformed.xml")
        #expect {
            try Self.parse(url)
        } throws: { error in
            guard case .malformedXML(let source, let line, _, _) = error as? FeedError else { return false }
            return source == url.path && line == 7
        }
        let error = try #require(throws: FeedError.self) { try Self.parse(url) }
        #expect(error.description.hasPrefix("\(url.path):7:"))
    }

    @Test func aFeedWithoutItemsIsRefused() {
        let url = Files.fixture("empty.xml")
        #expect(throws: FeedError.noItems(source: url.path)) { try Self.parse(url) }
    }

    @Test func anHTMLPageIsNotAFeed() {
        let url = Files.fixture("not-a-feed.xml")
        #expect(throws: FeedError.notAFeed(source: url.path, rootElement: "html")) { try Self.parse(url) }
    }

    @Test func anItemWithAnUnreadableDateNamesItsLine() {
        let rss = """
        <rss version="2.0"><channel><title>T</title>
        <item><title>a</title><guid>1</guid><pubDate>Tue, 03 Nov 2026 09:30:00 GMT</pubDate></item>
        <item><title>b</title><guid>2</guid><pubDate>yesterday</pubDate></item>
        </channel></rss>
        """
        #expect(throws: FeedError.invalidItem(source: "inline", line: 3, reason: "its date \"yesterday\" cannot be read")) {
            try FeedParser.parse(Data(rss.utf8), source: "inline")
        }
    }

    @Test func addressesAreFilesOrWebURLs() throws {
        #expect(try FeedSource("https://example.com/feed.xml") == .web(URL(string: "https://example.com/feed.xml")!))
        #expect(try FeedSource("feeds/a.xml").address.hasSuffix("/feeds/a.xml"))
        #expect(throws: FeedError.invalidAddress("ftp://example.com/a.xml", reason: "the scheme ftp is not http, https or file")) {
            try FeedSource("ftp://example.com/a.xml")
        }
        #expect(throws: FeedError.invalidAddress("http:///a.xml", reason: "it names no host")) { try FeedSource("http:///a.xml") }
        #expect(throws: FeedError.invalidAddress(" ", reason: "it is empty")) { try FeedSource(" ") }
    }
}
