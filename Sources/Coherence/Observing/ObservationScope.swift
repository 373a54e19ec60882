import Foundation
import Observation
import Synchronization

/// Whether the current thread is inside `withObservationTracking` (SwiftUI's
/// view updates, `Observations`), so that objects read outside it need no
/// `ObservationRegistrar`.
///
/// Observation decides this with a thread-local pointer that its public API
/// does not expose: `ObservationRegistrar.access` reads it through the
/// runtime function `_swift_observation_tls_get`, which the Observation
/// library does not export. On Linux, Coherence finds that function in the
/// symbol table of the library file the process loaded (``ELFSymbols``),
/// beside an exported function whose address `dlsym` gives. Before calling
/// it, it checks that the code at both addresses is the code the file holds
/// for them; then it uses it only after checking, once per process, that it behaves as
/// `access` relies on: the same
/// pointer (`nil` outside any scope) before and after a
/// `withObservationTracking` call, another, non-`nil` one inside it. Where it
/// cannot be found or fails that check (another platform, a standard library
/// linked statically, a stripped library, a changed runtime),
/// ``mayBeTracking`` is always `true` and every read goes through a
/// registrar, as before: slower, never wrong.
///
/// Why it matters: a registrar costs two allocations on an object's first
/// read, each read two calls into it, and each write of an object that has
/// one two locked look-ups, observed or not. Fetching and changing objects
/// that nobody observes spent a quarter of their time there.
@usableFromInline
enum ObservationScope {
    @usableFromInline typealias Getter = @convention(c) () -> UnsafeMutableRawPointer?

    /// The checked getter's address, ``unresolved`` until the first call
    /// copies ``checkedGetter`` here, ``cannotTell`` when there is none. An
    /// atomic initialized from a literal, which Swift initializes statically:
    /// reading it costs no `swift_once` call, which a `static let` with a
    /// computed value would on every property read (from an entity's module,
    /// where reads are inlined, it costs a call to an accessor that returns
    /// its address).
    @usableFromInline static let getterAddress = Atomic<UInt>(0) // a literal, so that it is initialized statically
    @inlinable static var unresolved: UInt { 0 }
    @inlinable static var cannotTell: UInt { 1 }

    /// Looks for the getter and checks it: once per process (a lazily
    /// initialized constant).
    private static let checkedGetter: UInt = {
        guard let getter = findGetter() else { return cannotTell }
        let outside = getter()
        let inside = withObservationTracking({ getter() }, onChange: {})
        guard let inside, inside != outside, getter() == outside else { return cannotTell }
        return UInt(bitPattern: unsafeBitCast(getter, to: Int.self))
    }()

    /// Copies ``checkedGetter`` to ``getterAddress``; returns it.
    @usableFromInline @inline(never)
    static func resolveGetter() -> UInt {
        getterAddress.store(checkedGetter, ordering: .relaxed)
        return checkedGetter
    }

    /// Whether the current thread may be inside `withObservationTracking`:
    /// `true` when it is, and whenever Coherence cannot tell.
    /// **Complexity:** O(1): one load and, where Coherence can tell, one call.
    /// Inlined into every property read.
    @inlinable @inline(__always)
    static var mayBeTracking: Bool {
        var address = getterAddress.load(ordering: .relaxed)
        if address == unresolved { address = resolveGetter() }
        guard address != cannotTell else { return true }
        return unsafeBitCast(Int(bitPattern: address), to: Getter.self)() != nil
    }

    /// Whether Coherence can tell (it found and checked Observation's
    /// function); for tests.
    static var canTell: Bool {
        var address = getterAddress.load(ordering: .relaxed)
        if address == unresolved { address = resolveGetter() }
        return address != cannotTell
    }

    /// The file the process loaded Swift's Observation library from, if it
    /// loaded it as a shared library (Linux).
    static func loadedLibraryPath() -> String? {
        // Read to the end: /proc files report no size, and a read sized by it stops early.
        guard let maps = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() else { return nil }
        return String(decoding: maps, as: UTF8.self).split(separator: "\n").lazy.compactMap { line in
            line.firstIndex(of: "/").map { String(line[$0...]) }
        }.first { $0.hasSuffix("/libswiftObservation.so") }
    }

    /// `_swift_observation_tls_get` in the loaded Observation library.
    private static func findGetter() -> Getter? {
        #if os(Linux)
        let wanted = "_swift_observation_tls_get"
        let anchorName = "$s11Observation0A9RegistrarVACycfC" // ObservationRegistrar.init(), exported
        guard let path = loadedLibraryPath(), let library = dlopen(path, RTLD_NOW | RTLD_NOLOAD) else { return nil }
        defer { dlclose(library) }
        guard let anchor = dlsym(library, anchorName),
              let functions = ELFSymbols(path: path)?.functions(named: [wanted, anchorName]),
              let anchorFunction = functions[anchorName], let function = functions[wanted],
              !anchorFunction.code.isEmpty, !function.code.isEmpty else { return nil }
        let address = UnsafeRawPointer(anchor).advanced(by: Int(truncatingIfNeeded: function.value &- anchorFunction.value))
        // Call nothing until the code the process runs is the code the file
        // holds, for both functions: the file could have been replaced since
        // it was loaded. (Shared libraries' code has no relocations.)
        func runs(_ code: Data, at address: UnsafeRawPointer) -> Bool {
            code.elementsEqual(UnsafeRawBufferPointer(start: address, count: code.count))
        }
        guard runs(anchorFunction.code, at: UnsafeRawPointer(anchor)), runs(function.code, at: address) else { return nil }
        return unsafeBitCast(address, to: Getter.self)
        #else
        return nil
        #endif
    }
}
