import Foundation

/// The committed values of one object, immutable and `Sendable`: what a store
/// returns, what objects keep as their last committed state, and what a save
/// hands back for each saved object.
///
/// A snapshot that Coherence's SQL stores read from a row is one allocation:
/// its ID, version and values live together in one immutable buffer, values
/// of fixed-width types in 8 bytes each (see `SnapshotLayout`), so copying a
/// snapshot copies a reference. (A fetch makes one per row: a separate array
/// of ``StoreValue``s would double the allocations, and triple the memory
/// written, of every row read.) A snapshot made from an array, as saves and
/// custom stores make them, shares the array.
///
/// Coming from earlier versions, where `Snapshot` was a class and `values` an
/// array: a store that edits a snapshot's values copies them first,
/// `var values = Array(snapshot.values)`, and makes a new snapshot from them.
///
/// (`@unchecked Sendable`: the buffer is written only while the snapshot is
/// made, before anything else can see it, and is immutable after.)
public struct Snapshot: @unchecked Sendable, CustomStringConvertible {
    /// The buffer: the header, then the words its layout describes (none
    /// when the header holds the values in an array).
    @usableFromInline
    final class Storage: ManagedBuffer<Header, UInt64> {
        deinit {
            withUnsafeMutablePointers { header, words in
                guard case .words(let layout) = header.pointee.contents else { return }
                for index in 0..<Int(header.pointee.count) where layout.slots[index].kind == .whole && !isNull(index, words) {
                    value(at: layout.slots[index].word, layout, words).deinitialize(count: 1)
                }
            }
        }
    }

    /// 40 bytes: the count fills the padding after the ID.
    @usableFromInline
    struct Header {
        let objectID: ManagedObjectID
        /// The number of values that follow the header (none for an
        /// array's).
        var count: UInt32
        let version: Int64
        @usableFromInline let contents: Contents
    }

    /// Where the values are.
    @usableFromInline
    enum Contents {
        /// After the header, as the layout says.
        case words(SnapshotLayout)
        /// In the array the snapshot was made from.
        case array([StoreValue])
    }

    /// Whether the null bitmap at `words` has the bit of value `index`.
    @inlinable @inline(__always)
    static func isNull(_ index: Int, _ words: UnsafeMutablePointer<UInt64>) -> Bool {
        words[index >> 6] & (1 << UInt64(index & 63)) != 0
    }

    /// The `StoreValue` in the whole slot that starts at value word `word`.
    /// (Its words were bound to `StoreValue` when the builder initialized
    /// them; the bitmap and the fixed-width words stay bound to `UInt64`.)
    @inline(__always)
    static func value(at word: Int, _ layout: SnapshotLayout, _ words: UnsafeMutablePointer<UInt64>) -> UnsafeMutablePointer<StoreValue> {
        UnsafeMutableRawPointer(words + layout.bitmapWords + word).assumingMemoryBound(to: StoreValue.self)
    }

    /// The buffer (`var` only so that the row cache can ask whether it is
    /// the buffer's only holder).
    @usableFromInline var storage: Storage

    /// Word `word` of a snapshot an SQL store read (counted from the first
    /// word, see `SnapshotLayout`); `nil` when value `position` is `.null`
    /// or the snapshot was made from an array. What a property read of a
    /// loaded object takes its value from, without making a ``StoreValue``.
    @inlinable @inline(__always)
    func _word(_ word: Int, position: Int) -> UInt64? {
        storage.withUnsafeMutablePointers { header, words in
            guard case .words = header.pointee.contents, !Snapshot.isNull(position, words) else { return nil }
            return words[word]
        }
    }

    // The header is read through its pointer: `ManagedBuffer.header` is a
    // class's stored `var`, and each access to it would be checked for
    // exclusivity at run time.

    /// The object the values belong to.
    public var objectID: ManagedObjectID { storage.withUnsafeMutablePointerToHeader { $0.pointee.objectID } }
    /// One value per property of the entity, attributes first, in the
    /// entity's property order.
    public var values: Values { Values(storage: storage) }
    /// Incremented by every save of the object; used for optimistic locking.
    public var version: Int64 { storage.withUnsafeMutablePointerToHeader { $0.pointee.version } }

    /// The snapshot of `objectID` at `version`, sharing `values`.
    public init(objectID: ManagedObjectID, values: [StoreValue], version: Int64) {
        let buffer = Storage.create(minimumCapacity: 0) { _ in
            Header(objectID: objectID, count: 0, version: version, contents: .array(values))
        }
        storage = unsafeDowncast(buffer, to: Storage.self)
    }

    /// A snapshot whose values `build` appends one by one (see ``Builder``),
    /// each written straight into the snapshot's buffer where `layout` says.
    /// If `build` throws, the values appended so far are released and
    /// nothing is made.
    init(objectID: ManagedObjectID, version: Int64, layout: SnapshotLayout,
         build: (inout Builder) throws -> Void) rethrows {
        let buffer = Storage.create(minimumCapacity: layout.wordCount) { _ in
            Header(objectID: objectID, count: 0, version: version, contents: .words(layout))
        }
        storage = unsafeDowncast(buffer, to: Storage.self)
        try storage.withUnsafeMutablePointers { header, words in
            words.initialize(repeating: 0, count: layout.bitmapWords)
            var builder = Builder(header: header, words: words, layout: layout)
            try build(&builder)
        }
    }

    /// Appends a new snapshot's values, at most as many as its layout has
    /// slots; a value must be `.null` or of its slot's kind.
    struct Builder {
        let header: UnsafeMutablePointer<Header>
        let words: UnsafeMutablePointer<UInt64>
        let layout: SnapshotLayout

        /// The slot of the next value, and the word where it goes.
        @inline(__always)
        private func next() -> (index: Int, slot: SnapshotLayout.Slot, word: UnsafeMutablePointer<UInt64>) {
            let index = Int(header.pointee.count)
            require(index < layout.count, "a snapshot of \(header.pointee.objectID.entityName) was given more than \(layout.count) values")
            let slot = layout.slots[index]
            return (index, slot, words + layout.bitmapWords + slot.word)
        }

        /// Appends a value.
        @inline(__always)
        mutating func append(_ value: StoreValue) {
            let (index, slot, word) = next()
            switch (slot.kind, value) {
            case (_, .null): words[index >> 6] |= 1 << UInt64(index & 63)
            case (.integer, .integer(let integer)): word.initialize(to: UInt64(bitPattern: integer))
            case (.double, .double(let double)): word.initialize(to: double.bitPattern)
            case (.bool, .bool(let bool)): word.initialize(to: bool ? 1 : 0)
            case (.date, .date(let date)): word.initialize(to: date.timeIntervalSinceReferenceDate.bitPattern)
            case (.whole, _): UnsafeMutableRawPointer(word).initializeMemory(as: StoreValue.self, to: value)
            default:
                fatalError("a snapshot of \(header.pointee.objectID.entityName) was given \(value) for a value of kind \(slot.kind)")
            }
            header.pointee.count += 1
        }

        /// Appends the value `.integer(integer)`.
        @inline(__always)
        mutating func append(integer: Int64) {
            let (_, slot, word) = next()
            require(slot.kind == .integer, "a snapshot of \(header.pointee.objectID.entityName) was given an integer for a value of kind \(slot.kind)")
            word.initialize(to: UInt64(bitPattern: integer))
            header.pointee.count += 1
        }
    }

    /// A snapshot of the same object and version whose values are these
    /// after `change`.
    func replacingValues(_ change: (inout [StoreValue]) -> Void) -> Snapshot {
        var values = Array(self.values)
        change(&values)
        return Snapshot(objectID: objectID, values: values, version: version)
    }

    /// The ID, version and values, for debugging.
    public var description: String {
        "Snapshot(\(objectID), v\(version), \(values))"
    }

    /// A snapshot's values: a read-only, random-access view of its buffer.
    /// `Array(snapshot.values)` makes a mutable copy.
    ///
    /// **Complexity:** O(1) to get, to subscript and to count.
    public struct Values: RandomAccessCollection, @unchecked Sendable, Equatable, CustomStringConvertible {
        let storage: Storage
        /// The number of values (one past the last index).
        public let endIndex: Int
        /// Where the values are; `nil` when they are in the header's array.
        let layout: SnapshotLayout?

        init(storage: Storage) {
            self.storage = storage
            (endIndex, layout) = storage.withUnsafeMutablePointerToHeader { header in
                switch header.pointee.contents {
                case .words(let layout): (Int(header.pointee.count), layout)
                case .array(let array): (array.count, nil)
                }
            }
        }

        /// 0.
        public var startIndex: Int { 0 }

        /// The value of the property at `position` (the entity's property
        /// order). Traps when `position` is out of range.
        @inline(__always)
        public subscript(position: Int) -> StoreValue {
            require(position >= 0 && position < endIndex, "index \(position) is out of a snapshot's \(endIndex) values")
            guard let layout else {
                return storage.withUnsafeMutablePointerToHeader { header in
                    guard case .array(let array) = header.pointee.contents else { fatalError("a snapshot without a layout keeps an array") }
                    return array[position]
                }
            }
            return storage.withUnsafeMutablePointerToElements { words in
                if Snapshot.isNull(position, words) { return .null }
                let slot = layout.slots[position]
                let word = words + layout.bitmapWords + slot.word
                switch slot.kind {
                case .integer: return .integer(Int64(bitPattern: word.pointee))
                case .double: return .double(Double(bitPattern: word.pointee))
                case .bool: return .bool(word.pointee != 0)
                case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: word.pointee)))
                case .whole: return Snapshot.value(at: slot.word, layout, words).pointee
                }
            }
        }

        /// Calls `body` with a reader of the values that the snapshot keeps in
        /// integer words: it answers the integer at a position, or `nil` for
        /// `.null`, a value of another kind, or a snapshot made from an
        /// array. Lets the fill of a fetched object copy integers without
        /// making a ``StoreValue`` (or retaining anything) per value.
        @inline(__always)
        func withIntegerWords<Result>(_ body: (IntegerWords) throws -> Result) rethrows -> Result {
            try storage.withUnsafeMutablePointerToElements { words in
                try body(IntegerWords(words: words, layout: layout.map(Unmanaged.passUnretained), count: endIndex))
            }
        }

        /// See ``withIntegerWords(_:)``; valid only inside its `body`.
        struct IntegerWords {
            let words: UnsafeMutablePointer<UInt64>
            let layout: Unmanaged<SnapshotLayout>?
            let count: Int

            /// The integer at `position`, if the snapshot keeps one there.
            /// Traps when `position` is out of range.
            @inline(__always)
            subscript(position: Int) -> Int64? {
                require(position >= 0 && position < count, "index \(position) is out of a snapshot's \(count) values")
                guard let layout else { return nil }
                return layout._withUnsafeGuaranteedRef { layout in
                    let slot = layout.slots[position]
                    guard slot.kind == .integer, !Snapshot.isNull(position, words) else { return nil }
                    return Int64(bitPattern: words[layout.bitmapWords + slot.word])
                }
            }
        }

        /// The values, as an array prints them.
        public var description: String { Array(self).description }

        /// Whether both hold the same values in the same order.
        public static func == (lhs: Values, rhs: Values) -> Bool {
            lhs.storage === rhs.storage || lhs.elementsEqual(rhs)
        }
    }
}
