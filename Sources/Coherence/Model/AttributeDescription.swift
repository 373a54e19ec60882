import Foundation

/// One attribute of an entity, discovered from an ``Attribute`` property.
public final class AttributeDescription: Sendable, CustomStringConvertible {
    /// The property name, as written in Swift.
    public let name: String
    /// The kind of value stored.
    public let attributeType: AttributeType
    /// Whether `nil` is a valid value (the Swift type is an `Optional`).
    public let isOptional: Bool
    /// The initial value of new objects in store form, or `nil` for a required
    /// attribute declared without one.
    public let defaultValue: StoreValue?
    /// Whether the value is derived (``Derived``) rather than set.
    public let isDerived: Bool
    /// Whether the attribute is transient (``AttributeOption/transient``):
    /// tracked by contexts, kept by no store.
    public let isTransient: Bool
    /// Whether a deletion's persistent history keeps the value
    /// (``AttributeOption/preservesValueInHistoryOnDeletion``), as Core Data's
    /// `NSAttributeDescription.preservesValueInHistoryOnDeletion`.
    public let preservesValueInHistoryOnDeletion: Bool
    /// The position of this property in the entity's snapshots.
    let index: Int
    let access: any AttributeAccess
    /// The byte offset of the wrapper's `storage` inside the object.
    let storageOffset: Int
    /// How the per-row paths read and write the value (see ``SlotKind``).
    let slotKind: SlotKind
    /// The Swift type of the property.
    var valueType: Any.Type { access.valueType }

    init(name: String, index: Int, attributeType: AttributeType, isOptional: Bool, defaultValue: StoreValue?,
         access: any AttributeAccess, storageOffset: Int, isDerived: Bool = false, isTransient: Bool = false,
         preservesValueInHistoryOnDeletion: Bool = false) {
        self.storageOffset = storageOffset
        self.isTransient = isTransient
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        slotKind = SlotKind(access.valueType)
        self.isDerived = isDerived
        self.name = name
        self.index = index
        self.attributeType = attributeType
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.access = access
    }

    public var description: String {
        "\(name): \(attributeType)\(isOptional ? "?" : "")\(isTransient ? " (transient)" : "")"
    }

    /// The current value in `object`, in store form; `nil` if it was never set.
    func storeValue(of object: ManagedObject) throws -> StoreValue? {
        let storage = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: storageOffset)
        if let value = slotKind.load(at: storage) { return value }
        return try access.storeValue(of: object)
    }

    /// Replaces the value in `object`, bypassing change tracking.
    func setStoreValue(_ value: StoreValue, of object: ManagedObject) throws {
        let storage = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: storageOffset)
        if try slotKind.store(value, at: storage) { return }
        try access.setStoreValue(value, of: object)
    }
}

/// Reads and writes one attribute inside objects, in store form.
protocol AttributeAccess: Sendable {
    /// The Swift type of the attribute.
    var valueType: Any.Type { get }
    /// The current value in store form, or `nil` if it was never set.
    func storeValue(of object: ManagedObject) throws -> StoreValue?
    /// Replaces the value, bypassing change tracking.
    func setStoreValue(_ value: StoreValue, of object: ManagedObject) throws
    /// Removes the value (an attribute declared without an initial value
    /// that was never set), bypassing change tracking.
    func clearValue(of object: ManagedObject)
    /// The Swift value for a store value.
    func swiftValue(_ value: StoreValue) throws -> Any
    /// The current Swift value, or `nil` if it was never set.
    func currentSwiftValue(of object: ManagedObject) -> Any?
    /// The store form of a Swift value of the attribute's type (`nil` stands
    /// for `nil`); `nil` if `value` has another type.
    func storeValue(forSwiftValue value: Any?) throws -> StoreValue?
    /// Replaces the value with a Swift value of the attribute's type, bypassing
    /// change tracking; `false` if `value` has another type.
    func setSwiftValue(_ value: Any?, of object: ManagedObject) -> Bool
}

/// A property wrapper that keeps its value inline in its object
/// (``Attribute`` and ``Derived``).
protocol InlineValueWrapper {
    associatedtype Value
    var storage: Value? { get set }
}

extension Attribute: InlineValueWrapper {}
extension Derived: InlineValueWrapper {}

/// The ``AttributeAccess`` of an inline wrapper (`Attribute<Value>` or
/// `Derived<Value>`) at a byte offset in its object.
struct AttributeSlot<Wrapper: InlineValueWrapper>: AttributeAccess {
    typealias Value = Wrapper.Value
    let offset: Int
    let codec: ValueCodec<Value>

    var valueType: Any.Type { Value.self }

    @inline(__always)
    private func pointer(_ object: ManagedObject) -> UnsafeMutablePointer<Wrapper> {
        UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
            .advanced(by: offset)
            .assumingMemoryBound(to: Wrapper.self)
    }

    func storeValue(of object: ManagedObject) throws -> StoreValue? {
        guard let value = pointer(object).pointee.storage else { return nil }
        return try codec.encode(value)
    }

    func setStoreValue(_ value: StoreValue, of object: ManagedObject) throws {
        let decoded = try codec.decode(value)
        pointer(object).pointee.storage = decoded
    }

    /// Replaces the value, bypassing change tracking.
    func setValue(_ value: Value, of object: ManagedObject) {
        pointer(object).pointee.storage = value
    }

    func swiftValue(_ value: StoreValue) throws -> Any {
        try codec.decode(value)
    }

    func clearValue(of object: ManagedObject) {
        pointer(object).pointee.storage = nil
    }

    func currentSwiftValue(of object: ManagedObject) -> Any? {
        pointer(object).pointee.storage.map { $0 as Any }
    }

    func storeValue(forSwiftValue value: Any?) throws -> StoreValue? {
        if let typed = value as? Value { return try codec.encode(typed) }
        if value == nil || value is NSNull { return codec.isOptional ? .null : nil }
        return nil
    }

    func setSwiftValue(_ value: Any?, of object: ManagedObject) -> Bool {
        if let typed = value as? Value {
            pointer(object).pointee.storage = typed
            return true
        }
        if value == nil {
            if codec.isOptional, let decoded = try? codec.decode(.null) {
                pointer(object).pointee.storage = decoded
            } else {
                // As in Core Data, a required attribute may be cleared; the
                // next save reports it missing.
                pointer(object).pointee.storage = nil
            }
            return true
        }
        // Core Data's key-value coding takes any number (an NSNumber) for a
        // numeric attribute; convert it when the attribute can hold it exactly.
        for candidate in Self.numberCandidates(value) {
            if let decoded = try? codec.decode(candidate) {
                pointer(object).pointee.storage = decoded
                return true
            }
        }
        return false
    }

    /// A number's store forms, integer first when it is integral.
    private static func numberCandidates(_ value: Any?) -> [StoreValue] {
        let double: Double
        switch value {
        case let integer as any BinaryInteger:
            guard let exact = Int64(exactly: integer) else { return [] }
            return [.integer(exact), .double(Double(exact))]
        case let floating as any BinaryFloatingPoint:
            double = Double(floating)
        case let number as NSNumber:
            double = number.doubleValue
            if let exact = Int64(exactly: double), exact == number.int64Value { return [.integer(exact), .double(double)] }
        default:
            return []
        }
        return (Int64(exactly: double).map { [StoreValue.integer($0)] } ?? []) + [.double(double)]
    }
}

/// Implemented by ``Attribute`` so the model can describe its fields.
protocol AttributeWrapper {
    static func describe(name: String, entity: String, index: Int, offset: Int, prototype: ManagedObject,
                         options: [AttributeOption]) throws(ModelError) -> AttributeDescription
    /// Whether the wrapper at `offset` in `object` holds a value.
    static func hasValue(in object: ManagedObject, offset: Int) -> Bool
}

extension Attribute: AttributeWrapper {
    static func hasValue(in object: ManagedObject, offset: Int) -> Bool {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).advanced(by: offset)
            .assumingMemoryBound(to: Attribute<Value>.self).pointee.storage != nil
    }

    static func describe(name: String, entity: String, index: Int, offset: Int, prototype: ManagedObject,
                         options: [AttributeOption]) throws(ModelError) -> AttributeDescription {
        guard let codec = ValueCodec<Value>.make() else {
            throw .unsupportedAttributeType(entity: entity, property: name, type: String(reflecting: Value.self))
        }
        let slot = AttributeSlot<Attribute<Value>>(offset: offset, codec: codec)
        let defaultValue: StoreValue?
        do {
            defaultValue = try slot.storeValue(of: prototype)
        } catch {
            throw .invalidDefaultValue(entity: entity, property: name, reason: "\(error)")
        }
        if defaultValue == nil, let placeholder = PlaceholderValue.make(Value.self) {
            // Required: the prototype needs a value to read (see PlaceholderValue).
            slot.setValue(placeholder, of: prototype)
        }
        return AttributeDescription(
            name: name, index: index, attributeType: codec.attributeType,
            isOptional: codec.isOptional, defaultValue: defaultValue, access: slot,
            storageOffset: offset + MemoryLayout<Attribute<Value>>.offset(of: \.storage)!, isTransient: options.contains(.transient),
            preservesValueInHistoryOnDeletion: options.contains(.preservesValueInHistoryOnDeletion)
        )
    }
}
