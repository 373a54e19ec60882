// swift-tools-version: 6.3
import PackageDescription
import class Foundation.NSString

/// SwiftPM names a path dependency after its folder, which is whatever the
/// checkout is called.
let coherencePackage = (((#filePath as NSString).deletingLastPathComponent as NSString)
    .deletingLastPathComponent as NSString).lastPathComponent

/// Coherence's benchmarks, side by side with raw SQLite (GRDB) and plain
/// Swift baselines. A separate package, so the library's test build stays
/// light. Run everything with `swift package benchmark` from this folder, or
/// `Benchmarks/report` from the repository root to write BENCHMARKS.md.
let package = Package(
    name: "CoherenceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "CAllocatedBytes", path: "Sources/CAllocatedBytes"),
        .executableTarget(
            name: "CoherenceBenchmarks",
            dependencies: [
                "CAllocatedBytes",
                .product(name: "Coherence", package: coherencePackage),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CoherenceBenchmarks",
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
