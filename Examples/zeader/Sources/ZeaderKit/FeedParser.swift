// Feed parsing: RSS 2.0 and Atom 1.0 into plain Sendable values, before any
// context is touched, so that a feed that fails to parse changes nothing.
//
// Foundation's XMLParser (FoundationXML on Linux) rather than a package: it
// ships with every Swift toolchain, reports the line of each error, and a
// feed needs nothing more than its event stream.
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A feed as parsed, not yet imported.
public struct ParsedFeed: Sendable, Equatable {
    /// The channel's (RSS) or feed's (Atom) title.
    public var title: String
    /// The feed's web site.
    public var link: String?
    /// Its items, in the file's order.
    public var items: [ParsedItem]
}

/// One item of a parsed feed.
public struct ParsedItem: Sendable, Equatable {
    /// RSS's `guid` or Atom's `id`; the link or the title when the feed gives none.
    public var guid: String
    /// The item's title.
    public var title: String
    /// The article's address.
    public var link: String?
    /// RSS's `pubDate`, Atom's `published` (or `updated`); the Unix epoch when
    /// the feed gives no date.
    public var published: Date
    /// The line of the file where the item starts.
    public var line: Int
}

/// Reads RSS 2.0 and Atom 1.0 feeds.
public enum FeedParser {
    /// Parses `data`, read from `source` (a path or URL, for error messages).
    /// - Throws: ``FeedError/malformedXML(source:line:column:reason:)``,
    ///   ``FeedError/notAFeed(source:rootElement:)``,
    ///   ``FeedError/noItems(source:)``,
    ///   ``FeedError/invalidItem(source:line:reason:)``.
    /// - Complexity: O(size of `data`).
    public static func parse(_ data: Data, source: String) throws(FeedError) -> ParsedFeed {
        let reader = FeedReader(source: source)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        // On Linux, parse() can return true after reporting errors (libxml2
        // recovers); the delegate keeps the first one.
        let parsed = parser.parse()
        if let error = reader.error { throw error }
        guard parsed, parser.parserError == nil else {
            throw .malformedXML(source: source, line: parser.lineNumber, column: parser.columnNumber,
                                reason: FeedReader.reason(parser.parserError))
        }
        guard let feed = reader.feed else { throw .notAFeed(source: source, rootElement: reader.root ?? "none") }
        guard !feed.items.isEmpty else { throw .noItems(source: source) }
        return feed
    }
}

/// XMLParser's delegate: collects the channel and its items from the
/// element stream. Knows RSS 2.0 (`rss > channel > item`) and Atom
/// (`feed > entry`); elements it does not know are skipped.
private final class FeedReader: NSObject, XMLParserDelegate {
    let source: String
    private(set) var root: String?
    private(set) var feed: ParsedFeed?
    private(set) var error: FeedError?

    private var path: [String] = []
    private var text = ""
    private var item: [String: String] = [:]
    private var itemLine = 0
    private let dates = FeedDates()

    init(source: String) { self.source = source }

    // MARK: Elements

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        if path.isEmpty {
            root = name
            if name == "rss" || name == "feed" { feed = ParsedFeed(title: "", link: nil, items: []) }
        }
        path.append(name)
        text = ""
        switch (format, name) {
        case (.rss, "item"), (.atom, "entry"):
            item = [:]
            itemLine = parser.lineNumber
        case (.atom, "link"):
            // Atom's link is an attribute; the alternate one is the article.
            guard let href = attributes["href"], (attributes["rel"] ?? "alternate") == "alternate" else { break }
            if isInItem {
                item["link"] = item["link"] ?? href
            } else if path.count == 2, feed?.link == nil {
                feed?.link = href
            }
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, foundCDATA block: Data) { text += String(decoding: block, as: UTF8.self) }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { path.removeLast(); text = "" }
        switch (format, name) {
        case (.rss, "item"), (.atom, "entry"):
            finishItem(parser)
        case (.rss, _) where isInItem, (.atom, _) where isInItem:
            if !value.isEmpty, item[name] == nil { item[name] = value }
        case (.rss, "title") where path == ["rss", "channel", "title"], (.atom, "title") where path == ["feed", "title"]:
            feed?.title = value
        case (.rss, "link") where path == ["rss", "channel", "link"]:
            feed?.link = value
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard error == nil else { return }
        fail(parser, .malformedXML(source: source, line: parser.lineNumber, column: parser.columnNumber,
                                   reason: Self.reason(parseError)))
    }

    /// Words for XMLParser's error codes (its messages are empty on Linux).
    static func reason(_ error: (any Error)?) -> String {
        guard let error else { return "unknown error" }
        let code = (error as NSError).code
        switch XMLParser.ErrorCode(rawValue: code) {
        case .tagNameMismatchError?: return "a closing tag does not match the element it closes"
        case .prematureDocumentEndError?: return "the document ends before its elements are closed"
        case .emptyDocumentError?: return "the document is empty"
        case .invalidCharacterError?: return "an invalid character"
        case .entityRefAtEOFError?, .entityRefLoopError?, .undeclaredEntityError?, .entityNotFinishedError?:
            return "an unknown or unfinished entity"
        case .attributeNotFinishedError?, .attributeNotStartedError?:
            return "a malformed attribute"
        case .gtRequiredError?, .ltRequiredError?, .ltSlashRequiredError?: return "a malformed tag"
        case .documentStartError?: return "text outside the root element"
        default: return "XML error \(code)"
        }
    }

    // MARK: Items

    private enum Format { case rss, atom, other }

    private var format: Format {
        switch root {
        case "rss": .rss
        case "feed": .atom
        default: .other
        }
    }

    private var isInItem: Bool {
        path.contains(format == .rss ? "item" : "entry")
    }

    /// Turns the collected fields of one item into a ``ParsedItem``, or
    /// stops the parse with the reason it cannot.
    private func finishItem(_ parser: XMLParser) {
        let isRSS = format == .rss
        let link = item["link"]
        let title = item["title"] ?? link ?? "Untitled"
        guard let guid = item[isRSS ? "guid" : "id"] ?? link ?? item["title"] else {
            fail(parser, .invalidItem(source: source, line: itemLine, reason: "it has no \(isRSS ? "guid" : "id"), link or title"))
            return
        }
        var published = Date(timeIntervalSince1970: 0)
        if let text = isRSS ? item["pubDate"] ?? item["dc:date"] : item["published"] ?? item["updated"] {
            guard let date = isRSS ? dates.rfc822(text) ?? dates.iso8601(text) : dates.iso8601(text) else {
                fail(parser, .invalidItem(source: source, line: itemLine, reason: "its date \"\(text)\" cannot be read"))
                return
            }
            published = date
        }
        feed?.items.append(ParsedItem(guid: guid, title: title, link: link, published: published, line: itemLine))
    }

    private func fail(_ parser: XMLParser, _ error: FeedError) {
        self.error = error
        parser.abortParsing()
    }
}

/// The date forms feeds use: RFC 822 in RSS, RFC 3339 (ISO 8601) in Atom.
private struct FeedDates {
    private let rfc822Formatters: [DateFormatter] = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEE, dd MMM yyyy HH:mm:ss Z",
        "dd MMM yyyy HH:mm:ss zzz", "dd MMM yyyy HH:mm:ss Z",
        "EEE, dd MMM yyyy HH:mm zzz", "EEE, dd MMM yyyy HH:mm Z",
    ].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = format
        return formatter
    }
    private let iso = ISO8601DateFormatter()
    private let isoFractional: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    /// RFC 822's form; a two-digit year is read as RFC 2822 says (00–49:
    /// 2000–2049, 50–99: 1950–1999), where DateFormatter would read year 26.
    func rfc822(_ text: String) -> Date? {
        let fourDigits = text.replacing(/^((?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+)(\d{2})(\s)/) { match in
            "\(match.1)\(Int(match.2)! < 50 ? "20" : "19")\(match.2)\(match.3)"
        }
        return rfc822Formatters.lazy.compactMap { $0.date(from: fourDigits) }.first
    }

    private let isoDay: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter
    }()

    /// RFC 3339, with or without fractional seconds, or a day alone (W3C's
    /// date form, which `dc:date` allows).
    func iso8601(_ text: String) -> Date? {
        iso.date(from: text) ?? isoFractional.date(from: text) ?? (text.count == 10 ? isoDay.date(from: text) : nil)
    }
}
