import Foundation

/// Loads and stores one attribute's inline storage (an ``Attribute``'s or a
/// ``Derived``'s `Value?`) in store form, compiled for the concrete Swift
/// type, chosen once when the model is built.
///
/// The generic ``ValueCodec`` path works for every type, but in code that is
/// not specialized each call looks up the metadata of `Value?` at run time
/// (hundreds of instructions per value). Fault fulfillment and saves run these
/// for every attribute of every object, so the native types and their
/// optionals get closures written for the concrete type instead.
struct SlotOperations: Sendable {
    /// The store form of the value at `storage`; `nil` if it was never set.
    let load: @Sendable (_ storage: UnsafeRawPointer) -> StoreValue?
    /// Decodes `value` and replaces the value at `storage` with it.
    let store: @Sendable (_ value: StoreValue, _ storage: UnsafeMutableRawPointer) throws -> Void

    /// The operations for `Value` when it is a native attribute type or an
    /// optional of one; `nil` for other types (raw-representable, Codable).
    static func make<Value>(for _: Value.Type) -> SlotOperations? {
        if let native = Value.self as? any NativeSlotStorage.Type { return native.slotOperations }
        if let optional = Value.self as? any OptionalSlotStorage.Type { return optional.wrappedSlotOperations }
        return nil
    }
}

/// The native attribute types. A protocol requirement (not an extension
/// method), so each conformance's witness is specialized for its type.
protocol NativeSlotStorage: AttributeValue, SendableMetatype {
    /// Operations on storage of type `Self?`.
    static var slotOperations: SlotOperations { get }
    /// Operations on storage of type `Self??` (an optional attribute).
    static var optionalSlotOperations: SlotOperations { get }
}

extension NativeSlotStorage {
    static var slotOperations: SlotOperations {
        SlotOperations(
            load: { storage in storage.assumingMemoryBound(to: Self?.self).pointee?.storeValue },
            store: { value, storage in storage.assumingMemoryBound(to: Self?.self).pointee = try Self(storeValue: value) }
        )
    }

    static var optionalSlotOperations: SlotOperations {
        SlotOperations(
            load: { storage in
                guard let value = storage.assumingMemoryBound(to: Self??.self).pointee else { return nil }
                return value?.storeValue ?? .null
            },
            store: { value, storage in
                let decoded: Self?
                if case .null = value { decoded = nil } else { decoded = try Self(storeValue: value) }
                storage.assumingMemoryBound(to: Self??.self).pointee = .some(decoded)
            }
        )
    }
}

extension Bool: NativeSlotStorage {}
extension Int: NativeSlotStorage {}
extension Int16: NativeSlotStorage {}
extension Int32: NativeSlotStorage {}
extension Int64: NativeSlotStorage {}
extension Double: NativeSlotStorage {}
extension Float: NativeSlotStorage {}
extension String: NativeSlotStorage {}
extension Date: NativeSlotStorage {}
extension Data: NativeSlotStorage {}
extension UUID: NativeSlotStorage {}
extension URL: NativeSlotStorage {}
extension Decimal: NativeSlotStorage {}

/// Implemented by `Optional`, so that an optional attribute finds the
/// operations of its wrapped native type.
protocol OptionalSlotStorage {
    static var wrappedSlotOperations: SlotOperations? { get }
}

extension Optional: OptionalSlotStorage {
    static var wrappedSlotOperations: SlotOperations? {
        (Wrapped.self as? any NativeSlotStorage.Type)?.optionalSlotOperations
    }
}
