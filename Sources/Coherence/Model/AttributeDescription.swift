import Foundation

/// One attribute of an entity, discovered from an `@Attribute` property.
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
    /// Whether the value is derived (`@Derived`) rather than set.
    public let isDerived: Bool
    /// Whether the attribute is transient (``AttributeOption/transient``):
    /// tracked by contexts, kept by no store.
    public let isTransient: Bool
    /// Whether a deletion's persistent history keeps the value
    /// (``AttributeOption/preservesValueInHistoryOnDeletion``), as Core Data's
    /// `NSAttributeDescription.preservesValueInHistoryOnDeletion`.
    public let preservesValueInHistoryOnDeletion: Bool
    /// The user info a model file gives the attribute, as Core Data's
    /// `NSPropertyDescription.userInfo` (empty for a Swift declaration).
    public let userInfo: [String: String]
    /// Whether a model file declares the attribute Transformable: its
    /// `Data` is a keyed archive of the object `@Managed` reads and writes.
    let isTransformable: Bool
    /// The position of this property in the entity's snapshots.
    let index: Int
    /// The declaration's conversions (see ``AttributeCoding``).
    let access: any AttributeCoding
    /// For an initial value computed for each new object (`UUID()`), how
    /// to compute it; `nil` when every object starts with ``defaultValue``.
    let makeInitialValue: (@Sendable () throws -> StoreValue)?
    /// How the per-row paths treat the value (see ``SlotKind``).
    let slotKind: SlotKind
    /// The Swift type of the property.
    var valueType: Any.Type { access.valueType }

    init(name: String, index: Int, attributeType: AttributeType, isOptional: Bool, defaultValue: StoreValue?,
         access: any AttributeCoding, makeInitialValue: (@Sendable () throws -> StoreValue)? = nil,
         isDerived: Bool = false, isTransient: Bool = false, preservesValueInHistoryOnDeletion: Bool = false,
         userInfo: [String: String] = [:], isTransformable: Bool = false) {
        self.isTransformable = isTransformable
        self.userInfo = userInfo
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
        self.makeInitialValue = makeInitialValue
    }

    public var description: String {
        "\(name): \(attributeType)\(isOptional ? "?" : "")\(isTransient ? " (transient)" : "")"
    }

    // MARK: The value in an object

    /// The current value in `object`, in store form; `nil` when it has none.
    func storeValue(of object: ManagedObject) -> StoreValue? {
        object._currentValue(at: index)
    }

    /// Sets the value in `object` from its store form, without change
    /// tracking.
    /// - Throws: ``AttributeDecodingError`` when `value` is not one the
    ///   attribute's type can hold.
    func setStoreValue(_ value: StoreValue, of object: ManagedObject) throws {
        if slotKind.native == nil { _ = try access.swiftValue(value) }
        object._setCurrentValue(value, at: index)
    }

    /// Leaves `object` without a value for the attribute.
    func clearValue(of object: ManagedObject) {
        object._setCurrentValue(nil, at: index)
    }

    /// The current value in `object` as Swift code sees it, boxed; `nil`
    /// when it has none.
    func currentSwiftValue(of object: ManagedObject) -> Any? {
        object._currentValue(at: index).flatMap { try? access.swiftValue($0) }
    }

    /// Sets the value in `object` from a Swift value, without change
    /// tracking; `false`, changing nothing, for a value of another type.
    /// `nil` (or `NSNull`) clears a required attribute, as Core Data allows
    /// (the next save reports it missing).
    func setSwiftValue(_ value: Any?, of object: ManagedObject) -> Bool {
        if let stored = try? access.storeValue(forSwiftValue: value) {
            object._setCurrentValue(stored, at: index)
            return true
        }
        if value == nil || value is NSNull {
            object._setCurrentValue(nil, at: index)
            return true
        }
        // Core Data's key-value coding takes any number (an NSNumber) for a
        // numeric attribute; convert it when the attribute can hold it exactly.
        // Stored in the attribute's own form (a `Double` as `.double`), so
        // that it compares equal to the same value set through the property.
        for candidate in Self.numberCandidates(value) {
            guard let converted = try? access.swiftValue(candidate),
                  let stored = try? access.storeValue(forSwiftValue: converted) else { continue }
            object._setCurrentValue(stored, at: index)
            return true
        }
        return false
    }

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

/// An attribute's conversions between Swift values and store values, as its
/// declaration makes them.
protocol AttributeCoding: Sendable {
    /// The Swift type of the property.
    var valueType: Any.Type { get }
    /// The Swift value of a store value, boxed.
    func swiftValue(_ value: StoreValue) throws -> Any
    /// The store form of a Swift value of the property's type (or `nil` or
    /// `NSNull` for an optional attribute); `nil` for any other value.
    func storeValue(forSwiftValue value: Any?) throws -> StoreValue?
}

extension AttributeDeclaration: AttributeCoding {
    var valueType: Any.Type { Value.self }

    func swiftValue(_ value: StoreValue) throws -> Any {
        guard let codec else { throw AttributeDecodingError(expectedType: "\(Value.self)", found: value) }
        return try codec.decode(value)
    }

    func storeValue(forSwiftValue value: Any?) throws -> StoreValue? {
        guard let codec else { return nil }
        if let typed = value as? Value { return try codec.encode(typed) }
        if value == nil || value is NSNull { return codec.isOptional ? .null : nil }
        return nil
    }
}
