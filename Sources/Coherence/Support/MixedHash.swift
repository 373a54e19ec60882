/// A hash of one word for `Dictionary` and `Set` (`Hashable._rawHashValue(seed:)`),
/// in place of `Hasher`'s SipHash rounds: MurmurHash3's 64-bit finalizer of
/// the word mixed with a key drawn once per process and with the
/// collection's seed, so every bit of the result depends on every bit of
/// each. About ten instructions against about 150; object IDs and objects
/// are hashed this way, several times for every row a save, fetch or merge
/// handles.
///
/// It is not SipHash: someone who could choose many row keys (through
/// object URIs, say) and learn how a process lays out its tables could make
/// keys collide. The per-process key (`Hasher`'s randomness, fixed as
/// Hasher's is by `SWIFT_DETERMINISTIC_HASHING`) keeps the layout from being
/// the same from one process to the next.
@inline(__always)
func mixedHash(_ word: UInt64, seed: Int) -> Int {
    var x = word ^ processHashKey ^ UInt64(bitPattern: Int64(seed))
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return Int(truncatingIfNeeded: x)
}

/// The per-process key of ``mixedHash(_:seed:)``: from `Hasher`, which is
/// seeded randomly per process unless `SWIFT_DETERMINISTIC_HASHING` is set.
private let processHashKey: UInt64 = {
    var hasher = Hasher()
    hasher.combine(0x436F_6865_7265_6E63 as UInt64)
    return UInt64(bitPattern: Int64(hasher.finalize()))
}()
