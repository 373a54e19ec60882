import Coherence
import CoherencePostgres
import Foundation
import Workloads

/// Several writer processes saving to one PostgreSQL schema at once (issue
/// #32): Coherence beside raw postgres-nio sending the same transactions,
/// in the same run.
///
///     postgres-writers [saves-per-writer (300)] [output.json]
///
/// For each scenario (``Scenario``), each number of writers W in 1, 2, 4, 8
/// and each side (raw postgres-nio, Coherence), this process (the parent)
/// creates a new schema with Coherence's tables (by opening a
/// `PostgresStore` in it), starts W copies of itself with `--writer`, each
/// of which connects on its own and says `ready`, then says `go` to all of
/// them at once. Each writer makes its saves and prints what it did (saves,
/// retries, errors thrown, seconds). Throughput is the total of saves over
/// the wall time from `go` to the last writer's report. After each run the
/// parent checks what was written (no lost update, no duplicate key; with
/// history, every save in the history once, in commit order), exits
/// non-zero naming the run if a check fails, and drops the schema. One
/// extra Coherence run keeps persistent history (uncontended, W = 4).
///
/// Prints a table and writes `output.json`: saves per second keyed
/// `scenario/side/W` (and `history/coherence/4`), with `…/retries` and
/// `…/errors` beside. Needs `COHERENCE_POSTGRES_URL`.
@main
struct PostgresWriters {
    /// The numbers of writer processes measured.
    static let writerCounts = [1, 2, 4, 8]
    /// The saves of each writer of the warm-up run.
    static let warmUpSaves = 20
    /// Runs of each side at each W, alternating sides; the median counts.
    /// One run of each lasts seconds, on a machine whose load moves: the
    /// median of three is steadier than any one.
    static let repetitions = 3

    static func main() async {
        let arguments = CommandLine.arguments
        do {
            if arguments.count >= 2, arguments[1] == "--writer" {
                try await WriterChild.run(WriterTask(arguments: arguments))
                return
            }
            guard PostgresWorkloads.serverURL != nil else {
                FileHandle.standardError.write(Data("postgres-writers needs COHERENCE_POSTGRES_URL (the server to measure; .ci/with-postgres starts one)\n".utf8))
                exit(2)
            }
            guard let saves = arguments.count >= 2 ? Int(arguments[1]) : 300, saves > 0 else {
                FileHandle.standardError.write(Data("usage: postgres-writers [saves-per-writer (default 300)] [output.json]\n".utf8))
                exit(2)
            }
            let results = try await measureAll(saves: saves)
            for line in table(results, saves: saves) { say(line) }
            if arguments.count >= 3 {
                try JSONSerialization.data(withJSONObject: json(results, saves: saves), options: [.sortedKeys, .prettyPrinted])
                    .write(to: URL(filePath: arguments[2]))
            }
        } catch {
            FileHandle.standardError.write(Data("postgres-writers: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Writes a line to standard output at once (the writers' output, and
    /// errors, are not buffered either).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Every run: a warm-up of each side (not counted), each scenario at
    /// each W, each side, then Coherence with persistent history.
    static func measureAll(saves: Int) async throws -> [RunResult] {
        for side in Scenario.uncontended.sides {
            _ = try await WriterRun.measure(Run(scenario: .uncontended, side: side, writers: 1), saves: min(saves, warmUpSaves))
        }
        var results: [RunResult] = []
        for scenario in Scenario.allCases {
            for writers in writerCounts {
                var runs: [Side: [RunResult]] = [:]
                for _ in 0..<repetitions {
                    for side in scenario.sides {
                        let result = try await WriterRun.measure(Run(scenario: scenario, side: side, writers: writers), saves: saves)
                        say(summary(result))
                        runs[side, default: []].append(result)
                    }
                }
                for side in scenario.sides {
                    results.append(median(runs[side] ?? []))
                }
            }
        }
        let history = try await WriterRun.measure(Run(scenario: .uncontended, side: .coherence, writers: 4, history: true), saves: saves)
        say(summary(history))
        results.append(history)
        return results
    }

    /// The run of median throughput among `runs` (not empty), with the
    /// errors of all of them: a save that threw in any run counts.
    static func median(_ runs: [RunResult]) -> RunResult {
        let sorted = runs.sorted { $0.savesPerSecond < $1.savesPerSecond }
        let middle = sorted[sorted.count / 2]
        return RunResult(run: middle.run, saves: middle.saves, retries: middle.retries,
                         errors: runs.reduce(0) { $0 + $1.errors }, seconds: middle.seconds)
    }

    /// One run on one line, as it finishes.
    static func summary(_ result: RunResult) -> String {
        "\(result.run.label): \(rate(result.savesPerSecond)) saves/s (\(result.saves) saves in \(String(format: "%.2f", result.seconds)) s, "
            + "\(result.retries) retries, \(result.errors) errors)"
    }

    /// The table: per W, each side of each scenario, the ratios, and the
    /// history run's line.
    static func table(_ results: [RunResult], saves: Int) -> [String] {
        let byLabel = Dictionary(results.map { ($0.run.label, $0) }, uniquingKeysWith: { _, last in last })
        func cell(_ label: String) -> String {
            byLabel[label].map { rate($0.savesPerSecond) } ?? "–"
        }
        func ratio(_ scenario: Scenario, _ writers: Int) -> String {
            guard let raw = byLabel["\(scenario.rawValue)/raw/\(writers)"], let coherence = byLabel["\(scenario.rawValue)/coherence/\(writers)"],
                  raw.savesPerSecond > 0 else { return "–" }
            return String(format: "%.2f", coherence.savesPerSecond / raw.savesPerSecond)
        }
        let header = ["W", "uncontended raw", "Coherence", "ratio", "contended raw", "Coherence", "ratio", "retries raw", "retries Coh.",
                      "object-trump", "errors"]
        var rows = [header]
        func count(_ label: String, _ value: (RunResult) -> Int) -> String {
            byLabel[label].map { String(value($0)) } ?? "–"
        }
        for writers in writerCounts {
            func label(_ scenario: Scenario, _ side: Side) -> String { "\(scenario.rawValue)/\(side.rawValue)/\(writers)" }
            let row: [String] = [
                String(writers),
                cell(label(.uncontended, .raw)), cell(label(.uncontended, .coherence)), ratio(.uncontended, writers),
                cell(label(.contendedError, .raw)), cell(label(.contendedError, .coherence)), ratio(.contendedError, writers),
                count(label(.contendedError, .raw), \.retries), count(label(.contendedError, .coherence), \.retries),
                cell(label(.contendedObjectTrump, .coherence)), count(label(.contendedObjectTrump, .coherence), \.errors),
            ]
            rows.append(row)
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = ["", "PostgreSQL, \(saves) saves per writer process, saves per second:"]
        lines += rows.map { row in
            zip(row, widths).map { String(repeating: " ", count: $1 - $0.count) + $0 }.joined(separator: "  ")
        }
        if let history = byLabel["history/coherence/4"] {
            lines.append("Coherence with persistent history, uncontended, W = 4: \(rate(history.savesPerSecond)) saves/s "
                         + "(history checked: one transaction per save, consecutive numbers, each insert once)")
        }
        return lines
    }

    /// Saves per second, rounded.
    static func rate(_ value: Double) -> String {
        String(Int(value.rounded()))
    }

    /// The JSON output: saves per second by run label, `…/retries` and
    /// `…/errors` beside, and the saves per writer.
    static func json(_ results: [RunResult], saves: Int) -> [String: Double] {
        var output: [String: Double] = ["saves-per-writer": Double(saves)]
        for result in results {
            output[result.run.label] = result.savesPerSecond
            output[result.run.label + "/retries"] = Double(result.retries)
            output[result.run.label + "/errors"] = Double(result.errors)
        }
        return output
    }
}

// MARK: - What both processes share

/// The row every writer saves, in Coherence's table `"Row"`: one per save in
/// the uncontended scenario (its writer's number and the save's), a single
/// shared counter (writer -1) in the contended ones.
///
/// An entity's columns follow its class's declaration order (the model
/// reads the stored properties in order), so the table's columns are
/// `"Z_PK"`, `"Z_OPT"`, `"writer"`, `"serial"`, `"count"`, the order the raw
/// side's statements (``RawSQL``) mirror.
final class Row: ManagedObject {
    @Attribute var writer: Int64 = 0
    @Attribute var serial: Int64 = 0
    @Attribute var count: Int64 = 0
}

/// What the writers of a run do.
enum Scenario: String, CaseIterable, Sendable {
    /// Each save inserts a row and updates the row the same writer inserted
    /// in its previous save: no two writers touch the same row.
    case uncontended
    /// Every save increments the one counter row; a conflict is retried
    /// (`.error` merge policy, or a raw version-checked loop).
    case contendedError = "contended-error"
    /// Every save sets the counter's `serial` and increments its `count`
    /// under `.mergeByPropertyObjectTrump` (Coherence only), which must
    /// never throw.
    case contendedObjectTrump = "contended-objecttrump"

    /// The sides measured, baseline first.
    var sides: [Side] { self == .contendedObjectTrump ? [.coherence] : [.raw, .coherence] }
}

/// Who sends the SQL: postgres-nio directly (the baseline), or Coherence's
/// `PostgresStore` under a context.
enum Side: String, Sendable {
    case raw
    case coherence
}

/// A failure of the benchmark: its message says what went wrong.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seconds of the continuous clock since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = start.duration(to: .now).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
}

/// The store both sides write: the server of `COHERENCE_POSTGRES_URL`, one
/// schema per run.
enum Writers {
    /// The model of ``Row``, built once per process.
    static let model: ManagedObjectModel = {
        do {
            return try ManagedObjectModel(entities: [Row.self])
        } catch {
            fatalError("postgres-writers: the Row model does not build: \(error)")
        }
    }()

    /// The most failed attempts one writer makes before it gives up, so that
    /// a livelock ends with a message instead of running forever.
    static let maximumFailures = 100_000

    /// The server's configuration, in `schema`.
    static func configuration(schema: String) throws -> PostgresConfiguration {
        guard let server = PostgresWorkloads.serverURL else { throw Failure("COHERENCE_POSTGRES_URL is not set") }
        var configuration = try PostgresConfiguration(url: server)
        configuration.schema = schema
        return configuration
    }

    /// Coherence's store in `schema`, with or without persistent history.
    static func storeDescription(schema: String, history: Bool) throws -> PersistentStoreDescription {
        let description = PersistentStoreDescription.postgres(try configuration(schema: schema))
        description.persistentHistoryTracking = history
        return description
    }
}
