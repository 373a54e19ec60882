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

    /// Replaces the value in `storage` with `value`, decoded; `false`,
    /// changing nothing, for a type that is not native.
    /// - Throws: ``AttributeDecodingError`` when `value` does not decode.
    @inline(__always)
    func store(_ value: StoreValue, at storage: UnsafeMutableRawPointer) throws(AttributeDecodingError) -> Bool {
        guard let native else { return false }
        switch native {
        case .bool: try Self.store(Bool.self, value, storage, isOptional)
        case .int: try Self.store(Int.self, value, storage, isOptional)
        case .int16: try Self.store(Int16.self, value, storage, isOptional)
        case .int32: try Self.store(Int32.self, value, storage, isOptional)
        case .int64: try Self.store(Int64.self, value, storage, isOptional)
        case .double: try Self.store(Double.self, value, storage, isOptional)
        case .float: try Self.store(Float.self, value, storage, isOptional)
        case .string: try Self.store(String.self, value, storage, isOptional)
        case .date: try Self.store(Date.self, value, storage, isOptional)
        case .data: try Self.store(Data.self, value, storage, isOptional)
        case .uuid: try Self.store(UUID.self, value, storage, isOptional)
        case .url: try Self.store(URL.self, value, storage, isOptional)
        case .decimal: try Self.store(Decimal.self, value, storage, isOptional)
        }
        return true
    }

    /// The store form of the value in `storage`: `.some(nil)` when it was
    /// never set, `nil` for a type that is not native.
    @inline(__always)
    func load(at storage: UnsafeRawPointer) -> StoreValue?? {
        guard let native else { return nil }
        let loaded: StoreValue? = switch native {
        case .bool: Self.load(Bool.self, storage, isOptional)
        case .int: Self.load(Int.self, storage, isOptional)
        case .int16: Self.load(Int16.self, storage, isOptional)
        case .int32: Self.load(Int32.self, storage, isOptional)
        case .int64: Self.load(Int64.self, storage, isOptional)
        case .double: Self.load(Double.self, storage, isOptional)
        case .float: Self.load(Float.self, storage, isOptional)
        case .string: Self.load(String.self, storage, isOptional)
        case .date: Self.load(Date.self, storage, isOptional)
        case .data: Self.load(Data.self, storage, isOptional)
        case .uuid: Self.load(UUID.self, storage, isOptional)
        case .url: Self.load(URL.self, storage, isOptional)
        case .decimal: Self.load(Decimal.self, storage, isOptional)
        }
        return .some(loaded)
    }

    /// Storage is `T?` for a required attribute, `T??` for an optional one;
    /// the outer `nil` means "never set".
    @inline(__always)
    private static func store<T: AttributeValue>(_: T.Type, _ value: StoreValue, _ storage: UnsafeMutableRawPointer,
                                                 _ isOptional: Bool) throws(AttributeDecodingError) {
        if !isOptional {
            storage.assumingMemoryBound(to: T?.self).pointee = try T(storeValue: value)
        } else if case .null = value {
            storage.assumingMemoryBound(to: T??.self).pointee = .some(nil)
        } else {
            storage.assumingMemoryBound(to: T??.self).pointee = .some(try T(storeValue: value))
        }
    }

    @inline(__always)
    private static func load<T: AttributeValue>(_: T.Type, _ storage: UnsafeRawPointer, _ isOptional: Bool) -> StoreValue? {
        if !isOptional { return storage.assumingMemoryBound(to: T?.self).pointee?.storeValue }
        guard let value = storage.assumingMemoryBound(to: T??.self).pointee else { return nil }
        return value?.storeValue ?? .null
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
