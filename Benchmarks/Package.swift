// swift-tools-version: 6.3
import PackageDescription
import class Foundation.NSString

/// SwiftPM names a path dependency after its folder, which is whatever the
/// checkout is called.
let coherencePackage = (((#filePath as NSString).deletingLastPathComponent as NSString)
    .deletingLastPathComponent as NSString).lastPathComponent

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// Coherence's benchmarks, side by side with raw SQLite (GRDB), the Swift
/// ORMs a Linux user would pick instead (GRDB records, Fluent), raw
/// PostgreSQL (postgres-nio, when `COHERENCE_POSTGRES_URL` names a server)
/// and plain Swift baselines. A separate package, so the library's test build stays
/// light. Run everything with `swift package benchmark` from this folder, or
/// `Benchmarks/report` from the repository root to write BENCHMARKS.md;
/// `Benchmarks/instructions` counts the instructions of the insert and fetch
/// workloads under callgrind.
let package = Package(
    name: "CoherenceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", from: "4.9.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "CAllocatedBytes", path: "Sources/CAllocatedBytes"),
        .target(name: "CCallgrind", path: "Sources/CCallgrind"),
        // The insert and fetch workloads of every side, and the model they
        // share with the other benchmarks; measured by both executables.
        .target(
            name: "Workloads",
            dependencies: [
                .product(name: "Coherence", package: coherencePackage),
                .product(name: "CoherencePostgres", package: coherencePackage),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
            ],
            path: "Sources/Workloads",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "CoherenceBenchmarks",
            dependencies: [
                "CAllocatedBytes",
                "Workloads",
                .product(name: "Coherence", package: coherencePackage),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CoherenceBenchmarks",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The delay from a save in one process to the didChangeObjects of a
        // context following remote changes in another (`Benchmarks/report`
        // runs it for SQLite and PostgreSQL).
        .executableTarget(
            name: "remote-change-delay",
            dependencies: [
                "Workloads",
                .product(name: "Coherence", package: coherencePackage),
                .product(name: "CoherencePostgres", package: coherencePackage),
            ],
            path: "Sources/RemoteChangeDelay",
            swiftSettings: strict
        ),
        // Several writer processes saving to one PostgreSQL schema at once,
        // Coherence beside raw postgres-nio sending the same transactions
        // (`Benchmarks/report` runs it when `COHERENCE_POSTGRES_URL` is set).
        .executableTarget(
            name: "postgres-writers",
            dependencies: [
                "Workloads",
                .product(name: "Coherence", package: coherencePackage),
                .product(name: "CoherencePostgres", package: coherencePackage),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/PostgresWriters",
            swiftSettings: strict
        ),
        // One workload, once, between callgrind's start and stop of
        // instrumentation: `Benchmarks/instructions` runs it under valgrind.
        // Not linked with the benchmark tool (nor its malloc interposer).
        .executableTarget(
            name: "count-instructions",
            dependencies: ["CCallgrind", "Workloads"],
            path: "Sources/CountInstructions",
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
