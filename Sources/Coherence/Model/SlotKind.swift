import Foundation

/// The attribute types whose inline storage (an ``Attribute``'s or a
/// ``Derived``'s `Value?`) the per-row paths read and write with one switch:
/// filling a fetched object, reading a saved one, reading a row.
///
/// ``SlotOperations`` handles every native type through closures, which
/// costs a call and the retain of two closure contexts per value; these
/// kinds, the types most attributes have, cost a branch. Any other type, and
/// any value that is not in its kind's usual store form (an integer column
/// read as a `Double`, say), takes the general path, which converts it or
/// throws as before.
enum SlotKind: UInt8, Sendable {
    case int64, optionalInt64
    case int, optionalInt
    case double, optionalDouble
    case bool, optionalBool
    case string, optionalString
    case date, optionalDate
    /// Every other type: use ``SlotOperations`` or ``AttributeAccess``.
    case other

    /// The kind of an attribute whose Swift type is `type`.
    init(_ type: Any.Type) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(Int64.self): self = .int64
        case ObjectIdentifier(Int64?.self): self = .optionalInt64
        case ObjectIdentifier(Int.self): self = .int
        case ObjectIdentifier(Int?.self): self = .optionalInt
        case ObjectIdentifier(Double.self): self = .double
        case ObjectIdentifier(Double?.self): self = .optionalDouble
        case ObjectIdentifier(Bool.self): self = .bool
        case ObjectIdentifier(Bool?.self): self = .optionalBool
        case ObjectIdentifier(String.self): self = .string
        case ObjectIdentifier(String?.self): self = .optionalString
        case ObjectIdentifier(Date.self): self = .date
        case ObjectIdentifier(Date?.self): self = .optionalDate
        default: self = .other
        }
    }

    /// Replaces the value in `storage` (of type `Value?`, for this kind's
    /// `Value`) with `value`; `false`, changing nothing, when `value` is not
    /// in the kind's usual store form or the kind is ``other``.
    @inline(__always)
    func store(_ value: StoreValue, at storage: UnsafeMutableRawPointer) -> Bool {
        switch (self, value) {
        case (.int64, .integer(let number)): storage.assumingMemoryBound(to: Int64?.self).pointee = number
        case (.optionalInt64, .integer(let number)): storage.assumingMemoryBound(to: Int64??.self).pointee = .some(number)
        case (.int, .integer(let number)): storage.assumingMemoryBound(to: Int?.self).pointee = Int(number)
        case (.optionalInt, .integer(let number)): storage.assumingMemoryBound(to: Int??.self).pointee = .some(Int(number))
        case (.double, .double(let number)): storage.assumingMemoryBound(to: Double?.self).pointee = number
        case (.optionalDouble, .double(let number)): storage.assumingMemoryBound(to: Double??.self).pointee = .some(number)
        case (.bool, .bool(let flag)): storage.assumingMemoryBound(to: Bool?.self).pointee = flag
        case (.optionalBool, .bool(let flag)): storage.assumingMemoryBound(to: Bool??.self).pointee = .some(flag)
        case (.string, .string(let text)): storage.assumingMemoryBound(to: String?.self).pointee = text
        case (.optionalString, .string(let text)): storage.assumingMemoryBound(to: String??.self).pointee = .some(text)
        case (.date, .date(let date)): storage.assumingMemoryBound(to: Date?.self).pointee = date
        case (.optionalDate, .date(let date)): storage.assumingMemoryBound(to: Date??.self).pointee = .some(date)
        case (.optionalInt64, .null): storage.assumingMemoryBound(to: Int64??.self).pointee = .some(nil)
        case (.optionalInt, .null): storage.assumingMemoryBound(to: Int??.self).pointee = .some(nil)
        case (.optionalDouble, .null): storage.assumingMemoryBound(to: Double??.self).pointee = .some(nil)
        case (.optionalBool, .null): storage.assumingMemoryBound(to: Bool??.self).pointee = .some(nil)
        case (.optionalString, .null): storage.assumingMemoryBound(to: String??.self).pointee = .some(nil)
        case (.optionalDate, .null): storage.assumingMemoryBound(to: Date??.self).pointee = .some(nil)
        default: return false
        }
        return true
    }

    /// The store form of the value in `storage`: `.some(nil)` when it was
    /// never set, `nil` for ``other`` (the caller takes the general path).
    @inline(__always)
    func load(at storage: UnsafeRawPointer) -> StoreValue?? {
        switch self {
        case .int64: storage.assumingMemoryBound(to: Int64?.self).pointee.map { .integer($0) }
        case .int: storage.assumingMemoryBound(to: Int?.self).pointee.map { .integer(Int64($0)) }
        case .double: storage.assumingMemoryBound(to: Double?.self).pointee.map { .double($0) }
        case .bool: storage.assumingMemoryBound(to: Bool?.self).pointee.map { .bool($0) }
        case .string: storage.assumingMemoryBound(to: String?.self).pointee.map { .string($0) }
        case .date: storage.assumingMemoryBound(to: Date?.self).pointee.map { .date($0) }
        case .optionalInt64: storage.assumingMemoryBound(to: Int64??.self).pointee.map { $0.map { .integer($0) } ?? .null }
        case .optionalInt: storage.assumingMemoryBound(to: Int??.self).pointee.map { $0.map { .integer(Int64($0)) } ?? .null }
        case .optionalDouble: storage.assumingMemoryBound(to: Double??.self).pointee.map { $0.map { .double($0) } ?? .null }
        case .optionalBool: storage.assumingMemoryBound(to: Bool??.self).pointee.map { $0.map { .bool($0) } ?? .null }
        case .optionalString: storage.assumingMemoryBound(to: String??.self).pointee.map { $0.map { .string($0) } ?? .null }
        case .optionalDate: storage.assumingMemoryBound(to: Date??.self).pointee.map { $0.map { .date($0) } ?? .null }
        case .other: nil
        }
    }
}

/// One attribute as the per-row paths need it: plain values, so walking an
/// entity's attributes retains nothing.
struct AttributeSlotEntry: Sendable {
    let kind: SlotKind
    let attributeType: AttributeType
    /// The byte offset of the value inside the object.
    let storageOffset: Int
}
