import Foundation

/// Where committed objects live. A coordinator holds one or more stores and
/// serializes their saves; contexts never talk to a store directly.
///
/// A store keeps rows as ``Snapshot``s keyed by permanent ``ManagedObjectID``s
/// it issues itself. Every method may be called from any thread.
public protocol PersistentStore: AnyObject, Sendable {
    /// A unique identifier, part of the permanent IDs and their URIs.
    var identifier: String { get }
    /// The kind of store, for messages ("InMemory", "SQLite").
    var type: String { get }

    /// The committed snapshot of one object, or `nil` if the store has no such object.
    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot?
    /// The committed snapshots of every object of `entity` itself (not of its
    /// sub-entities, which the caller asks for one by one).
    func snapshots(of entity: EntityDescription) throws -> [Snapshot]
    /// The committed destinations of a to-many relationship, for a snapshot
    /// that holds ``StoreValue/toManyFault``: in order for an ordered
    /// relationship (``RelationshipDescription/isOrdered``), in any order
    /// otherwise.
    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID]
    /// Reserves permanent IDs for objects that are not saved yet, in order.
    func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID]
    /// Applies one save atomically: all of it or, when it throws, none of it.
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult
    /// The committed snapshots that match `request`, in its order and window;
    /// `nil` if the store cannot evaluate requests (the context then does).
    /// - Throws: ``FetchError/unsupportedPredicate(entity:construct:)`` for a
    ///   predicate it cannot translate.
    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]?
    /// The IDs of the committed objects that match `request`, in its order
    /// and window, without their values; `nil` if the store cannot evaluate
    /// requests. For batched fetches (``FetchRequest/fetchBatchSize``).
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]?
    /// The number of committed objects that match `request`, or `nil` if the
    /// store cannot evaluate requests.
    func count(_ request: StoreFetchRequest) throws -> Int?
    /// The snapshots of several objects (those that exist), for prefetching.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot]
    /// The destinations of a to-many relationship of several objects, as
    /// snapshots by owner, for prefetching.
    func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]]
    /// Runs a batch request in one transaction, or returns `nil` if the store
    /// cannot (the context then runs it through a scratch context).
    func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult?
}

/// What a store's batch request changed.
public struct StoreBatchResult: Sendable {
    /// The objects the request itself inserted, updated or deleted.
    public var affected: [ManagedObjectID]
    /// Every change, including rows changed by delete rules.
    public var changes: ObjectIDChanges

    /// A result with the request's own objects and every change.
    public init(affected: [ManagedObjectID], changes: ObjectIDChanges) {
        self.affected = affected
        self.changes = changes
    }
}

extension PersistentStore {
    /// The snapshots of several objects (those that exist), one by one; a
    /// store that can should read them with one query.
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        try objectIDs.compactMap { try snapshot(for: $0) }
    }

    /// The destinations of a to-many relationship of several objects, as
    /// snapshots by owner, one owner at a time; a store that can should read
    /// them with one query.
    public func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]] {
        var result: [ManagedObjectID: [Snapshot]] = [:]
        for id in objectIDs {
            result[id] = try snapshots(for: relatedObjectIDs(of: id, relationship: relationship))
        }
        return result
    }

    /// A store without native batch requests: the context runs them.
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult? { nil }

    /// A store that cannot evaluate requests: the context evaluates them.
    public func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? { nil }
    /// A store that cannot evaluate requests: the context evaluates them.
    public func count(_ request: StoreFetchRequest) throws -> Int? { nil }
    /// The IDs of what ``fetch(_:)`` returns; a store that can should read
    /// only the IDs (this default reads whole rows and keeps only their IDs,
    /// so each batch of a batched fetch reads its rows again).
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? {
        try fetch(request)?.map(\.objectID)
    }
}

/// A fetch as a store sees it: one entity, an optional predicate, an order
/// and a window, all over committed values.
public struct StoreFetchRequest: Sendable {
    /// The entity fetched.
    public var entity: EntityDescription
    /// The predicate's expression, or `nil` for every object of the entity.
    public var predicate: (any StandardPredicateExpression<Bool>)?
    /// The variable the predicate's expression uses for the object.
    public var variable: PredicateExpressions.VariableID?
    /// The order; by primary key after these.
    public var sortDescriptors: [StoreSortDescriptor] = []
    /// At most this many snapshots; 0 for no limit.
    public var fetchLimit: Int = 0
    /// Skip this many matching snapshots first.
    public var fetchOffset: Int = 0
    /// Whether rows of the entity's sub-entities match too.
    public var includesSubentities: Bool = true
}

/// One sort key of a ``StoreFetchRequest``: an attribute of the entity.
public struct StoreSortDescriptor: Sendable, Hashable {
    /// The attribute's position in the entity's properties.
    public var propertyIndex: Int
    /// Whether smaller values come first.
    public var ascending: Bool
    /// How a string attribute's values compare (ignored for other types).
    public var strings: StoreStringOrder = .comparable
}

/// The changes of one context save, as the store sees them. Values may refer
/// to the temporary IDs of objects inserted by the same save.
public struct StoreSaveRequest: Sendable {
    /// An object to insert.
    public struct Insert: Sendable {
        /// Temporary, or permanent if reserved with `permanentIDs(for:)`.
        public let objectID: ManagedObjectID
        /// The object's entity.
        public let entity: EntityDescription
        /// Every property value, in the entity's property order.
        public let values: [StoreValue]
    }

    /// An object whose values changed.
    public struct Update: Sendable {
        /// The object (permanent ID).
        public let objectID: ManagedObjectID
        /// The object's entity.
        public let entity: EntityDescription
        /// Every property value, in the entity's property order.
        public let values: [StoreValue]
        /// The version the context read; the store has moved on if it differs.
        public let baseVersion: Int64
        /// The names of the properties whose values changed: for persistent
        /// history (``PersistentHistoryChange/updatedProperties``), for a
        /// nested context's save, whose parent applies only these, and for
        /// an entity with an ordered relationship, whose positions the SQL
        /// stores write only when it changed. Empty when none of these
        /// needs it.
        public var updatedProperties: [String] = []
        /// For a nested context's save: the snapshot the child read (its
        /// parent starts from it when it holds no version of the object).
        var baseSnapshot: Snapshot?
    }

    /// An object to delete.
    public struct Delete: Sendable {
        /// The object (permanent ID).
        public let objectID: ManagedObjectID
        /// The object's entity.
        public let entity: EntityDescription
        /// The version the context read; a row saved since is a conflict.
        public let baseVersion: Int64
    }

    /// Objects to insert.
    public var inserted: [Insert] = []
    /// Objects to update.
    public var updated: [Update] = []
    /// Objects to delete.
    public var deleted: [Delete] = []
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, which
    /// persistent history records.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``, which persistent
    /// history records.
    public var contextName: String?

    /// Whether the save changes nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a store hands back from a save.
public struct StoreSaveResult: Sendable {
    /// The permanent ID of each inserted object that had a temporary one.
    public var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    /// The new snapshot of each inserted and updated object, by permanent ID.
    public var snapshots: [ManagedObjectID: Snapshot] = [:]
    /// The snapshots of the request's inserted objects in the request's
    /// order (those `snapshots` holds for them), when the store gives them:
    /// a context then takes each object's permanent ID and snapshot from
    /// here instead of looking both up (two random reads per object). Kept
    /// only from Coherence's own stores (``OrderedSaveResults``): the
    /// coordinator clears it for any other, such as a custom store that
    /// wraps one and may reorder the request or edit the result.
    var insertedSnapshots: [Snapshot]?
    /// The persistent history token of the transaction the save recorded,
    /// for a store that keeps history; `nil` otherwise. Contexts put it in
    /// their didSave (``NSPersistentHistoryTokenKey``, Core Data's
    /// `newChangeToken`, the messages' `historyToken`).
    public var historyToken: PersistentHistoryToken?

    /// A result with the given permanent IDs and snapshots.
    public init(permanentIDs: [ManagedObjectID: ManagedObjectID] = [:], snapshots: [ManagedObjectID: Snapshot] = [:]) {
        self.permanentIDs = permanentIDs
        self.snapshots = snapshots
    }
}

extension StoreValue {
    /// The value with every object ID replaced through `mapping`; throws for
    /// a temporary ID the save does not insert (it would be written as a
    /// meaningless key).
    func remappedForSave(_ mapping: [ManagedObjectID: ManagedObjectID]) throws -> StoreValue {
        let value = remapped(mapping)
        if let temporary = value.referencedIDs.first(where: \.isTemporaryID) {
            throw StoreError.objectNotFound(temporary)
        }
        return value
    }

    /// The value with every object ID replaced through `mapping`.
    func remapped(_ mapping: [ManagedObjectID: ManagedObjectID]) -> StoreValue {
        switch self {
        case .objectID(let id): .objectID(mapping[id] ?? id)
        case .objectIDs(let ids): .objectIDs(Set(ids.map { mapping[$0] ?? $0 }))
        case .orderedObjectIDs(let ids): .orderedObjectIDs(ids.map { mapping[$0] ?? $0 })
        default: self
        }
    }
}

/// A store whose save results keep ``StoreSaveResult/insertedSnapshots`` in
/// the order of the request it was given (Coherence's SQLite and PostgreSQL
/// stores).
package protocol OrderedSaveResults: PersistentStore {}
