/// The kind of value an attribute stores, derived from the Swift type of an
/// `@Attribute` property when the model is built.
public enum AttributeType: Sendable, Hashable, CustomStringConvertible {
    /// `Bool` (Core Data's `.boolean`).
    case boolean
    /// `Int16`.
    case integer16
    /// `Int32`.
    case integer32
    /// `Int64` and `Int`.
    case integer64
    /// `Double`.
    case double
    /// `Float`.
    case float
    /// `String`.
    case string
    /// `Date`.
    case date
    /// `Data`.
    case binaryData
    /// `UUID`.
    case uuid
    /// `URL` (Core Data's `.uri`).
    case uri
    /// `Decimal`.
    case decimal
    /// A `Codable` value stored as JSON data.
    case codable

    public var description: String {
        switch self {
        case .boolean: "boolean"
        case .integer16: "integer16"
        case .integer32: "integer32"
        case .integer64: "integer64"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .date: "date"
        case .binaryData: "binaryData"
        case .uuid: "uuid"
        case .uri: "uri"
        case .decimal: "decimal"
        case .codable: "codable"
        }
    }
}
