import Synchronization

/// The byte offset of a class's stored property, read from the key path
/// object that the compiler passes to a property wrapper's accessor, so that
/// the accessor reaches the wrapper's storage with one load: without applying
/// the key path (which a release build guards with a run-time exclusivity
/// check, about 70 instructions) and without a memo look-up (``StorageOffsets``,
/// about 100).
///
/// In the standard library's key path layout (`KeyPath.h`, "ABI constants
/// for key path objects"), a key path to one stored property of a class is:
/// the object header (two words), `_kvcKeyPathStringPtr` (one word), a
/// buffer header whose size field is 4 (padded to a word), then one component
/// header whose discriminator is the class tag (3) and whose 23-bit payload is
/// the property's offset, unless the payload is one of the sentinels above
/// `0x7FFFFC` (offset stored out of line, or not resolved yet). Anything else
/// (a computed property, several components) reads as `nil`.
///
/// Coherence relies on that layout only after checking it on a probe class
/// whose offsets it measures directly (once per process: a lazily
/// initialized constant); where the check fails, ``offset(of:)`` answers
/// `nil` and accessors take their slower paths.
///
/// **Complexity:** O(1): an atomic load (a call to its accessor from another
/// module unless the optimizer sees across modules) and two loads from the
/// key path.
@usableFromInline
enum StoredOffset {
    /// 0 before the check, 1 when the layout is as expected, 2 when it is not:
    /// the result of ``layoutIsKnown``, kept where reading it costs no
    /// `swift_once` call. An atomic initialized from a literal, which Swift
    /// initializes statically.
    @usableFromInline static let layoutState = Atomic<UInt8>(0)

    /// The offset of the stored property `keyPath` reaches, or `nil` when it
    /// is not a single stored class property or the layout is not the one
    /// this type knows.
    @inlinable @inline(__always)
    static func offset(of keyPath: AnyKeyPath) -> Int? {
        let state = layoutState.load(ordering: .relaxed)
        guard state == 1 || (state == 0 && recordLayoutCheck()) else { return nil }
        return read(keyPath)
    }

    /// Reads the offset from the key path object, assuming the layout.
    @inlinable @inline(__always)
    static func read(_ keyPath: AnyKeyPath) -> Int? {
        // Alive until both loads are done (a generic entity's key paths are
        // made anew on every access).
        withExtendedLifetime(keyPath) {
            let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
            let word = MemoryLayout<Int>.size
            // One component and nothing after it.
            guard object.load(fromByteOffset: 3 * word, as: UInt32.self) & 0x00FF_FFFF == 4 else { return nil }
            let component = object.load(fromByteOffset: 4 * word, as: UInt32.self)
            // A stored property of a class, its offset inline.
            guard component & 0x7F00_0000 == 0x0300_0000 else { return nil }
            let payload = component & 0x007F_FFFF
            return payload <= 0x007F_FFFC ? Int(payload) : nil
        }
    }

    /// Records the result of the layout check in ``layoutState``; returns it.
    @usableFromInline @inline(never)
    static func recordLayoutCheck() -> Bool {
        // Only from "not checked": a late check must not undo a state set
        // since (a test forcing the fallback).
        _ = layoutState.compareExchange(expected: 0, desired: layoutIsKnown ? 1 : 2, ordering: .relaxed)
        return layoutIsKnown
    }

    /// Whether key paths have the layout ``read(_:)`` assumes, checked on
    /// ``Probe``: computed once per process (a lazily initialized constant,
    /// so that the probe's key paths are made and read under Swift's one-time
    /// initialization lock).
    static let layoutIsKnown: Bool = {
        let probe = Probe()
        let base = UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
        func measured<T>(_ field: UnsafeMutablePointer<T>) -> Int { base.distance(to: UnsafeRawPointer(field)) }
        let expected = [
            withUnsafeMutablePointer(to: &probe.first, measured),
            withUnsafeMutablePointer(to: &probe.second, measured),
            withUnsafeMutablePointer(to: &probe.third, measured),
        ]
        let found = [read(\Probe.first), read(\Probe.second), read(\Probe.third)]
        return found == expected.map(Optional.some) && Set(expected).count == 3
            && read(\Probe.computed) == nil && read(\Probe.first.storage) == nil
    }()

    /// Stored properties shaped as an entity's wrapper storage, and key paths
    /// that must not read as one.
    final class Probe {
        var first = Attribute<Int64>(wrappedValue: 1)
        var second = Attribute<String>(wrappedValue: "")
        var third = Attribute<Int8?>(wrappedValue: nil)
        var computed: Int { 0 }
    }
}
