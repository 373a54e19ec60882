/// Which property of an entity sits at each byte offset of its objects: the
/// table a property wrapper's accessor uses to find its property's index
/// from the offset of its storage.
///
/// Offsets are small (the size of one object), so the table is a flat array
/// indexed by offset rather than a hash table.
///
/// **Complexity:** O(1) per lookup; memory O(size of the entity's objects).
struct PropertyOffsets: Sendable {
    /// For each byte offset, the property index stored there, or -1.
    private let indexes: [Int32]

    /// `offsets[i]` is where property `i`'s storage sits.
    init(_ offsets: [Int]) {
        var indexes = [Int32](repeating: -1, count: (offsets.max() ?? -1) + 1)
        for (index, offset) in offsets.enumerated() where offset >= 0 {
            indexes[offset] = Int32(index)
        }
        self.indexes = indexes
    }

    /// The index of the property whose storage sits at `offset`, if any.
    subscript(offset: Int) -> Int? {
        guard offset >= 0, offset < indexes.count, indexes[offset] >= 0 else { return nil }
        return Int(indexes[offset])
    }
}
