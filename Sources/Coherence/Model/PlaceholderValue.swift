import Foundation

/// Stand-in values for the model-building prototype.
///
/// The model tells which property a key path (`\Car.numberPlate` in a
/// predicate, a sort descriptor, a derivation) reaches by reading the key path
/// on a prototype object, which records the property read. A read must return
/// a value, but an attribute declared without an initial value has none; so
/// when the model is built, the prototype's required attributes get a
/// placeholder of their type. The placeholder is never stored, compared or
/// shown: it only lets the read return.
enum PlaceholderValue {
    /// A value of `Value`, or `nil` if none can be made. Tried in order: a
    /// native attribute type's zero value (`false`, `0`, `""`, the reference
    /// date, empty data, the nil UUID, `about:blank`), `nil` for an optional,
    /// the first case of a `CaseIterable` type, a raw-representable type built
    /// from its raw value's placeholder, a `Decodable` type decoded from
    /// placeholders, and for a type without references (a payload-free enum
    /// whose raw values are not the placeholders, say) all-zero memory, which
    /// is its first case.
    static func make<Value>(_ type: Value.Type) -> Value? {
        make(type, depth: 0)
    }

    /// How deep a `Decodable` placeholder may nest before giving up (a
    /// recursive type).
    static let maximumDepth = 16

    static func make<Value>(_ type: Value.Type, depth: Int) -> Value? {
        guard depth < maximumDepth else { return nil }
        if let native = Value.self as? any AttributeValue.Type {
            if let value = nativePlaceholder(native) as? Value { return value }
        }
        if let nilable = Value.self as? any ExpressibleByNilLiteral.Type {
            return nilable.init(nilLiteral: ()) as? Value
        }
        if let iterable = Value.self as? any CaseIterable.Type, let value = firstCase(iterable) as? Value {
            return value
        }
        if let raw = Value.self as? any RawRepresentable.Type, let value = rawPlaceholder(raw, depth: depth) as? Value {
            return value
        }
        if let decodable = Value.self as? any Decodable.Type,
           let value = try? decodable.init(from: PlaceholderDecoder(depth: depth + 1)) as? Value {
            return value
        }
        if _isPOD(Value.self) {
            return zeroed(Value.self)
        }
        return nil
    }

    private static func nativePlaceholder<Native: AttributeValue>(_ type: Native.Type) -> Native? {
        try? Native(storeValue: placeholderStoreValue(for: Native.attributeType))
    }

    /// A store value every native type of `attributeType` reads.
    private static func placeholderStoreValue(for attributeType: AttributeType) -> StoreValue {
        switch attributeType {
        case .boolean: .bool(false)
        case .integer16, .integer32, .integer64: .integer(0)
        case .double, .float: .double(0)
        case .string: .string("")
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .binaryData, .codable: .data(Data())
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .uri: .url(URL(string: "about:blank")!)
        case .decimal: .decimal(0)
        }
    }

    private static func firstCase<Iterable: CaseIterable>(_ type: Iterable.Type) -> Iterable? {
        Iterable.allCases.first
    }

    private static func rawPlaceholder<Raw: RawRepresentable>(_ type: Raw.Type, depth: Int) -> Raw? {
        make(Raw.RawValue.self, depth: depth + 1).flatMap(Raw.init(rawValue:))
    }

    /// All-zero memory as a `Value`; only called for types without references.
    private static func zeroed<Value>(_ type: Value.Type) -> Value {
        withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
            UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0)
            return buffer.baseAddress!.move()
        }
    }
}

/// Decodes any `Decodable` type from placeholders: every key is present, every
/// optional is `nil`, every collection is empty, every other value is its
/// ``PlaceholderValue``.
private struct PlaceholderDecoder: Decoder {
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(depth: depth)
    }

    /// The placeholder of `T`, or an error that makes the enclosing decode fail.
    static func value<T>(_ type: T.Type, depth: Int) throws -> T {
        guard let value = PlaceholderValue.make(type, depth: depth) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no placeholder for \(T.self)"))
        }
        return value
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try PlaceholderDecoder.value(type, depth: depth)
        }
        func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type, forKey key: Key) throws -> KeyedDecodingContainer<Nested> {
            KeyedDecodingContainer(Keyed<Nested>(depth: depth))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed(depth: depth) }
        func superDecoder() throws -> any Decoder { PlaceholderDecoder(depth: depth) }
        func superDecoder(forKey key: Key) throws -> any Decoder { PlaceholderDecoder(depth: depth) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try PlaceholderDecoder.value(type, depth: depth)
        }
        mutating func nestedContainer<Nested: CodingKey>(keyedBy type: Nested.Type) throws -> KeyedDecodingContainer<Nested> {
            KeyedDecodingContainer(Keyed<Nested>(depth: depth))
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(depth: depth) }
        mutating func superDecoder() throws -> any Decoder { PlaceholderDecoder(depth: depth) }
    }

    struct Single: SingleValueDecodingContainer {
        let depth: Int
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try PlaceholderDecoder.value(type, depth: depth)
        }
    }
}
