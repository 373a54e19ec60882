@testable import Coherence
import Foundation
import Observation
import Testing

/// Objects read outside `withObservationTracking` get no
/// `ObservationRegistrar`; objects read inside it do, and their changes reach
/// the observer however the object was used before.
@Suite("Observation scope")
struct ObservationScopeTests {
    #if os(Linux)
    @Test func coherenceCanTellWhetherAThreadIsTracking() {
        // Otherwise every read would take the slow path: correct, but the
        // cost this suite exists to remove would silently come back.
        #expect(ObservationScope.canTell)
        #expect(!ObservationScope.mayBeTracking)
        let inside = withObservationTracking({ ObservationScope.mayBeTracking }, onChange: {})
        #expect(inside)
        #expect(!ObservationScope.mayBeTracking)
    }
    #endif

    @Test(arguments: StoreKind.allCases) func objectsReadOutsideTrackingHaveNoRegistrarUntilReadInside(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "v1"
            try context.save()
            _ = server.name
            server.name = "v2"
            // Read and written, but never observed: no registrar, unless
            // Coherence cannot tell (then every read makes one).
            #expect((server._observation == nil) == ObservationScope.canTell)
            let tracker = ObservationTests.Tracker { _ = server.name }
            #expect(server._observation != nil)
            server.name = "v3"
            #expect(tracker.changes == 1, "an object read outside tracking first still notifies once observed")
            tracker.rearm()
            context.rollback()
            #expect(tracker.changes == 2, "changes outside the setters notify too")
        }
    }

    @Test func nestedTrackingKeepsTheOuterScopeTracking() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let first = Server(context: context)
            let second = Server(context: context)
            try context.save()
            let changes = Counter()
            withObservationTracking {
                withObservationTracking({ _ = first.name }, onChange: {})
                _ = second.name // read after the inner scope ended: still tracked by the outer one
            } onChange: {
                changes.increment()
            }
            second.name = "renamed"
            #expect(changes.value == 1)
        }
    }

    @Test(.enabled(if: ObservationScope.canTell)) func trackingOnAnotherThreadDoesNotCountOnThisOne() throws {
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let thread = Thread {
            withObservationTracking({
                inside.signal()
                _ = release.wait(timeout: .now() + 60)
            }, onChange: {})
        }
        thread.start()
        defer { release.signal() }
        #expect(inside.wait(timeout: .now() + 60) == .success, "the other thread entered its tracking scope")
        let context = try TestStack.context()
        try context.performAndWait {
            let server = Server(context: context)
            try context.save()
            _ = server.name
            #expect(server._observation == nil, "another thread's tracking scope is not this thread's")
        }
    }

    // MARK: Reading the symbol table

    #if os(Linux)
    @Test func theObservationLibraryDefinesTheFunctionAndItsAnchor() throws {
        let path = try #require(ObservationScope.loadedLibraryPath(), "the test process loads Observation")
        let names: Set = ["_swift_observation_tls_get", "$s11Observation0A9RegistrarVACycfC"]
        let functions = try #require(ELFSymbols(path: path)).functions(named: names)
        #expect(Set(functions.keys) == names)
        #expect(functions.values.allSatisfy { !$0.code.isEmpty })
    }
    #endif

    @Test func malformedFilesYieldNoFunctionsAndNoCrash() throws {
        let magic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1]
        #expect(ELFSymbols(Data(magic)) == nil, "shorter than a header")
        #expect(ELFSymbols(Data(repeating: 0, count: 128)) == nil, "not ELF")
        // Section headers said to lie past the end of the address space, or of the file.
        for sectionsOffset in [UInt64.max - 10, UInt64.max - 64 * 3, 1 << 40, 60] {
            var header = magic + [UInt8](repeating: 0, count: 58)
            withUnsafeBytes(of: sectionsOffset.littleEndian) { header.replaceSubrange(0x28..<0x30, with: $0) }
            header[0x3A] = 64
            header[0x3C] = 0xFF
            header[0x3D] = 0xFF
            #expect(try #require(ELFSymbols(Data(header))).functions(named: ["f"]).isEmpty)
        }
        // Random bytes behind a valid magic, with section headers pointing into them.
        var generator = SeededGenerator(seed: 0xC0FFEE)
        for _ in 0..<300 {
            var bytes = magic + (0..<Int.random(in: 58...2_000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            withUnsafeBytes(of: UInt64.random(in: 0...UInt64(bytes.count), using: &generator).littleEndian) {
                bytes.replaceSubrange(0x28..<0x30, with: $0)
            }
            bytes[0x3A] = 64
            bytes[0x3C] = UInt8.random(in: 0...8, using: &generator)
            bytes[0x3D] = 0
            let functions = ELFSymbols(Data(bytes))?.functions(named: ["f", ""]) ?? [:]
            #expect(functions.values.allSatisfy { $0.code.count <= bytes.count && $0.value != 0 })
        }
        #if os(Linux)
        // A real library cut short anywhere.
        let library = try Data(contentsOf: URL(fileURLWithPath: try #require(ObservationScope.loadedLibraryPath())))
        let name = "_swift_observation_tls_get"
        let whole = try #require(ELFSymbols(library)?.functions(named: [name])[name])
        for length in stride(from: 64, to: library.count, by: library.count / 50) {
            // Section headers sit at the end of the file: a cut file finds nothing,
            // or (cut inside the tables' padding) exactly what the whole file finds.
            if let found = try #require(ELFSymbols(library.prefix(length))).functions(named: [name])[name] {
                #expect(found == whole, "cut at \(length) bytes")
            }
        }
        #endif
    }
}

/// A deterministic random number generator (SplitMix64), so a failing case can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A count shared with an onChange closure.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
