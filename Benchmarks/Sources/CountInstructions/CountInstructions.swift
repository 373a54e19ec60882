import CCallgrind
import Foundation
import Synchronization
import Workloads

/// callgrind's instrumentation, as the workloads' ``Meter``: only what runs
/// between `start()` and `stop()`, on every thread, is counted.
struct CallgrindMeter: Meter {
    func start() { coherence_callgrind_start() }
    func stop() { coherence_callgrind_stop() }
}

/// The warm-up run's meter: measures nothing.
struct NoMeter: Meter {
    func start() {}
    func stop() {}
}

/// Runs one insert or fetch workload at a given size between callgrind's
/// start and stop of instrumentation, after one warm-up run (as the
/// benchmarks warm up once), so that its instruction count excludes setup:
///
///     valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=OUT \
///         .build/release/count-instructions insert/Fluent 5000
///
/// Both runs are checked: every row written or read, with the right values.
/// `Benchmarks/instructions` runs every workload this way and collects the
/// totals.
@main
struct CountInstructions {
    /// A synchronous main that waits for the workload's task: an `async`
    /// main parks the main thread in libdispatch's `sigsuspend` while the
    /// task waits for other threads (as Fluent's do), and valgrind 3.19
    /// crashes on that call (it writes to the signal mask, which libdispatch
    /// keeps in read-only memory).
    static func main() {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Task.detached {
            do { try await run() } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { fail("count-instructions: \(error)") }
    }

    static func run() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, let rows = Int(arguments[1]), rows > 0 else {
            let names = insertWorkloads.map { "insert/\($0.key)" } + ["insert/Coherence history"] + fetchWorkloads.map { "fetch/\($0.key)" }
                + PostgresWorkloads.insertWorkloads.map { "insert/\($0.key)" }
                + PostgresWorkloads.fetchWorkloads.map { "fetch/\($0.key)" } + ["change/plain", "change/Coherence"]
            fail("usage: count-instructions WORKLOAD ROWS\nworkloads: \(names.joined(separator: ", "))")
        }
        let name = arguments[0]
        if coherence_callgrind_available() == 0 {
            fail("count-instructions was built without valgrind's headers (valgrind/callgrind.h): install valgrind and rebuild")
        }
        if coherence_running_on_valgrind() == 0 {
            FileHandle.standardError.write(Data("count-instructions: not running under valgrind; nothing is counted\n".utf8))
        }
        defer { Stack.removeFiles() }
        let expected = expectedItems(rows: rows)
        // The insert with persistent history on, beside insert/Coherence.
        let history: KeyValuePairs<String, InsertWorkload> = ["insert/Coherence history": insertCoherenceWithHistory]
        if name.hasPrefix("insert/"),
           let insert = insertWorkloads.first(where: { "insert/\($0.key)" == name })?.value ?? history.first(where: { $0.key == name })?.value {
            for meter in [NoMeter(), CallgrindMeter()] as [any Meter] {
                let written = try itemsWritten(in: try await insert(rows, meter))
                check(written == expected, "\(name) wrote \(written), expected \(expected)")
            }
        } else if name.hasPrefix("fetch/"), let fetch = fetchWorkloads.first(where: { "fetch/\($0.key)" == name })?.value {
            let file = try Stack.itemFile(count: rows)
            for meter in [NoMeter(), CallgrindMeter()] as [any Meter] {
                let total = try await fetch(file, meter)
                check(total == expected.total, "\(name) read a total of \(total), expected \(expected.total)")
            }
        } else if name == "change/plain" || name == "change/Coherence" {
            for meter in [NoMeter(), CallgrindMeter()] as [any Meter] {
                let heard = name == "change/plain" ? ChangeWorkloads.plain(count: rows, meter: meter)
                    : try ChangeWorkloads.coherence(count: rows, meter: meter)
                check(heard == rows, "\(name) announced \(heard) changed objects, expected \(rows)")
            }
        } else if name.hasPrefix("insert/"),
                  let insert = PostgresWorkloads.insertWorkloads.first(where: { "insert/\($0.key)" == name })?.value {
            let url = try postgresURL()
            for meter in [NoMeter(), CallgrindMeter()] as [any Meter] {
                let written = try await insert(url, rows, meter)
                check(written.rows == rows, "\(name) wrote \(written.rows) rows, expected \(rows)")
            }
        } else if name.hasPrefix("fetch/"),
                  let fetch = PostgresWorkloads.fetchWorkloads.first(where: { "fetch/\($0.key)" == name })?.value {
            let url = try postgresURL()
            let schema = try await PostgresWorkloads.itemSchema(url: url, count: rows)
            for meter in [NoMeter(), CallgrindMeter()] as [any Meter] {
                let total = try await fetch(url, schema, meter)
                check(total == expected.total, "\(name) read a total of \(total), expected \(expected.total)")
            }
            try await PostgresWorkloads.dropSchema(url: url, schema)
        } else {
            fail("count-instructions: no workload named \(name)")
        }
    }

    /// The PostgreSQL workloads' server (`.ci/with-postgres` starts one).
    static func postgresURL() throws -> String {
        guard let url = PostgresWorkloads.serverURL else {
            fail("count-instructions: the PostgreSQL workloads need COHERENCE_POSTGRES_URL (run under .ci/with-postgres)")
        }
        return url
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail("count-instructions: " + message()) }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}
