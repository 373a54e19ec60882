import Coherence
import Foundation
import Testing
@testable import ZeaderKit

/// The shipped sample feeds and the tests' fixtures.
enum Files {
    static let feeds = Commands.sampleFeeds
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func feed(_ name: String) -> URL { feeds.appendingPathComponent(name) }
    static func fixture(_ name: String) -> URL { fixtures.appendingPathComponent(name) }
}

/// A throwaway directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A new library on an SQLite file in this directory.
    func library(_ name: String = "Zeader.sqlite") throws -> Library {
        try Library(store: url.appendingPathComponent(name).path)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// What a library's store holds, read on a new background context: each
/// server's title with its items' titles and read flags, and its unread count.
struct StoreContents: Equatable, CustomStringConvertible {
    struct Feed: Equatable {
        var title: String
        var unread: Int
        var items: [String: Bool]
    }

    var feeds: [String: Feed]

    init(_ library: Library) async throws {
        let context = library.container.newBackgroundContext()
        feeds = try await context.perform {
            var feeds: [String: Feed] = [:]
            for server in try context.fetch(FetchRequest<Server>()) {
                feeds[server.url] = Feed(title: server.title, unread: server.unreadCount,
                                         items: Dictionary(uniqueKeysWithValues: server.feedItems.map { ($0.guid, $0.read) }))
            }
            return feeds
        }
    }

    var itemCount: Int { feeds.values.reduce(0) { $0 + $1.items.count } }

    var description: String {
        feeds.keys.sorted().map { "\(feeds[$0]!.title): \(feeds[$0]!.items.count) items, \(feeds[$0]!.unread) unread" }
            .joined(separator: "; ")
    }
}

/// Reads `stream` until an event satisfies `done`, and returns the events
/// read. Records an issue if the stream ends, or if `seconds` pass first (a
/// guard against a hang, not a timing assertion).
func read(_ stream: AsyncStream<String>, within seconds: Int = 120, until done: @escaping @Sendable (String) -> Bool,
          sourceLocation: SourceLocation = #_sourceLocation) async -> [String] {
    let events = await withTaskGroup(of: [String]?.self) { group in
        group.addTask {
            var events: [String] = []
            for await event in stream {
                events.append(event)
                if done(event) { return events }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    if events == nil { Issue.record("no such event within \(seconds) s", sourceLocation: sourceLocation) }
    return events ?? []
}
