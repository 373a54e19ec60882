// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

/// Our own targets build with every warning as an error (dependencies keep
/// their own settings).
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// `COHERENCE_INVARIANTS=1 swift test` (README's test command, and CI) builds
/// Coherence with its internal consistency checks: every context checks its
/// invariants after each processPendingChanges, save, merge, refresh,
/// rollback and reset (`ManagedObjectContext+Invariants.swift`), as
/// swift-collections does under `COLLECTIONS_INTERNAL_CHECKS`. Off for
/// everyone else: the checks cost O(registered objects) each time.
let invariantChecks: [SwiftSetting] = Context.environment["COHERENCE_INVARIANTS"].map { $0.isEmpty || $0 == "0" } == false
    ? [.define("COHERENCE_INVARIANTS")] : []

let package = Package(
    name: "Coherence",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Coherence", targets: ["Coherence"]),
        // The PostgreSQL store, its own product so that SQLite-only users never
        // build postgres-nio.
        .library(name: "CoherencePostgres", targets: ["CoherencePostgres"]),
        .executable(name: "zeader", targets: ["zeader"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `swift package generate-documentation --target Coherence` (DocC catalog in
        // Sources/Coherence/Coherence.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // zeader's web page (Examples/zeader): Hummingbird 2, and its testing
        // module in zeader's tests.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The object layer's macros (@Attribute, @Relationship, @Derived, @Managed).
        // 602.0.0 rather than 603.0.1: a clean build with one macro took
        // 59.6 s (debug) and 333 s (release) here, against 63.1 s and 361 s.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "602.0.0"),
    ],
    targets: [
        .target(
            name: "Coherence",
            dependencies: [
                "CoherenceMacros",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/Coherence",
            swiftSettings: strict + invariantChecks
        ),
        // The property macros (@Attribute, @Relationship, @Derived, @Managed):
        // generated accessors and declarations as static data.
        .macro(
            name: "CoherenceMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            path: "Sources/CoherenceMacros",
            swiftSettings: strict
        ),
        .target(
            name: "CoherencePostgres",
            dependencies: [
                "Coherence",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/CoherencePostgres",
            swiftSettings: strict
        ),
        // The example feed reader: its code in a library, so that its tests
        // can reach it, and a small executable.
        .target(
            name: "ZeaderKit",
            dependencies: [
                "Coherence",
                "CoherencePostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Examples/zeader/Sources/ZeaderKit",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "zeader",
            dependencies: ["ZeaderKit"],
            path: "Examples/zeader/Sources/zeader",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ZeaderTests",
            dependencies: [
                "ZeaderKit",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Examples/zeader/Tests/ZeaderTests",
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoherenceMacrosTests",
            dependencies: [
                "CoherenceMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ],
            path: "Tests/CoherenceMacrosTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoherenceTests",
            dependencies: [
                "Coherence",
                "CoherencePostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/CoherenceTests",
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
