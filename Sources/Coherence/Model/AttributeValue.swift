import Foundation

/// A type an `@Attribute` stores natively.
///
/// Coherence conforms `Bool`, `Int`, `Int16`, `Int32`, `Int64`, `Double`,
/// `Float`, `String`, `Date`, `Data`, `UUID`, `URL` and `Decimal`. Optionals of
/// these, `RawRepresentable` types whose raw value is one of these, and any
/// other `Codable` type (stored as JSON) are supported without conforming.
public protocol AttributeValue {
    /// The attribute type this Swift type maps to.
    static var attributeType: AttributeType { get }
    /// The value in its store form.
    var storeValue: StoreValue { get }
    /// Reads a value back from its store form.
    /// - Throws: ``AttributeDecodingError`` when the store value has another kind
    ///   or is out of this type's range.
    init(storeValue: StoreValue) throws(AttributeDecodingError)
}

/// A store value that could not be turned back into the attribute's Swift type.
public struct AttributeDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Swift type that was expected.
    public let expectedType: String
    /// The store value that was found.
    public let found: StoreValue

    /// An error for a `found` value where `expectedType` was expected.
    public init(expectedType: String, found: StoreValue) {
        self.expectedType = expectedType
        self.found = found
    }

    public var description: String {
        "cannot read a \(expectedType) from a stored \(found.kindName) value (\(found))"
    }
}

extension Bool: AttributeValue {
    public static var attributeType: AttributeType { .boolean }
    public var storeValue: StoreValue { .bool(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .bool(let value): self = value
        case .integer(let value) where value == 0 || value == 1: self = value == 1
        default: throw AttributeDecodingError(expectedType: "Bool", found: storeValue)
        }
    }
}

/// Decodes any fixed-width integer from `.integer`, checking its range.
private func decodeInteger<I: FixedWidthInteger>(_ storeValue: StoreValue, as: I.Type) throws(AttributeDecodingError) -> I {
    guard case .integer(let value) = storeValue, let result = I(exactly: value) else {
        throw AttributeDecodingError(expectedType: String(describing: I.self), found: storeValue)
    }
    return result
}

extension Int: AttributeValue {
    public static var attributeType: AttributeType { .integer64 }
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) { self = try decodeInteger(storeValue, as: Int.self) }
}

extension Int16: AttributeValue {
    public static var attributeType: AttributeType { .integer16 }
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) { self = try decodeInteger(storeValue, as: Int16.self) }
}

extension Int32: AttributeValue {
    public static var attributeType: AttributeType { .integer32 }
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) { self = try decodeInteger(storeValue, as: Int32.self) }
}

extension Int64: AttributeValue {
    public static var attributeType: AttributeType { .integer64 }
    public var storeValue: StoreValue { .integer(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) { self = try decodeInteger(storeValue, as: Int64.self) }
}

extension Double: AttributeValue {
    public static var attributeType: AttributeType { .double }
    public var storeValue: StoreValue { .double(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .double(let value): self = value
        case .integer(let value): self = Double(value)
        default: throw AttributeDecodingError(expectedType: "Double", found: storeValue)
        }
    }
}

extension Float: AttributeValue {
    public static var attributeType: AttributeType { .float }
    public var storeValue: StoreValue { .double(Double(self)) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .double(let value): self = Float(value)
        case .integer(let value): self = Float(value)
        default: throw AttributeDecodingError(expectedType: "Float", found: storeValue)
        }
    }
}

extension String: AttributeValue {
    public static var attributeType: AttributeType { .string }
    public var storeValue: StoreValue { .string(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        guard case .string(let value) = storeValue else { throw AttributeDecodingError(expectedType: "String", found: storeValue) }
        self = value
    }
}

extension Date: AttributeValue {
    public static var attributeType: AttributeType { .date }
    public var storeValue: StoreValue { .date(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .date(let value): self = value
        case .double(let value): self = Date(timeIntervalSinceReferenceDate: value)
        default: throw AttributeDecodingError(expectedType: "Date", found: storeValue)
        }
    }
}

extension Data: AttributeValue {
    public static var attributeType: AttributeType { .binaryData }
    public var storeValue: StoreValue { .data(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        guard case .data(let value) = storeValue else { throw AttributeDecodingError(expectedType: "Data", found: storeValue) }
        self = value
    }
}

extension UUID: AttributeValue {
    public static var attributeType: AttributeType { .uuid }
    public var storeValue: StoreValue { .uuid(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .uuid(let value): self = value
        case .string(let text):
            guard let value = UUID(uuidString: text) else { throw AttributeDecodingError(expectedType: "UUID", found: storeValue) }
            self = value
        default: throw AttributeDecodingError(expectedType: "UUID", found: storeValue)
        }
    }
}

extension URL: AttributeValue {
    public static var attributeType: AttributeType { .uri }
    public var storeValue: StoreValue { .url(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .url(let value): self = value
        case .string(let text):
            guard let value = URL(string: text) else { throw AttributeDecodingError(expectedType: "URL", found: storeValue) }
            self = value
        default: throw AttributeDecodingError(expectedType: "URL", found: storeValue)
        }
    }
}

extension Decimal: AttributeValue {
    public static var attributeType: AttributeType { .decimal }
    public var storeValue: StoreValue { .decimal(self) }
    public init(storeValue: StoreValue) throws(AttributeDecodingError) {
        switch storeValue {
        case .decimal(let value): self = value
        case .string(let text):
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw AttributeDecodingError(expectedType: "Decimal", found: storeValue)
            }
            self = value
        case .integer(let value): self = Decimal(value)
        default: throw AttributeDecodingError(expectedType: "Decimal", found: storeValue)
        }
    }
}
