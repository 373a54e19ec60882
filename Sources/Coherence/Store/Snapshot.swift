/// The committed values of one object, immutable and `Sendable`: what a store
/// returns, what objects keep as their last committed state, and what a save
/// hands back for each saved object.
///
/// A snapshot read from a store is one allocation: its ID, version and
/// values live together in one immutable buffer, so copying a snapshot copies
/// a reference. (A fetch makes one per row; a separate array for the values
/// would double the allocations, and the memory written, of every row read.)
/// A snapshot made from an array, as a save makes them, shares the array.
///
/// (`@unchecked Sendable`: the buffer is written only while the snapshot is
/// made, before anything else can see it, and is immutable after.)
public struct Snapshot: @unchecked Sendable, CustomStringConvertible {
    /// The buffer: the header, then `header.count` values (none when the
    /// header holds them in an array).
    final class Storage: ManagedBuffer<Header, StoreValue> {
        deinit {
            _ = withUnsafeMutablePointers { header, values in values.deinitialize(count: header.pointee.count) }
        }
    }

    struct Header {
        let objectID: ManagedObjectID
        let version: Int64
        /// The values, when the snapshot was made from an array; otherwise
        /// empty, and the values follow the header.
        let array: [StoreValue]
        /// The number of values that follow the header.
        var count: Int
    }

    /// The buffer (`var` only so that the row cache can ask whether it is
    /// the buffer's only holder).
    var storage: Storage

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
        let buffer = Storage.create(minimumCapacity: 0) { _ in Header(objectID: objectID, version: version, array: values, count: 0) }
        storage = unsafeDowncast(buffer, to: Storage.self)
    }

    /// A snapshot whose values `body` appends one by one (at most `capacity`
    /// of them), written straight into the snapshot's buffer. If `body`
    /// throws, the values appended so far are released and nothing is made.
    init(objectID: ManagedObjectID, version: Int64, capacity: Int,
         appendingValues body: (_ append: (StoreValue) -> Void) throws -> Void) rethrows {
        let buffer = Storage.create(minimumCapacity: capacity) { _ in Header(objectID: objectID, version: version, array: [], count: 0) }
        storage = unsafeDowncast(buffer, to: Storage.self)
        try storage.withUnsafeMutablePointers { header, values in
            try body { value in
                precondition(header.pointee.count < capacity, "a snapshot of \(objectID.entityName) was given more than \(capacity) values")
                (values + header.pointee.count).initialize(to: value)
                header.pointee.count += 1
            }
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
        "Snapshot(\(objectID), v\(version), \(Array(values)))"
    }

    /// A snapshot's values: a read-only, random-access view of its buffer.
    /// `Array(snapshot.values)` makes a mutable copy.
    ///
    /// **Complexity:** O(1) to get, to subscript and to count.
    public struct Values: RandomAccessCollection, @unchecked Sendable, Equatable {
        let storage: Storage
        /// The number of values (one past the last index).
        public let endIndex: Int
        /// Whether the values are in the header's array.
        let inArray: Bool

        init(storage: Storage) {
            self.storage = storage
            (endIndex, inArray) = storage.withUnsafeMutablePointerToHeader { header in
                header.pointee.count == 0 ? (header.pointee.array.count, true) : (header.pointee.count, false)
            }
        }

        /// 0.
        public var startIndex: Int { 0 }

        /// The value of the property at `position` (the entity's property
        /// order). Traps when `position` is out of range.
        public subscript(position: Int) -> StoreValue {
            precondition(position >= 0 && position < endIndex, "index \(position) is out of a snapshot's \(endIndex) values")
            if inArray { return storage.withUnsafeMutablePointerToHeader { $0.pointee.array[position] } }
            return storage.withUnsafeMutablePointerToElements { $0[position] }
        }

        /// Calls `body` with the values in contiguous memory, valid only
        /// during the call.
        func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<StoreValue>) throws -> R) rethrows -> R {
            if inArray { return try storage.withUnsafeMutablePointerToHeader { try $0.pointee.array.withUnsafeBufferPointer(body) } }
            return try storage.withUnsafeMutablePointerToElements { try body(UnsafeBufferPointer(start: $0, count: endIndex)) }
        }

        /// Whether both hold the same values in the same order.
        public static func == (lhs: Values, rhs: Values) -> Bool {
            lhs.storage === rhs.storage || lhs.elementsEqual(rhs)
        }
    }
}
