// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Coherence",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Coherence", targets: ["Coherence"]),
        .executable(name: "zeader", targets: ["zeader"]),
    ],
    targets: [
        .target(
            name: "Coherence",
            path: "Sources/Coherence"
        ),
        .executableTarget(
            name: "zeader",
            dependencies: ["Coherence"],
            path: "Examples/zeader"
        ),
        .testTarget(
            name: "CoherenceTests",
            dependencies: ["Coherence"],
            path: "Tests/CoherenceTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
