/// Flags that make a property read take the slow path.
@usableFromInline
struct AccessState: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The property values have not been loaded from the snapshot yet.
    @inlinable static var fault: AccessState { AccessState(rawValue: 1 << 0) }
    /// The object no longer belongs to a context.
    @inlinable static var invalidated: AccessState { AccessState(rawValue: 1 << 1) }
    /// The concurrency check is on (``ConcurrencyDebug``): every access
    /// takes the checked path, release builds included.
    @inlinable static var queueChecked: AccessState { AccessState(rawValue: 1 << 3) }
    /// The object's context takes part in Observation
    /// (``ManagedObjectContext/isObservationEnabled``): reads register with
    /// the object's registrar.
    @inlinable static var observable: AccessState { AccessState(rawValue: 1 << 4) }
}

/// Where an object is in its context's unit of work.
struct LifecycleState: OptionSet {
    let rawValue: UInt8
    /// Inserted and not saved yet.
    static let inserted = LifecycleState(rawValue: 1 << 0)
    /// Marked for deletion at the next save.
    static let deleted = LifecycleState(rawValue: 1 << 1)
    /// Inserted, and no didChangeObjects has announced it yet: writes need no
    /// change tracking, since the insertion announces the object whole.
    static let insertionUnannounced = LifecycleState(rawValue: 1 << 2)
}

/// The change lists of its context that an object is in (see
/// ``ChangeTracker``): membership is kept in the object, so listing an object
/// costs no hashing.
struct TrackerLists: OptionSet {
    let rawValue: UInt8
    /// In ``ChangeTracker/changed``.
    static let changed = TrackerLists(rawValue: 1 << 0)
    /// Already put in the `updated` set of the notification being built.
    static let announcedUpdated = TrackerLists(rawValue: 1 << 1)
}

/// A set of property indexes, one bit per property: the first 64 in one
/// word, more only for entities that have more.
///
/// **Complexity:** O(1) to insert and test; O(members) to iterate, plus
/// O(properties / 64) past the first 64.
struct PropertyMask: Sequence {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && high.isEmpty }

    /// The properties whose bits are set in `bits` (the first 64), and
    /// those of `other`.
    init(bits: UInt64 = 0, adding other: PropertyMask? = nil) {
        low = bits | (other?.low ?? 0)
        high = other?.high ?? []
    }

    // The first 64 properties take an inlined path; the rest, out of line.

    @inline(__always)
    func contains(_ index: Int) -> Bool {
        if index < 64 { return low & (1 << UInt64(index)) != 0 }
        return highContains(index)
    }

    private func highContains(_ index: Int) -> Bool {
        let word = index / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(index % 64)) != 0
    }

    /// Adds `index`; returns whether it was not in the mask yet.
    @discardableResult @inline(__always)
    mutating func insert(_ index: Int) -> Bool {
        if index < 64 {
            let bit: UInt64 = 1 << UInt64(index)
            defer { low |= bit }
            return low & bit == 0
        }
        return highInsert(index)
    }

    private mutating func highInsert(_ index: Int) -> Bool {
        let word = index / 64 - 1, bit: UInt64 = 1 << UInt64(index % 64)
        if word >= high.count { high += repeatElement(0, count: word - high.count + 1) }
        defer { high[word] |= bit }
        return high[word] & bit == 0
    }

    @inline(__always)
    mutating func remove(_ index: Int) {
        if index < 64 {
            low &= ~(1 << UInt64(index))
        } else {
            highRemove(index)
        }
    }

    private mutating func highRemove(_ index: Int) {
        guard index / 64 - 1 < high.count else { return }
        high[index / 64 - 1] &= ~(1 << UInt64(index % 64))
        while high.last == 0 { high.removeLast() }
    }

    mutating func removeAll() {
        low = 0
        high = []
    }

    func makeIterator() -> Iterator {
        Iterator(bits: low, high: high)
    }

    struct Iterator: IteratorProtocol {
        /// The bits of word `word` not visited yet (word 0 is `low`).
        fileprivate var bits: UInt64
        fileprivate let high: [UInt64]
        fileprivate var word = 0

        mutating func next() -> Int? {
            while bits == 0 {
                guard word < high.count else { return nil }
                bits = high[word]
                word += 1
            }
            let bit = bits.trailingZeroBitCount
            bits &= bits - 1
            return word * 64 + bit
        }
    }
}

/// Which of an object's first 32 properties were written since the last
/// save (`changed`) and since the last didChangeObjects notification
/// (`pending`): kept in the object itself, so that tracking a change of an
/// ordinary entity allocates nothing. Properties from the 33rd on are
/// recorded in the object's ``ObjectExtras``.
///
/// **Complexity:** O(1) for every operation.
struct InlineChangeMasks {
    /// The number of properties the masks hold.
    static let capacity = 32
    /// `changed` in the low half, `pending` in the high half.
    private var bits: UInt64 = 0

    var changed: UInt64 { bits & 0xFFFF_FFFF }
    var hasChanged: Bool { bits & 0xFFFF_FFFF != 0 }

    /// Adds `index` (below ``capacity``) to `changed`; returns whether it was not in it.
    @inline(__always)
    mutating func insertChanged(_ index: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(index)
        defer { bits |= bit }
        return bits & bit == 0
    }

    /// Adds `index` (below ``capacity``) to `pending`; returns whether it was not in it.
    @inline(__always)
    mutating func insertPending(_ index: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(index + 32)
        defer { bits |= bit }
        return bits & bit == 0
    }

    @inline(__always)
    func pendingContains(_ index: Int) -> Bool {
        bits & (1 << UInt64(index + 32)) != 0
    }

    @inline(__always)
    mutating func removePending(_ index: Int) {
        bits &= ~(1 << UInt64(index + 32))
    }

    mutating func removeAllChanged() { bits &= 0xFFFF_FFFF_0000_0000 }
    mutating func removeAllPending() { bits &= 0xFFFF_FFFF }
    mutating func removeAll() { bits = 0 }
}

/// What an object needs only sometimes, allocated on first need and kept
/// while the object lives: its Observation registrar (made on its first read
/// while its context takes part in Observation), the change masks of its properties from the
/// 33rd on, and relationships assigned objects of another context. Touched only on the context's queue, by calls that
/// never overlap: its fields skip run-time exclusivity checks.
@usableFromInline
final class ObjectExtras {
    /// See ``ManagedObject/_observation``.
    @exclusivity(unchecked) @usableFromInline var observation: ObservationBox?
    /// Properties from the 33rd on written since the last save; whether their
    /// values really differ from the committed ones is decided when asked.
    @exclusivity(unchecked) var changed = PropertyMask()
    /// Properties from the 33rd on written since the last didChangeObjects notification.
    @exclusivity(unchecked) var pending = PropertyMask()
    /// Relationships assigned an object of another context, or no context,
    /// with a description of that object; the next save throws for each.
    @exclusivity(unchecked) var foreignTargets: [Int: String] = [:]

    @usableFromInline init() {}

    /// Forgets everything written: the object is as committed.
    func clear() {
        changed.removeAll()
        pending.removeAll()
        foreignTargets = [:]
    }
}
