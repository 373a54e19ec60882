// The command line:
//
//   zeader [--store STORE] [--port N]          serve, importing the sample feeds on first run
//   zeader serve [--store STORE] [--port N]    serve the page on 127.0.0.1 (port 8080; 0: any free one)
//   zeader import [--store STORE] FILE_OR_URL… import feeds
//   zeader read [--store STORE] TITLE          mark the item(s) with this title read
//   zeader demo                                a scripted walk-through in the terminal
//
// STORE is an SQLite file's path or a postgres:// URL; without it, Zeader.sqlite in
// PersistentContainer.defaultDirectoryURL() (COHERENCE_STORE_DIRECTORY moves it).
import Coherence
import Foundation
import Hummingbird

/// zeader's commands.
public enum Commands {
    /// The usage text.
    public static let usage = """
    usage: zeader [--store STORE] [--port N]           serve the page, importing the sample feeds on first run
           zeader serve [--store STORE] [--port N]     serve the page on 127.0.0.1 (port 8080; 0 picks a free one)
           zeader import [--store STORE] FILE_OR_URL…  import RSS 2.0 or Atom feeds
           zeader read [--store STORE] TITLE           mark the item(s) with this title read
           zeader demo                                 a scripted walk-through in the terminal
    STORE is an SQLite file's path or a postgres:// URL (default: Zeader.sqlite in the default directory).
    """

    /// The sample feeds shipped with the example.
    public static let sampleFeeds = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Feeds")

    /// Runs the command `arguments` (without the program's name) names and
    /// returns the exit status.
    @MainActor
    public static func run(_ arguments: [String]) async -> Int32 {
        do {
            var options = try Options(arguments)
            let command = options.positional.first.flatMap { ["serve", "import", "read", "demo", "help"].contains($0) ? $0 : nil }
            if command != nil { options.positional.removeFirst() }
            switch (command, options.positional.count) {
            case (nil, 0): try await serve(options, importingSamples: true)
            case ("serve", 0): try await serve(options, importingSamples: false)
            case ("import", 1...): return try await importFeeds(options)
            case ("read", 1): try await read(options.positional[0], options)
            case ("demo", 0): try await Demo().run(feeds: sampleFeeds)
            case ("help", _): say(usage)
            default: throw UsageError(message: "unexpected arguments: \(arguments.joined(separator: " "))")
            }
            return 0
        } catch let error as UsageError {
            complain(error.message + "\n" + usage)
            return 2
        } catch {
            complain("\(error)")
            return 1
        }
    }

    // MARK: Commands

    @MainActor
    private static func serve(_ options: Options, importingSamples: Bool) async throws {
        let library = try Library(store: options.store)
        say("zeader: store \(library.location)")
        let view = library.viewContext
        if importingSamples, try view.count(for: FetchRequest<Server>()) == 0 {
            let files = try FileManager.default.contentsOfDirectory(atPath: sampleFeeds.path).filter { $0.hasSuffix(".xml") }.sorted()
            for file in files {
                say("zeader: \(try await FeedImporter(library: library).importFeed(from: sampleFeeds.appendingPathComponent(file).path))")
            }
        }
        let broadcaster = Broadcaster()
        let live = try LiveStream(context: view, broadcaster: broadcaster) { say("zeader: \($0)") }
        let routes = WebRoutes(library: library, broadcaster: broadcaster) { say("zeader: \($0)") }
        // The live stream follows the view context for as long as the server runs.
        defer { withExtendedLifetime(live) {} }
        try await routes.application(port: options.port ?? 8080) { say("zeader: serving \($0)") }.runService()
    }

    private static func importFeeds(_ options: Options) async throws -> Int32 {
        let library = try Library(store: options.store)
        let importer = FeedImporter(library: library)
        var status: Int32 = 0
        for argument in options.positional {
            do {
                say(try await importer.importFeed(from: argument).description)
            } catch {
                complain("\(error)")
                status = 1
            }
        }
        return status
    }

    private static func read(_ title: String, _ options: Options) async throws {
        let library = try Library(store: options.store)
        let count = try await library.markRead(titled: title)
        say("Marked \(count) item\(count == 1 ? "" : "s") titled \"\(title)\" read")
    }

    private static func complain(_ message: String) {
        FileHandle.standardError.write(Data("zeader: \(message)\n".utf8))
    }
}

/// A command line zeader cannot read.
struct UsageError: Error {
    var message: String
}

/// `--store STORE` and `--port N`, anywhere among the arguments.
struct Options {
    var store: String?
    var port: Int?
    var positional: [String] = []

    init(_ arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--store":
                guard let value = remaining.popFirst() else { throw UsageError(message: "--store needs a path or URL") }
                store = value
            case "--port":
                guard let value = remaining.popFirst(), let number = Int(value), (0...65535).contains(number) else {
                    throw UsageError(message: "--port needs a number from 0 to 65535")
                }
                port = number
            case "--":
                positional.append(contentsOf: remaining)
                remaining = []
            case let option where option.hasPrefix("--"):
                throw UsageError(message: "unknown option \(option)")
            default:
                positional.append(argument)
            }
        }
    }
}
