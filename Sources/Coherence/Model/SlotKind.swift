import Foundation

/// How the per-row paths (filling a fetched object, reading a saved one)
/// read and write an attribute's inline storage (an ``Attribute``'s or a
/// ``Derived``'s `Value?`): for the native ``AttributeValue`` types and their
/// optionals, one switch on the type, then code compiled for it.
///
/// The generic ``AttributeAccess`` path works for every type, but in code
/// that is not specialized each call looks up the metadata of `Value?` at
/// run time (hundreds of instructions per value), and these paths run for
/// every attribute of every object. Other types (`RawRepresentable`,
/// `Codable`) take that path.
///
/// **Complexity:** O(1) per value.
struct SlotKind: Sendable {
    /// The native attribute types.
    enum Native: UInt8, Sendable {
        case bool, int, int16, int32, int64, double, float, string, date, data, uuid, url, decimal
    }

    /// `nil` for a type that is not native (the caller takes the general path).
    let native: Native?
    /// Whether the attribute's type is an optional of `native`.
    let isOptional: Bool

    /// The kind of an attribute whose Swift type is `type`.
    init(_ type: Any.Type) {
        let found = Self.natives[ObjectIdentifier(type)]
        native = found?.native
        isOptional = found?.isOptional ?? false
    }

    private static let natives: [ObjectIdentifier: (native: Native, isOptional: Bool)] = {
        let types: [(Any.Type, Any.Type, Native)] = [
            (Bool.self, Bool?.self, .bool), (Int.self, Int?.self, .int), (Int16.self, Int16?.self, .int16),
            (Int32.self, Int32?.self, .int32), (Int64.self, Int64?.self, .int64), (Double.self, Double?.self, .double),
            (Float.self, Float?.self, .float), (String.self, String?.self, .string), (Date.self, Date?.self, .date),
            (Data.self, Data?.self, .data), (UUID.self, UUID?.self, .uuid), (URL.self, URL?.self, .url),
            (Decimal.self, Decimal?.self, .decimal),
        ]
        var table: [ObjectIdentifier: (native: Native, isOptional: Bool)] = [:]
        for (plain, optional, native) in types {
            table[ObjectIdentifier(plain)] = (native, false)
            table[ObjectIdentifier(optional)] = (native, true)
        }
        return table
    }()

    /// Runs `operation` with the Swift type of `native`: the one switch
    /// over the native types, so that each operation is compiled for each.
    @inline(__always)
    fileprivate static func with<Operation: SlotOperation>(_ native: Native, _ operation: Operation) throws(Operation.Failure) -> Operation.Result {
        switch native {
        case .bool: try operation.run(Bool.self)
        case .int: try operation.run(Int.self)
        case .int16: try operation.run(Int16.self)
        case .int32: try operation.run(Int32.self)
        case .int64: try operation.run(Int64.self)
        case .double: try operation.run(Double.self)
        case .float: try operation.run(Float.self)
        case .string: try operation.run(String.self)
        case .date: try operation.run(Date.self)
        case .data: try operation.run(Data.self)
        case .uuid: try operation.run(UUID.self)
        case .url: try operation.run(URL.self)
        case .decimal: try operation.run(Decimal.self)
        }
    }

    /// Replaces the value in `storage` with `value`, decoded; `false`,
    /// changing nothing, for a type that is not native.
    /// - Throws: ``AttributeDecodingError`` when `value` does not decode.
    @inline(__always)
    func store(_ value: StoreValue, at storage: UnsafeMutableRawPointer) throws(AttributeDecodingError) -> Bool {
        guard let native else { return false }
        try Self.with(native, Store(value: value, storage: storage, isOptional: isOptional))
        return true
    }

    /// Replaces the value in `storage` of an `Int64` attribute, or an `Int`
    /// one where `Int` has 64 bits (or an optional of either), with
    /// `integer`; `false`, changing nothing, for another type. The path of fetched integers, which
    /// snapshots keep as words: no ``StoreValue`` is made for them.
    @inline(__always)
    func store(integer: Int64, at storage: UnsafeMutableRawPointer) -> Bool {
        switch native {
        case .int64: put(integer, at: storage)
        case .int where Int.bitWidth == 64: put(Int(integer), at: storage)
        default: return false
        }
        return true
    }

    /// Writes a value into storage that is `T?` for a required attribute and
    /// `T??` for an optional one (see `Store`).
    @inline(__always)
    private func put<T>(_ value: T, at storage: UnsafeMutableRawPointer) {
        if isOptional {
            storage.assumingMemoryBound(to: T??.self).pointee = .some(value)
        } else {
            storage.assumingMemoryBound(to: T?.self).pointee = value
        }
    }

    /// The store form of the value in `storage`: `.some(nil)` when it was
    /// never set, `nil` for a type that is not native.
    @inline(__always)
    func load(at storage: UnsafeRawPointer) -> StoreValue?? {
        guard let native else { return nil }
        return .some(Self.with(native, Load(storage: storage, isOptional: isOptional)))
    }
}

extension AttributeSlotEntry {
    /// Whether the attribute has a value in `object` (a required attribute
    /// declared without an initial value has none until set), without
    /// building its store form; `nil` for a type that is not native.
    func isSet(in object: ManagedObject) -> Bool? {
        guard let native = kind.native else { return nil }
        let storage = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: storageOffset)
        return SlotKind.with(native, IsSet(storage: storage, isOptional: kind.isOptional))
    }
}

extension AttributeSlotEntry {
    /// The value in `object` as Swift code sees it, boxed, without building
    /// its store form: `.some(nil)` for an optional attribute's `nil`, `nil`
    /// when it was never set; `nil` too for a type that is not native, which
    /// callers check with ``SlotKind/native`` first.
    func swiftValue(in object: ManagedObject) -> Any?? {
        guard let native = kind.native else { return nil }
        let storage = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: storageOffset)
        return SlotKind.with(native, Box(storage: storage, isOptional: kind.isOptional))
    }
}

/// An operation on a slot, run with the attribute's concrete type.
private protocol SlotOperation {
    associatedtype Result
    /// `Never` for the operations that cannot fail.
    associatedtype Failure: Error
    func run<T: AttributeValue>(_ type: T.Type) throws(Failure) -> Result
}

/// Storage is `T?` for a required attribute, `T??` for an optional one; the
/// outer `nil` means "never set".
private struct Store: SlotOperation {
    typealias Failure = AttributeDecodingError
    let value: StoreValue
    let storage: UnsafeMutableRawPointer
    let isOptional: Bool

    @inline(__always)
    func run<T: AttributeValue>(_: T.Type) throws(AttributeDecodingError) {
        if !isOptional {
            storage.assumingMemoryBound(to: T?.self).pointee = try T(storeValue: value)
        } else if case .null = value {
            storage.assumingMemoryBound(to: T??.self).pointee = .some(nil)
        } else {
            storage.assumingMemoryBound(to: T??.self).pointee = .some(try T(storeValue: value))
        }
    }
}

private struct IsSet: SlotOperation {
    typealias Failure = Never
    let storage: UnsafeRawPointer
    let isOptional: Bool

    @inline(__always)
    func run<T: AttributeValue>(_: T.Type) -> Bool {
        isOptional ? storage.assumingMemoryBound(to: T??.self).pointee != nil : storage.assumingMemoryBound(to: T?.self).pointee != nil
    }
}

private struct Load: SlotOperation {
    typealias Failure = Never
    let storage: UnsafeRawPointer
    let isOptional: Bool

    @inline(__always)
    func run<T: AttributeValue>(_: T.Type) -> StoreValue? {
        if !isOptional { return storage.assumingMemoryBound(to: T?.self).pointee?.storeValue }
        guard let value = storage.assumingMemoryBound(to: T??.self).pointee else { return nil }
        return value?.storeValue ?? .null
    }
}

private struct Box: SlotOperation {
    typealias Failure = Never
    let storage: UnsafeRawPointer
    let isOptional: Bool

    @inline(__always)
    func run<T: AttributeValue>(_: T.Type) -> Any?? {
        if !isOptional { return storage.assumingMemoryBound(to: T?.self).pointee.map { .some($0) } }
        guard let value = storage.assumingMemoryBound(to: T??.self).pointee else { return nil }
        return .some(value.map { $0 })
    }
}

/// One attribute as the per-row paths need it: plain values, so walking an
/// entity's attributes retains nothing.
struct AttributeSlotEntry: Sendable {
    let kind: SlotKind
    let attributeType: AttributeType
    /// The byte offset of the value inside the object.
    let storageOffset: Int
    /// Whether the attribute is a required `Double` or `Float` (its own type
    /// or a raw value's), whose NaN SQLite stores as NULL (it has no NaN): a
    /// NULL there reads back as NaN rather than as a value the attribute
    /// cannot take (a NULL written by SQL, such as the minimum of no
    /// children, reads as NaN too). An optional attribute's NaN reads back
    /// as `nil`.
    let readsNullAsNaN: Bool
    /// Whether the attribute is transient (it has no column). A Bool, not
    /// the initial value: an entry must stay plain data, copied without
    /// retains on every row.
    let isTransient: Bool
    /// Whether the attribute is ``Derived`` (computed, never validated).
    let isDerived: Bool
    /// Whether a NULL in the attribute's column cannot be read: a required
    /// attribute other than a `Double` or `Float` (another program wrote it).
    let rejectsNull: Bool

    init(_ attribute: AttributeDescription) {
        isTransient = attribute.isTransient
        isDerived = attribute.isDerived
        kind = attribute.slotKind
        attributeType = attribute.attributeType
        storageOffset = attribute.storageOffset
        readsNullAsNaN = !attribute.isOptional && (attribute.attributeType == .double || attribute.attributeType == .float)
        rejectsNull = !attribute.isOptional && !readsNullAsNaN && !attribute.isTransient && !attribute.isDerived
    }

    /// Whether `integer` fits the attribute's integer type (another program
    /// may have written any 64-bit integer into an `Int16` column).
    func holds(integer: Int64) -> Bool {
        switch attributeType {
        case .integer16: Int16(exactly: integer) != nil
        case .integer32: Int32(exactly: integer) != nil
        default: true
        }
    }
}
