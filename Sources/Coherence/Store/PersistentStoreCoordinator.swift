import Foundation

/// Connects contexts to the stores of one model, and serializes saves.
///
/// All methods may be called from any thread. Contexts read committed
/// snapshots through the coordinator; a save goes to the store as one atomic
/// unit.
public final class PersistentStoreCoordinator: Sendable {
    /// The model of every store and context of this coordinator.
    public let managedObjectModel: ManagedObjectModel
    private let stores = Locked<[any PersistentStore]>([])
    /// Held for the length of a save, so saves apply one after another.
    private let saveLock = NSLock()
    /// Committed snapshots shared by every context of this coordinator.
    let rowCache = RowCache()
    /// Serializes the blocks of ``perform(_:)`` and ``performAndWait(_:)``.
    let blockLock = NSRecursiveLock()
    /// Where ``perform(_:)`` runs its blocks.
    let blockQueue = DispatchQueue(label: "Coherence.PersistentStoreCoordinator")
    /// Who hears of other writers' commits (see `PersistentStoreCoordinator+RemoteChanges.swift`).
    let remoteChanges = RemoteChangeRouter()

    /// Creates a coordinator with no store loaded.
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
    }

    /// The loaded stores, in the order they were added.
    public var persistentStores: [any PersistentStore] {
        stores.withLock { $0 }
    }

    /// Loads the store a description names: an SQLite file (an SQLite
    /// database in memory for the URL `/dev/null`, as Core Data's), or an
    /// in-memory store.
    /// - Throws: ``StoreError`` when the store cannot be opened:
    ///   ``StoreError/unsupportedStoreType(_:)`` for a type other than
    ///   ``SQLiteStoreType``, ``InMemoryStoreType`` and the types registered with
    ///   ``registerStoreType(_:factory:)``,
    ///   ``StoreError/missingStoreURL`` for an SQLite description without a URL.
    @discardableResult
    public func addPersistentStore(_ description: PersistentStoreDescription) throws -> any PersistentStore {
        let store: any PersistentStore
        let url = description.url
        switch PersistentStoreType(rawValue: description.type) {
        case .inMemory:
            store = InMemoryStore()
        case .sqlite:
            guard let url else { throw StoreError.missingStoreURL }
            if !description.allowsMigration, url.path != "/dev/null" {
                try SQLiteStore.checkNeedsNoMigration(url: url, model: managedObjectModel)
            }
            store = try SQLiteStore(url: url, model: managedObjectModel, persistentHistoryTracking: description.keepsPersistentHistory,
                                    readOnly: description.isReadOnly)
        case let type:
            guard let factory = Self.registeredStoreTypes.withLock({ $0[type] }) else {
                throw StoreError.unsupportedStoreType(type.rawValue)
            }
            store = try factory(description, managedObjectModel)
        }
        try addPersistentStore(store)
        do {
            try startRemoteChangeNotifications(for: store, description: description)
        } catch {
            try? remove(store)
            throw error
        }
        return store
    }

    /// Makes ``addPersistentStore(_:)-(PersistentStoreDescription)`` (and so
    /// ``PersistentContainer/loadPersistentStores()``) load
    /// descriptions of `type` with `factory`, as Core Data's
    /// `NSPersistentStoreCoordinator.registerStoreClass(_:type:)`
    /// (https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/AtomicStore_Concepts/Articles/asRegistration.html).
    /// Register a type before loading a store of it; registering a type again
    /// replaces its factory. The types Coherence opens itself (``PersistentStoreType/sqlite``,
    /// ``PersistentStoreType/inMemory``) cannot be replaced. May be called from any thread.
    /// - Parameter type: the type, as descriptions name it in ``PersistentStoreDescription/type``.
    /// - Parameter factory: opens the store a description names, with the
    ///   coordinator's model; what it throws, loading the store throws.
    public static func registerStoreType(
        _ type: PersistentStoreType,
        factory: @escaping @Sendable (PersistentStoreDescription, ManagedObjectModel) throws -> any PersistentStore
    ) {
        registeredStoreTypes.withLock { $0[type] = factory }
    }

    /// The factories of ``registerStoreType(_:factory:)``, by type.
    private static let registeredStoreTypes = Locked<[PersistentStoreType: @Sendable (PersistentStoreDescription, ManagedObjectModel) throws -> any PersistentStore]>([:])

    /// Loads the store of `type` at `storeURL` and returns it, as Core Data's
    /// `addPersistentStore(type:configuration:at:options:)`. An in-memory store
    /// ignores the URL (Core Data users pass `/dev/null`).
    /// - Parameter type: ``PersistentStoreType/sqlite`` or ``PersistentStoreType/inMemory``.
    /// - Parameter storeURL: the store's file.
    /// - Parameter options: the description's options (string keys with
    ///   `NSObject` values, such as ``NSPersistentHistoryTrackingKey``);
    ///   other options are ignored.
    /// - Throws: as ``addPersistentStore(_:)-(PersistentStoreDescription)``.
    @discardableResult
    public func addPersistentStore(type: PersistentStoreType, at storeURL: URL, options: [AnyHashable: Any]? = nil) throws -> any PersistentStore {
        let description = PersistentStoreDescription(url: storeURL)
        description.type = type.rawValue
        for case let (key as String, value) in options ?? [:] {
            // `[NSPersistentHistoryTrackingKey: true]`: Swift's numbers and
            // Booleans as NSNumber, which Foundation on Linux does not bridge.
            switch value {
            case let flag as Bool: description.setOption(NSNumber(value: flag), forKey: key)
            case let number as Int: description.setOption(NSNumber(value: number), forKey: key)
            case let object as NSObject: description.setOption(object, forKey: key)
            default: continue
            }
        }
        return try addPersistentStore(description)
    }

    /// Core Data's `addPersistentStore(ofType:configurationName:at:options:)`,
    /// as Core Data code calls it: `ofType` is ``SQLiteStoreType`` or
    /// ``InMemoryStoreType`` (or a registered type's name), the URL may be
    /// `nil` for an in-memory store.
    /// - Parameter storeType: ``SQLiteStoreType``, ``InMemoryStoreType`` or
    ///   a registered type's name.
    /// - Parameter configurationName: `nil` or `"Default"`: a Coherence model
    ///   has one configuration, with every entity.
    /// - Parameter storeURL: the store's file; `nil` for an in-memory store.
    /// - Parameter options: as ``addPersistentStore(type:at:options:)`` takes them.
    /// - Throws: ``StoreError/missingStoreURL`` for a file store without a
    ///   URL; ``StoreError/incompatibleModel(reason:)`` for another
    ///   configuration name; otherwise as ``addPersistentStore(type:at:options:)``.
    @discardableResult
    public func addPersistentStore(ofType storeType: String, configurationName: String?, at storeURL: URL?,
                                   options: [AnyHashable: Any]?) throws -> any PersistentStore {
        if let configurationName, configurationName != "Default" {
            throw StoreError.incompatibleModel(reason: "the model has no configuration named \(configurationName); a Coherence model has one configuration, Default, with every entity")
        }
        let type = PersistentStoreType(rawValue: storeType)
        guard let storeURL else {
            guard type == .inMemory else { throw StoreError.missingStoreURL }
            return try addPersistentStore(type: type, at: URL(filePath: "/dev/null"), options: options)
        }
        return try addPersistentStore(type: type, at: storeURL, options: options)
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
        // A store added again, or after a context started following remote
        // changes, is followed too.
        if let history = store as? any PersistentHistoryStore, history.tracksPersistentHistory,
           remoteChanges.hasObservers || remoteChanges.posts(for: store.identifier) {
            do {
                try watchRemoteChanges(of: history)
            } catch {
                _ = try? remove(store)
                throw error
            }
        }
    }

    /// Takes `store` out of the coordinator, as Core Data's `remove(_:)`:
    /// contexts no longer fetch from it or save to it, and faults of its
    /// objects can no longer fire. An SQLite store stays open until it is
    /// released; it can be added again.
    /// - Throws: ``StoreError/storeNotInCoordinator(_:)`` if `store` is not
    ///   one of ``persistentStores``.
    public func remove(_ store: any PersistentStore) throws {
        try saveLock.withLock {
            try stores.withLock { stores in
                guard let index = stores.firstIndex(where: { $0 === store }) else {
                    throw StoreError.storeNotInCoordinator(store.identifier)
                }
                stores.remove(at: index)
            }
            rowCache.forget(storeIdentifier: store.identifier)
        }
        (store as? any PersistentHistoryStore)?.stopWatchingRemoteChanges()
    }

    /// Deletes the store of `type` at `url`, as Core Data's
    /// `destroyPersistentStore(at:type:options:)`, which "deletes (or
    /// truncates)" it: for SQLite, the file and its `-wal` companion are
    /// truncated to zero bytes and left in place, as Core Data leaves them
    /// (code that removes them afterwards still works; a store added there
    /// again starts empty); the `-shm` file, which open connections map into
    /// memory, is removed. A store of this coordinator at
    /// that URL is removed and closed first; other coordinators must not have
    /// it open. Nothing happens for a missing file or an in-memory store.
    /// - Parameter url: the store's file.
    /// - Parameter type: the store's type.
    /// - Parameter options: accepted for code written for Core Data; unused.
    /// - Throws: ``StoreError/notASQLiteDatabase(path:)`` or
    ///   ``StoreError/notACoherenceStore(path:)`` for a file that is not a
    ///   Coherence store, which is left untouched;
    ///   ``StoreError/unsupportedStoreType(_:)``; ``StoreError/cannotDestroy(path:reason:)``.
    public func destroyPersistentStore(at url: URL, type: PersistentStoreType, options: [AnyHashable: Any]? = nil) throws {
        switch type {
        case .inMemory:
            return
        case .sqlite:
            guard url.path != "/dev/null" else { return }
            let path = url.standardizedFileURL.path
            if let loaded = persistentStores.lazy.compactMap({ $0 as? SQLiteStore }).first(where: { $0.url.standardizedFileURL.path == path }) {
                try remove(loaded)
                try loaded.close()
            }
            try SQLiteStore.destroyFiles(at: url)
        default:
            throw StoreError.unsupportedStoreType(type.rawValue)
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

    /// The committed snapshots from the stores themselves, bypassing the row
    /// cache (which they then update): for `refresh` and merges. Each store
    /// reads its objects with one `snapshots(for:)` (the SQLite store: one
    /// query per entity and 500 objects); if that fails, each object is read
    /// on its own, so that one unreadable object costs only itself. An
    /// object no longer in its store maps to `nil`; one that could not be
    /// read is missing, and its caller leaves it as it is.
    func latestSnapshots(for objectIDs: [ManagedObjectID]) -> [ManagedObjectID: Snapshot?] {
        var byStore: [UInt32: [ManagedObjectID]] = [:]
        for id in objectIDs where !id.isTemporaryID { byStore[id.storeNumber, default: []].append(id) }
        var result: [ManagedObjectID: Snapshot?] = [:]
        result.reserveCapacity(objectIDs.count)
        for ids in byStore.values {
            guard let store = try? store(for: ids[0]) else { continue }
            let generation = rowCache.beginRead()
            if ids.count > 1, let loaded = try? store.snapshots(for: ids) {
                for id in ids { result.updateValue(nil, forKey: id) }
                for snapshot in loaded { result.updateValue(snapshot, forKey: snapshot.objectID) }
                rowCache.insert(loaded, readAt: generation)
                continue
            }
            for id in ids {
                do {
                    let snapshot = try store.snapshot(for: id)
                    result.updateValue(snapshot, forKey: id)
                    if let snapshot { rowCache.insert([snapshot], readAt: generation) }
                } catch {
                    continue // unreadable now: missing, so the object is left as it is
                }
            }
        }
        return result
    }

    /// Snapshots of several objects, from the cache where possible, else with
    /// one query per store.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        var found: [Snapshot] = []
        var missing: [UInt32: [ManagedObjectID]] = [:]
        for id in objectIDs where !id.isTemporaryID {
            if let cached = rowCache[id] { found.append(cached) } else { missing[id.storeNumber, default: []].append(id) }
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

    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
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

    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? {
        let stores = persistentStores
        guard stores.count == 1 else { return nil }
        return try stores[0].fetchObjectIDs(request)
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
    func execute(_ request: StoreBatchRequest, author: String? = nil, contextName: String? = nil) throws -> StoreBatchResult? {
        let stores = persistentStores
        guard stores.count == 1 else { return nil }
        return try saveLock.withLock {
            let executed = try (stores[0] as? any PersistentHistoryStore).map { try $0.execute(request, author: author, contextName: contextName) }
                ?? stores[0].execute(request)
            guard let result = executed else { return nil }
            rowCache.commit(changed: result.changes.updated.union(result.changes.deleted), saved: [])
            return result
        }
    }

    /// Saves `request` in the store. With `resolve`, a store that can
    /// (``ConflictResolvingStore``) hands it the save's conflicts inside its
    /// transaction and writes the request it returns; any other throws
    /// them as ``StoreConflictError``.
    func save(_ request: StoreSaveRequest,
              resolvingConflicts resolve: ((StoreConflictError) throws -> StoreSaveRequest)? = nil) throws -> StoreSaveResult {
        let stores = persistentStores
        guard let store = stores.first else { throw StoreError.noPersistentStore }
        guard stores.count == 1 else { throw StoreError.severalStores(stores.count) }
        return try saveLock.withLock {
            // The request written: the last one the resolution returned.
            var written = request
            var result: StoreSaveResult
            if let resolve, let store = store as? any ConflictResolvingStore {
                result = try store.save(request) { conflicts in
                    written = try resolve(conflicts)
                    return written
                }
            } else {
                result = try store.save(request)
            }
            rowCache.commit(changed: written.deleted.map(\.objectID), saved: result.snapshots.values)
            if !(store is any OrderedSaveResults) { result.insertedSnapshots = nil }
            return result
        }
    }
}
