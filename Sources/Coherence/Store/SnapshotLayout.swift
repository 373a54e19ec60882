/// Where a snapshot read from a store keeps each of its values, after a
/// bitmap of the values that are `.null`: one 8-byte word for a value of a
/// fixed-width attribute type (an integer, floating-point, Boolean or date
/// attribute: its bits), three words for any other value (a whole
/// ``StoreValue``). A row of ten integers takes 88 bytes instead of 240.
///
/// One layout per entity, made once by the store and shared by every
/// snapshot of the entity's rows.
@usableFromInline
final class SnapshotLayout: @unchecked Sendable {
    // @unchecked: `slots` is immutable memory the layout owns, written only
    // by the initializer.
    enum Kind: UInt8, Sendable {
        /// `.integer`, stored as its bits.
        case integer
        /// `.double`, stored as its bit pattern.
        case double
        /// `.bool`, stored as 0 or 1.
        case bool
        /// `.date`, stored as the bit pattern of its time interval since
        /// the reference date.
        case date
        /// Any value, stored as a `StoreValue`.
        case whole
    }

    struct Slot: Sendable {
        let kind: Kind
        /// The slot's first word, counted from the first word after the
        /// null bitmap.
        let word: Int
    }

    /// The slots, one per value: memory the layout owns, read without the
    /// retain and release that reading an array from a class would cost
    /// (every value of every row read goes through it).
    let slots: UnsafePointer<Slot>
    /// The number of values.
    let count: Int
    /// The number of words of the null bitmap (one bit per value).
    let bitmapWords: Int
    /// The number of words the bitmap and the values take.
    let wordCount: Int

    /// The entity description the layout was made from, if any.
    let entity: ObjectIdentifier?

    init(_ kinds: [Kind], entity: ObjectIdentifier? = nil) {
        self.entity = entity
        require(MemoryLayout<StoreValue>.alignment <= 8, "a StoreValue must fit a snapshot's 8-byte words")
        let wholeWords = (MemoryLayout<StoreValue>.size + 7) / 8
        var word = 0
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: kinds.count)
        for (index, kind) in kinds.enumerated() {
            (slots + index).initialize(to: Slot(kind: kind, word: word))
            word += kind == .whole ? wholeWords : 1
        }
        self.slots = UnsafePointer(slots)
        count = kinds.count
        bitmapWords = (kinds.count + 63) / 64
        wordCount = bitmapWords + word
    }

    deinit {
        UnsafeMutablePointer(mutating: slots).deinitialize(count: count)
        slots.deallocate()
    }

    /// The layout of the snapshots of `entity` that ``SQLStore`` reads:
    /// stored attributes of fixed-width types in a word, the rest whole.
    convenience init(_ entity: EntityDescription) {
        self.init(Self.kinds(of: entity), entity: ObjectIdentifier(entity))
    }

    /// Whether this layout was made from `entity` (the same description, not
    /// only the same name). **Complexity:** O(1).
    func fits(_ entity: EntityDescription) -> Bool {
        self.entity == ObjectIdentifier(entity)
    }

    private static func kinds(of entity: EntityDescription) -> [Kind] {
        var kinds: [Kind] = entity.attributeSlots.map { slot in
            if slot.isTransient { return .whole }
            switch slot.attributeType {
            case .integer16, .integer32, .integer64: return .integer
            case .double, .float: return .double
            case .boolean: return .bool
            case .date: return .date
            default: return .whole
            }
        }
        kinds += Array(repeating: .whole, count: entity.relationships.count)
        return kinds
    }
}
