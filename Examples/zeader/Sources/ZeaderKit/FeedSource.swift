// Where a feed comes from: a file, or an http(s) URL fetched with
// URLSession (FoundationNetworking on Linux: part of every toolchain, so the
// example needs no HTTP client package).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A feed's address: a file or a web URL.
public enum FeedSource: Sendable, Equatable {
    /// A file on this machine.
    case file(URL)
    /// A feed served over http or https.
    case web(URL)

    /// The source `argument` names: an http(s) URL, a `file:` URL or a path
    /// (relative to the current directory).
    /// - Throws: ``FeedError/invalidAddress(_:reason:)`` for anything else.
    public init(_ argument: String) throws(FeedError) {
        let trimmed = argument.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidAddress(argument, reason: "it is empty") }
        guard trimmed.contains("://") else {
            self = .file(URL(fileURLWithPath: trimmed).standardizedFileURL)
            return
        }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased() else {
            throw .invalidAddress(argument, reason: "it is not a URL")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { throw .invalidAddress(argument, reason: "it names no host") }
            self = .web(url)
        case "file":
            self = .file(url.standardizedFileURL)
        default:
            throw .invalidAddress(argument, reason: "the scheme \(scheme) is not http, https or file")
        }
    }

    /// The largest feed downloaded: 10 MiB.
    public static let maximumSize = 10 * 1024 * 1024

    /// The address kept in ``Server/url``: the file's absolute path, or the URL.
    public var address: String {
        switch self {
        case .file(let url): url.path
        case .web(let url): url.absoluteString
        }
    }

    /// The feed's bytes.
    /// - Throws: ``FeedError/unreadable(source:reason:)``,
    ///   ``FeedError/unreachable(source:reason:)``, ``FeedError/httpStatus(source:status:)``,
    ///   ``FeedError/tooLarge(source:limit:)``.
    public func load() async throws(FeedError) -> Data {
        switch self {
        case .file(let url):
            do {
                return try Data(contentsOf: url)
            } catch {
                let reason = FileManager.default.fileExists(atPath: url.path) ? (error as NSError).localizedDescription : "no such file"
                throw .unreadable(source: address, reason: reason)
            }
        case .web(let url):
            var request = URLRequest(url: url, timeoutInterval: 15)
            request.setValue("application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.1", forHTTPHeaderField: "Accept")
            let data: Data, response: URLResponse?
            do {
                (data, response) = try await FeedDownload.load(request, limit: Self.maximumSize)
            } catch FeedDownload.Failure.tooLarge {
                throw .tooLarge(source: address, limit: Self.maximumSize)
            } catch FeedDownload.Failure.failed(let error) {
                throw .unreachable(source: address, reason: (error as NSError).localizedDescription)
            } catch {
                throw .unreachable(source: address, reason: "\(error)")
            }
            if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                throw .httpStatus(source: address, status: http.statusCode)
            }
            return data
        }
    }
}
