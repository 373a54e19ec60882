import Foundation
import Synchronization

/// The identity of one object, valid across contexts and queues.
///
/// An ID is temporary until its object is first saved to a store (or until
/// ``ManagedObjectContext/obtainPermanentIDs(for:)``), permanent after. A
/// temporary ID and the permanent ID that replaces it are different IDs, as in
/// Core Data: use the object's ``ManagedObject/objectID`` after the save.
///
/// IDs are `Sendable` and `Hashable`: hand them to other queues and resolve
/// them there with ``ManagedObjectContext/object(with:)`` or
/// ``ManagedObjectContext/existingObject(with:)``. A permanent ID also has a
/// URI form that survives the process (``uriRepresentation()``).
public struct ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The class of the object.
    let objectClass: ManagedObject.Type
    /// The row key in the store; for temporary IDs a process-unique number.
    /// (`package`: the PostgreSQL store binds it, from its own module.)
    package let key: Int64
    /// The number of the store that holds the object (see ``StoreNumbers``),
    /// or 0 while the ID is temporary.
    let storeNumber: UInt32

    init(objectClass: ManagedObject.Type, storeNumber: UInt32, key: Int64) {
        self.objectClass = objectClass
        self.storeNumber = storeNumber
        self.key = key
    }

    init(objectClass: ManagedObject.Type, storeIdentifier: String?, key: Int64) {
        self.init(objectClass: objectClass, storeNumber: storeIdentifier.map(StoreNumbers.number(for:)) ?? 0, key: key)
    }

    /// A permanent ID, for store implementations: the object of `entity` with
    /// primary key `primaryKey` in the store `storeIdentifier`.
    public init(entity: EntityDescription, storeIdentifier: String, primaryKey: Int64) {
        self.init(objectClass: entity.managedObjectClass, storeIdentifier: storeIdentifier, key: primaryKey)
    }

    /// The identifier of the store that holds the object, or `nil` while the
    /// ID is temporary.
    public var storeIdentifier: String? {
        storeNumber == 0 ? nil : StoreNumbers.identifier(for: storeNumber)
    }

    /// A new temporary ID for an object of `objectClass`.
    static func temporary(for objectClass: ManagedObject.Type) -> ManagedObjectID {
        ManagedObjectID(objectClass: objectClass, storeNumber: 0, key: temporaryKeys.add(1, ordering: .relaxed).newValue)
    }

    /// Whether the object has not been saved to a store yet.
    public var isTemporaryID: Bool { storeNumber == 0 }

    /// The object's primary key in its store, or `nil` for a temporary ID.
    public var primaryKey: Int64? { isTemporaryID ? nil : key }

    /// The name of the object's entity.
    public var entityName: String { objectClass.entityName }

    /// The URI form: `x-coherence://<store identifier>/<Entity>/p<key>` for a
    /// permanent ID, `x-coherence:///<Entity>/t<number>` for a temporary one.
    /// A permanent ID's URI resolves again with
    /// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
    public func uriRepresentation() -> URL {
        let text = if let storeIdentifier {
            "\(Self.uriScheme)://\(storeIdentifier)/\(entityName)/p\(key)"
        } else {
            "\(Self.uriScheme):///\(entityName)/t\(key)"
        }
        return URL(string: text)!
    }

    static let uriScheme = "x-coherence"

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        lhs.key == rhs.key && lhs.objectClass == rhs.objectClass && lhs.storeNumber == rhs.storeNumber
    }

    /// One word for the hasher: the key spread by a multiplication, mixed
    /// with the class's address (every row of a fetch hashes its ID a few
    /// times; one `combine` instead of two is a measurable share of that).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt(bitPattern: ObjectIdentifier(objectClass))))
    }

    /// The hash `Dictionary` and `Set` use: the key, class and store mixed
    /// without `Hasher` (see `mixedHash(_:seed:)`), several times cheaper for
    /// the sets and maps of IDs that every save, fetch and merge builds.
    public func _rawHashValue(seed: Int) -> Int {
        mixedHash(UInt64(bitPattern: key) ^ UInt64(UInt(bitPattern: ObjectIdentifier(objectClass))) &* 0x9E37_79B9_7F4A_7C15
                  ^ UInt64(storeNumber) << 40, seed: seed)
    }

    public var description: String {
        uriRepresentation().absoluteString
    }
}

/// Source of temporary keys: unique within the process, never reused.
private let temporaryKeys = Atomic<Int64>(0)


extension ManagedObjectID: Codable {
    /// The `userInfo` key under which a decoder must find the
    /// ``ManagedObjectModel`` to decode object IDs with.
    public static let modelUserInfoKey = CodingUserInfoKey(rawValue: "Coherence.ManagedObjectModel")!

    /// Encodes the ID as its URI; a temporary ID only means something in the
    /// process that created it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uriRepresentation())
    }

    /// Decodes an ID from its URI; the decoder's `userInfo` must hold the
    /// model under ``modelUserInfoKey``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let url = try container.decode(URL.self)
        guard let model = decoder.userInfo[Self.modelUserInfoKey] as? ManagedObjectModel else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "decoding a ManagedObjectID needs the model in userInfo[ManagedObjectID.modelUserInfoKey]")
        }
        let parts = url.path.split(separator: "/")
        guard url.scheme == Self.uriScheme, parts.count == 2, let entity = model.entitiesByName[String(parts[0])],
              let kind = parts[1].first, let key = Int64(parts[1].dropFirst()), kind == "p" || kind == "t" else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(url) is not a Coherence object ID URI")
        }
        let store = url.host.flatMap { $0.isEmpty ? nil : $0 }
        self.init(objectClass: entity.managedObjectClass, storeIdentifier: kind == "p" ? store : nil, key: key)
    }
}
