import Foundation
import Synchronization

/// Connects contexts to the stores of one model, and serializes saves.
///
/// All methods may be called from any thread. Contexts read committed
/// snapshots through the coordinator; a save goes to the store as one atomic
/// unit.
public final class PersistentStoreCoordinator: Sendable {
    /// The model of every store and context of this coordinator.
    public let managedObjectModel: ManagedObjectModel
    private let stores = Mutex<[any PersistentStore]>([])
    /// Held for the length of a save, so saves apply one after another.
    private let saveLock = Mutex<Void>(())
    /// Committed snapshots shared by every context of this coordinator.
    let rowCache = RowCache()

    /// Creates a coordinator with no store loaded.
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
    }

    /// The loaded stores, in the order they were added.
    public var persistentStores: [any PersistentStore] {
        stores.withLock { $0 }
    }

    /// Loads the store a description names.
    /// - Throws: ``StoreError`` when the store cannot be opened.
    @discardableResult
    public func addPersistentStore(_ description: PersistentStoreDescription) throws -> any PersistentStore {
        let store: any PersistentStore
        switch description.kind {
        case .inMemory:
            store = InMemoryStore()
        case .sqlite(let url):
            store = try SQLiteStore(url: url, model: managedObjectModel)
        }
        try addPersistentStore(store)
        return store
    }

    /// Adds a store that is already open.
    /// - Throws: ``StoreError/duplicateStore(_:)`` if a store with the same identifier is loaded.
    public func addPersistentStore(_ store: any PersistentStore) throws {
        try stores.withLock { stores in
            guard !stores.contains(where: { $0.identifier == store.identifier }) else {
                throw StoreError.duplicateStore(store.identifier)
            }
            stores.append(store)
        }
    }

    /// The ID that a URI from ``ManagedObjectID/uriRepresentation()`` names,
    /// or `nil` if it names no loaded store, no entity of the model, or a
    /// temporary ID.
    public func managedObjectID(forURIRepresentation url: URL) -> ManagedObjectID? {
        guard url.scheme == ManagedObjectID.uriScheme, let host = url.host, !host.isEmpty else { return nil }
        let parts = url.path.split(separator: "/")
        guard parts.count == 2, let entity = managedObjectModel.entitiesByName[String(parts[0])],
              parts[1].first == "p", let key = Int64(parts[1].dropFirst()),
              persistentStores.contains(where: { $0.identifier == host }) else { return nil }
        return ManagedObjectID(entity: entity, storeIdentifier: host, primaryKey: key)
    }

    // MARK: Used by contexts

    /// The store that holds `objectID`, or the first store for a temporary ID.
    func store(for objectID: ManagedObjectID) throws -> any PersistentStore {
        let stores = persistentStores
        guard let first = stores.first else { throw StoreError.noPersistentStore }
        guard let identifier = objectID.storeIdentifier else { return first }
        guard let store = stores.first(where: { $0.identifier == identifier }) else {
            throw StoreError.objectNotFound(objectID)
        }
        return store
    }

    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        guard !objectID.isTemporaryID else { return nil }
        if let cached = rowCache[objectID] { return cached }
        let generation = rowCache.beginRead()
        guard let snapshot = try store(for: objectID).snapshot(for: objectID) else { return nil }
        rowCache.insert([snapshot], readAt: generation)
        return snapshot
    }

    /// The committed snapshot from the store itself, bypassing the row cache
    /// (which it then updates): for `refresh`.
    func latestSnapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        guard !objectID.isTemporaryID else { return nil }
        let generation = rowCache.beginRead()
        guard let snapshot = try store(for: objectID).snapshot(for: objectID) else { return nil }
        rowCache.insert([snapshot], readAt: generation)
        return snapshot
    }

    /// Snapshots of several objects, from the cache where possible, else with
    /// one query per store.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        var found: [Snapshot] = []
        var missing: [String: [ManagedObjectID]] = [:]
        for id in objectIDs where !id.isTemporaryID {
            if let cached = rowCache[id] { found.append(cached) } else { missing[id.storeIdentifier!, default: []].append(id) }
        }
        for ids in missing.values {
            let generation = rowCache.beginRead()
            let loaded = try store(for: ids[0]).snapshots(for: ids)
            rowCache.insert(loaded, readAt: generation)
            found += loaded
        }
        return found
    }

    func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]] {
        guard let first = objectIDs.first(where: { !$0.isTemporaryID }) else { return [:] }
        let generation = rowCache.beginRead()
        let related = try store(for: first).relatedSnapshots(of: objectIDs.filter { !$0.isTemporaryID }, relationship: relationship)
        for snapshots in related.values { rowCache.insert(snapshots, readAt: generation) }
        return related
    }

    func snapshots(of entity: EntityDescription) throws -> [Snapshot] {
        let generation = rowCache.beginRead()
        let snapshots = try persistentStores.flatMap { try $0.snapshots(of: entity) }
        rowCache.insert(snapshots, readAt: generation)
        return snapshots
    }

    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> Set<ManagedObjectID> {
        try store(for: objectID).relatedObjectIDs(of: objectID, relationship: relationship)
    }

    /// The store's answer to a fetch, or `nil` when the context must evaluate
    /// it (in-memory stores, several stores).
    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? {
        let stores = persistentStores
        guard stores.count == 1 else { return nil }
        let generation = rowCache.beginRead()
        guard let snapshots = try stores[0].fetch(request) else { return nil }
        rowCache.insert(snapshots, readAt: generation)
        return snapshots
    }

    func count(_ request: StoreFetchRequest) throws -> Int? {
        let stores = persistentStores
        guard stores.count == 1 else { return nil }
        return try stores[0].count(request)
    }

    func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        guard let store = persistentStores.first else { throw StoreError.noPersistentStore }
        return try store.permanentIDs(for: objectIDs, entities: entities)
    }

    /// Runs a batch request in the store, or returns `nil` if it cannot.
    func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult? {
        let stores = persistentStores
        guard stores.count == 1 else { return nil }
        return try saveLock.withLock { _ in
            guard let result = try stores[0].execute(request) else { return nil }
            rowCache.commit(changed: result.changes.updated.union(result.changes.deleted), saved: [])
            return result
        }
    }

    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        let stores = persistentStores
        guard let store = stores.first else { throw StoreError.noPersistentStore }
        guard stores.count == 1 else { throw StoreError.severalStores(stores.count) }
        return try saveLock.withLock { _ in
            let result = try store.save(request)
            rowCache.commit(changed: request.deleted.map(\.objectID), saved: result.snapshots.values)
            return result
        }
    }
}
