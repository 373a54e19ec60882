import Foundation

// Substitution arguments turned into constants.
extension FormatParser {
    /// `value` with optionals unwrapped (`nil` for none).
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return nil }
            return unwrap(wrapped)
        }
        return value
    }

    static func typeName(_ value: Any?) -> String {
        guard let value = unwrap(value) else { return "nil" }
        return "\(type(of: value))"
    }

    /// The constant for an argument of the substitution `%letters`: `%d`,
    /// `%i`, `%ld` take an integer, `%f` and `%lf` a floating-point number,
    /// `%@` a number, Bool, String, Date, UUID, URL, Data, Decimal, a
    /// raw-representable enum, a managed object or object ID (compared with
    /// to-one relationships), or nil.
    static func convert(_ argument: Any?, for letters: String, position: Int) throws(PredicateFormatError) -> FormatValue {
        let value = unwrap(argument)
        switch letters {
        case "d", "i", "ld", "lld", "li":
            guard let integer = value as? any BinaryInteger, let exact = Int64(exactly: integer) else {
                throw .argumentType(position: position, expected: "an integer", found: typeName(argument))
            }
            return .integer(exact)
        case "f", "lf":
            if let double = value as? any BinaryFloatingPoint { return Double(double).isNaN ? .null : .double(Double(double)) }
            throw .argumentType(position: position, expected: "a floating-point number", found: typeName(argument))
        default:
            guard let converted = constant(value) else {
                throw .argumentType(position: position, expected: "a number, Bool, String, Date, UUID, URL, Data, Decimal, managed object, object ID or nil",
                                    found: typeName(argument))
            }
            return converted
        }
    }

    private static func constant(_ value: Any?) -> FormatValue? {
        guard let value else { return .null }
        switch value {
        case is NSNull: return .null
        case let bool as Bool: return .integer(bool ? 1 : 0)
        case let integer as any BinaryInteger: return Int64(exactly: integer).map { .integer($0) }
        case let double as any BinaryFloatingPoint: return Double(double).isNaN ? .null : .double(Double(double))
        case let string as String: return .string(string)
        case let string as Substring: return .string(String(string))
        case let date as Date: return FormatValue(.date(date))
        case let uuid as UUID: return FormatValue(.uuid(uuid))
        case let url as URL: return FormatValue(.url(url))
        case let data as Data: return .blob(data)
        case let decimal as Decimal: return FormatValue(.decimal(decimal))
        case let id as ManagedObjectID: return .objectID(id)
        case let object as ManagedObject: return .objectID(object.objectID)
        // History fetch requests: `changedEntity == %@`, `token > %@`.
        case let entity as EntityDescription: return .string(entity.name)
        case let token as PersistentHistoryToken: return .integer(token.transactionNumber)
        case let raw as any RawRepresentable: return constant(unwrap(raw.rawValue))
        default: return nil
        }
    }
}
