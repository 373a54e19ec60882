import Foundation

/// One property value as a store keeps it: the Sendable, type-erased form of an
/// attribute value or of a relationship's destination object IDs.
///
/// Snapshots, save requests and committed values are made of `StoreValue`s, so
/// they can cross queues. Attribute types map onto these cases as described by
/// ``AttributeType``; a to-one relationship is `.objectID` or `.null`, a to-many
/// relationship is `.objectIDs`, an ordered one `.orderedObjectIDs`.
public enum StoreValue: Sendable, Hashable {
    /// No value: `nil`, or a to-one relationship without a destination.
    case null
    /// A `Bool`.
    case bool(Bool)
    /// Any integer attribute, widened to `Int64`.
    case integer(Int64)
    /// A `Double` or `Float`.
    case double(Double)
    /// A `String`.
    case string(String)
    /// A `Date`.
    case date(Date)
    /// A `Data`, or a `Codable` value as JSON.
    case data(Data)
    /// A `UUID`.
    case uuid(UUID)
    /// A `URL`.
    case url(URL)
    /// A `Decimal`.
    case decimal(Decimal)
    /// The destination of a to-one relationship.
    case objectID(ManagedObjectID)
    /// The destinations of a to-many relationship.
    case objectIDs(Set<ManagedObjectID>)
    /// The destinations of an ordered to-many relationship, in order
    /// (Core Data's `NSOrderedSet`; no ID appears twice). A store's
    /// snapshots hold this, or ``toManyFault``, for an ordered
    /// relationship (``RelationshipDescription/isOrdered``).
    case orderedObjectIDs([ManagedObjectID])
    /// A to-many relationship whose destinations are not loaded yet; the
    /// context loads them with one query when the relationship is first used.
    case toManyFault

    /// A short name of the case, used in error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .url: "url"
        case .decimal: "decimal"
        case .objectID: "objectID"
        case .objectIDs: "objectIDs"
        case .orderedObjectIDs: "orderedObjectIDs"
        case .toManyFault: "toManyFault"
        }
    }

    /// The object IDs this value refers to (empty for attribute values).
    var referencedIDs: Set<ManagedObjectID> {
        switch self {
        case .objectID(let id): [id]
        case .objectIDs(let ids): ids
        case .orderedObjectIDs(let ids): Set(ids)
        default: []
        }
    }

    /// The members of a loaded to-many relationship, ordered or not; `nil`
    /// for any other value (a to-many fault included).
    var toManyMembers: Set<ManagedObjectID>? {
        switch self {
        case .objectIDs(let ids): ids
        case .orderedObjectIDs(let ids): Set(ids)
        default: nil
        }
    }

    /// The object IDs this value refers to, in order for an ordered to-many
    /// relationship (empty for attribute values).
    var referencedIDList: [ManagedObjectID] {
        switch self {
        case .objectID(let id): [id]
        case .objectIDs(let ids): Array(ids)
        case .orderedObjectIDs(let ids): ids
        default: []
        }
    }
}

extension StoreValue {
    /// Why a NaN is refused: SQLite turns a NaN into NULL (a required value
    /// would then fail every read, an optional one read back `nil`), and a
    /// NaN date or decimal cannot be read back at all. A save, a batch
    /// insert or a batch update with one throws
    /// ``ValidationError/invalidValue(entity:property:reason:)`` with this reason.
    static let notANumber = "NaN (not a number) cannot be stored: no store reads it back as it was"

    /// Whether this is a NaN number, date or decimal.
    var isNaN: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .date(let date): date.timeIntervalSinceReferenceDate.isNaN
        case .decimal(let decimal): decimal.isNaN
        default: false
        }
    }
}
