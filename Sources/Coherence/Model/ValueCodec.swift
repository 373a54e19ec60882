import Foundation

/// How one attribute's Swift type converts to and from ``StoreValue``, chosen
/// once when the model is built (native value, optional, raw-representable or
/// JSON-coded `Codable`).
struct ValueCodec<Value>: Sendable {
    let attributeType: AttributeType
    /// Whether the Swift type is an `Optional` (a stored `.null` means `nil`).
    let isOptional: Bool
    let encode: @Sendable (Value) throws -> StoreValue
    let decode: @Sendable (StoreValue) throws -> Value

    /// The codec for `Value`, or `nil` when Coherence cannot store it.
    static func make() -> ValueCodec<Value>? {
        if let native = Value.self as? any AttributeValue.Type {
            return native.makeNativeCodec(as: Value.self)
        }
        if let optional = Value.self as? any OptionalCodecProvider.Type {
            return optional.makeOptionalCodec(as: Value.self)
        }
        if let raw = Value.self as? any RawRepresentable.Type {
            if let codec = raw.makeRawCodec(as: Value.self) { return codec }
        }
        if let codable = Value.self as? any Codable.Type {
            return codable.makeJSONCodec(as: Value.self)
        }
        return nil
    }
}

extension AttributeValue {
    fileprivate static func makeNativeCodec<Value>(as: Value.Type) -> ValueCodec<Value> {
        let impl = NativeCodec<Self, Value>()
        return ValueCodec<Value>(attributeType: attributeType, isOptional: false, encode: impl.encode, decode: impl.decode)
    }
}

// The codec implementations are structs rather than closures over generic
// metatypes, so the closures built from them stay `Sendable`. `Value` is
// always the same type as the generic type they convert to (checked when the
// codec is chosen), which is what makes `unsafeBitCast` a no-op here.

private struct NativeCodec<Native: AttributeValue, Value>: @unchecked Sendable {
    func encode(_ value: Value) throws -> StoreValue {
        unsafeBitCast(value, to: Native.self).storeValue
    }

    func decode(_ storeValue: StoreValue) throws -> Value {
        unsafeBitCast(try Native(storeValue: storeValue), to: Value.self)
    }
}

/// Implemented by `Optional` so that an optional attribute can find its
/// wrapped type's codec.
protocol OptionalCodecProvider {
    static func makeOptionalCodec<Value>(as: Value.Type) -> ValueCodec<Value>?
}

extension Optional: OptionalCodecProvider {
    static func makeOptionalCodec<Value>(as: Value.Type) -> ValueCodec<Value>? {
        guard let inner = ValueCodec<Wrapped>.make(), !inner.isOptional else { return nil }
        let impl = OptionalCodec<Wrapped, Value>(inner: inner)
        return ValueCodec<Value>(attributeType: inner.attributeType, isOptional: true, encode: impl.encode, decode: impl.decode)
    }
}

private struct OptionalCodec<Wrapped, Value>: @unchecked Sendable {
    let inner: ValueCodec<Wrapped>

    func encode(_ value: Value) throws -> StoreValue {
        guard let wrapped = unsafeBitCast(value, to: Wrapped?.self) else { return .null }
        return try inner.encode(wrapped)
    }

    func decode(_ storeValue: StoreValue) throws -> Value {
        if case .null = storeValue { return unsafeBitCast(Wrapped?.none, to: Value.self) }
        return unsafeBitCast(Wrapped?.some(try inner.decode(storeValue)), to: Value.self)
    }
}

extension RawRepresentable {
    fileprivate static func makeRawCodec<Value>(as: Value.Type) -> ValueCodec<Value>? {
        guard let raw = ValueCodec<RawValue>.make(), !raw.isOptional, raw.attributeType != .codable else { return nil }
        let impl = RawCodec<Self, Value>(raw: raw)
        return ValueCodec<Value>(attributeType: raw.attributeType, isOptional: false, encode: impl.encode, decode: impl.decode)
    }
}

private struct RawCodec<Raw: RawRepresentable, Value>: @unchecked Sendable {
    let raw: ValueCodec<Raw.RawValue>

    func encode(_ value: Value) throws -> StoreValue {
        try raw.encode(unsafeBitCast(value, to: Raw.self).rawValue)
    }

    func decode(_ storeValue: StoreValue) throws -> Value {
        guard let value = Raw(rawValue: try raw.decode(storeValue)) else {
            throw AttributeDecodingError(expectedType: String(describing: Raw.self), found: storeValue)
        }
        return unsafeBitCast(value, to: Value.self)
    }
}

extension Decodable where Self: Encodable {
    fileprivate static func makeJSONCodec<Value>(as: Value.Type) -> ValueCodec<Value> {
        let impl = JSONCodec<Self, Value>()
        return ValueCodec<Value>(attributeType: .codable, isOptional: false, encode: impl.encode, decode: impl.decode)
    }
}

private struct JSONCodec<Coded: Codable, Value>: @unchecked Sendable {
    func encode(_ value: Value) throws -> StoreValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .data(try encoder.encode(unsafeBitCast(value, to: Coded.self)))
    }

    func decode(_ storeValue: StoreValue) throws -> Value {
        guard case .data(let data) = storeValue else {
            throw AttributeDecodingError(expectedType: String(describing: Coded.self), found: storeValue)
        }
        return unsafeBitCast(try JSONDecoder().decode(Coded.self, from: data), to: Value.self)
    }
}
