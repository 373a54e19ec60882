/// A hash of one word for `Dictionary` and `Set` (`Hashable._rawHashValue(seed:)`),
/// in place of `Hasher`'s SipHash rounds: MurmurHash3's 64-bit finalizer,
/// which makes every bit of the result depend on every bit of `word` and of
/// the collection's `seed` (per collection and per process, as `Hasher`'s).
/// About ten instructions against about 150; object IDs and objects, whose
/// words are row keys and addresses (not chosen by whoever sends a request),
/// are hashed this way, several times for every row a save or a fetch
/// handles.
@inline(__always)
func mixedHash(_ word: UInt64, seed: Int) -> Int {
    var x = word ^ UInt64(bitPattern: Int64(seed))
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return Int(truncatingIfNeeded: x)
}
