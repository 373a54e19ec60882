import Coherence
import CoherencePostgres
import Foundation
import Workloads

/// How long another process's save takes to reach a context: from `save()`
/// returning in a writer process to the didChangeObjects of a context with
/// `automaticallyMergesRemoteChanges` in this one, on one SQLite file or one
/// PostgreSQL database.
///
///     remote-change-delay sqlite|postgres [saves] [output.json]
///
/// This process (the reader) starts the writer (this executable again, with
/// `--writer`), then asks it for one save at a time on its standard input:
/// the writer inserts one item numbered n, saves, and prints n and the
/// monotonic time at which `save()` returned (`CLOCK_MONOTONIC`, the same
/// clock in every process of the machine). The reader notes when its
/// context announces item n, and asks for the next save only then, so each
/// delay is one save's, not a queue's. The first 20 saves warm both sides up
/// and are not counted. Prints (and writes to `output.json`) the p50, p99
/// and maximum in microseconds. PostgreSQL needs `COHERENCE_POSTGRES_URL`.
@main
struct RemoteChangeDelay {
    static let warmUp = 20

    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count >= 4, arguments[1] == "--writer" {
            try writer(kind: arguments[2], address: arguments[3])
            return
        }
        guard arguments.count >= 2, ["sqlite", "postgres"].contains(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: remote-change-delay sqlite|postgres [saves] [output.json]\n".utf8))
            exit(2)
        }
        let saves = arguments.count >= 3 ? Int(arguments[2]) ?? 1_000 : 1_000
        let delays = try await measure(kind: arguments[1], saves: saves)
        let sorted = delays.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        let result: [String: Double] = ["p50": percentile(0.5), "p99": percentile(0.99), "max": sorted.last ?? 0, "saves": Double(sorted.count)]
        print("\(arguments[1]): \(sorted.count) saves, delay p50 \(Int(result["p50"]!)) µs, p99 \(Int(result["p99"]!)) µs, max \(Int(result["max"]!)) µs")
        if arguments.count >= 4 {
            try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]).write(to: URL(filePath: arguments[3]))
        }
    }

    /// Microseconds of the monotonic clock.
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000
    }

    /// The store's description: a new SQLite file, or a new schema.
    static func newStore(kind: String) throws -> (description: PersistentStoreDescription, address: String, schema: String?) {
        if kind == "sqlite" {
            let url = Stack.newFile("remote.sqlite")
            return (.sqlite(url), url.path, nil)
        }
        guard let server = PostgresWorkloads.serverURL else {
            throw Failure("COHERENCE_POSTGRES_URL is not set")
        }
        var configuration = try PostgresConfiguration(url: server)
        configuration.schema = "remote_delay_\(UUID().uuidString.prefix(8).lowercased())"
        return (.postgres(configuration), configuration.url.absoluteString, configuration.schema)
    }

    static func description(kind: String, address: String) throws -> PersistentStoreDescription {
        let description: PersistentStoreDescription = kind == "sqlite" ? .sqlite(URL(filePath: address)) : .postgres(try PostgresConfiguration(url: address))
        description.persistentHistoryTracking = true
        return description
    }

    // MARK: The reader

    static func measure(kind: String, saves: Int) async throws -> [Double] {
        let store = try newStore(kind: kind)
        defer { Stack.removeFiles() }
        store.description.persistentHistoryTracking = true
        let context = try Stack.context(Stack.itemModel, store.description)
        context.automaticallyMergesRemoteChanges = true
        let announced = Announcements()
        let observer = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil) { note in
            // On the context's queue, where it posts.
            let time = now()
            for case let item as Item in note.userInfo?[ManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<ManagedObject> ?? [] {
                announced.note(item.i0, at: time)
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let writer = Process()
        writer.executableURL = URL(filePath: CommandLine.arguments[0]).standardizedFileURL
        writer.arguments = ["--writer", kind, store.address]
        let input = Pipe(), output = Pipe()
        writer.standardInput = input
        writer.standardOutput = output
        try writer.run()
        defer {
            try? input.fileHandleForWriting.close()
            writer.waitUntilExit()
        }
        let lines = LineReader(output.fileHandleForReading)
        var delays: [Double] = []
        for n in 0..<(saves + warmUp) {
            input.fileHandleForWriting.write(Data("\(n)\n".utf8))
            guard let line = lines.next() else { throw Failure("the writer stopped") }
            let parts = line.split(separator: " ")
            guard parts.count == 2, Int64(parts[0]) == Int64(n), let saved = Double(parts[1]) else { throw Failure("the writer said \(line)") }
            guard let received = announced.wait(for: Int64(n)) else { throw Failure("item \(n) was not announced within 60 s") }
            if n >= warmUp { delays.append(received - saved) }
        }
        if let schema = store.schema, let server = PostgresWorkloads.serverURL {
            try await PostgresWorkloads.dropSchema(url: server, schema)
        }
        return delays
    }

    // MARK: The writer

    /// For each number read from standard input: inserts an item with it,
    /// saves, prints the number and when `save()` returned.
    static func writer(kind: String, address: String) throws {
        let context = try Stack.context(Stack.itemModel, description(kind: kind, address: address))
        while let line = readLine() {
            guard let n = Int64(line) else { break }
            let returned = try context.performAndWait {
                Item(context: context).fill(n)
                try context.save()
                return now()
            }
            FileHandle.standardOutput.write(Data("\(n) \(returned)\n".utf8))
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// When the reader's context announced each item, and a wait for one.
final class Announcements: @unchecked Sendable {
    private let lock = NSCondition()
    private var times: [Int64: Double] = [:]

    func note(_ n: Int64, at time: Double) {
        lock.withLock {
            times[n] = time
            lock.broadcast()
        }
    }

    /// When item `n` was announced, waiting up to 60 s for it.
    func wait(for n: Int64) -> Double? {
        let deadline = Date(timeIntervalSinceNow: 60)
        lock.lock()
        defer { lock.unlock() }
        while times[n] == nil, lock.wait(until: deadline) {}
        return times[n]
    }
}

