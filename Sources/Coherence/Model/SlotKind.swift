import Foundation

/// Whether an attribute's Swift type is one of the native
/// ``AttributeValue`` types (or an optional of one), whose store values the
/// per-row paths take as they are; other types (`RawRepresentable`,
/// `Codable`) are decoded once to check them.
///
/// **Complexity:** O(1).
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

    /// The Swift value of a store value of a native type (the wrapped
    /// value for an optional type), boxed, without the codec; `nil` for a
    /// type that is not native, `.null`, or a value of another kind.
    func box(_ value: StoreValue) -> Any? {
        switch (native, value) {
        case (.bool, .bool(let bool)): bool
        case (.int, .integer(let integer)): Int(exactly: integer)
        case (.int16, .integer(let integer)): Int16(exactly: integer)
        case (.int32, .integer(let integer)): Int32(exactly: integer)
        case (.int64, .integer(let integer)): integer
        case (.double, .double(let double)): double
        case (.float, .double(let double)): Float(double)
        case (.string, .string(let string)): string
        case (.date, .date(let date)): date
        case (.data, .data(let data)): data
        case (.uuid, .uuid(let uuid)): uuid
        case (.url, .url(let url)): url
        case (.decimal, .decimal(let decimal)): decimal
        default: nil
        }
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
}

/// One attribute as the per-row paths need it: plain values, so walking an
/// entity's attributes retains nothing.
struct AttributeSlotEntry: Sendable {
    let kind: SlotKind
    let attributeType: AttributeType
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
    /// Whether the attribute is `@Derived` (computed, never validated).
    let isDerived: Bool
    /// Whether a NULL in the attribute's column cannot be read: a required
    /// attribute other than a `Double` or `Float` (another program wrote it).
    let rejectsNull: Bool

    init(_ attribute: AttributeDescription) {
        isTransient = attribute.isTransient
        isDerived = attribute.isDerived
        kind = attribute.slotKind
        attributeType = attribute.attributeType
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
