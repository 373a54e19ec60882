// Errors as values with context, as Coherence's own are: each names what
// was wrong and where (the file or URL, and the line).
import Foundation

/// Why a feed could not be imported. Each names the file or URL, and the
/// line where the file says where.
public enum FeedError: Error, Equatable, CustomStringConvertible {
    /// The argument is neither a file path nor an http(s) URL.
    case invalidAddress(String, reason: String)
    /// The file cannot be read (missing, a directory, no permission).
    case unreadable(source: String, reason: String)
    /// The server cannot be reached (refused, unknown host, timeout).
    case unreachable(source: String, reason: String)
    /// The server answered with an HTTP error.
    case httpStatus(source: String, status: Int)
    /// The server sent more than the limit (``FeedSource/maximumSize``).
    case tooLarge(source: String, limit: Int)
    /// The XML is not well formed.
    case malformedXML(source: String, line: Int, column: Int, reason: String)
    /// Well-formed XML that is neither RSS nor Atom.
    case notAFeed(source: String, rootElement: String)
    /// A feed without a single item.
    case noItems(source: String)
    /// An item that cannot be imported (no identity, an unreadable date).
    case invalidItem(source: String, line: Int, reason: String)

    /// A message naming the source, and the line when known.
    public var description: String {
        switch self {
        case .invalidAddress(let address, let reason):
            "\(address): not a feed address (\(reason)); give a file path or an http(s) URL"
        case .unreadable(let source, let reason):
            "\(source): cannot be read: \(reason)"
        case .unreachable(let source, let reason):
            "\(source): cannot be reached: \(reason)"
        case .httpStatus(let source, let status):
            "\(source): the server answered HTTP \(status)"
        case .tooLarge(let source, let limit):
            "\(source): the feed is larger than \(limit / 1024 / 1024) MiB"
        case .malformedXML(let source, let line, let column, let reason):
            "\(source):\(line):\(column): malformed XML: \(reason)"
        case .notAFeed(let source, let root):
            "\(source):1: not an RSS or Atom feed (its root element is <\(root)>)"
        case .noItems(let source):
            "\(source): the feed has no items"
        case .invalidItem(let source, let line, let reason):
            "\(source):\(line): an item cannot be imported: \(reason)"
        }
    }
}
