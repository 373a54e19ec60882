import Foundation

// The identity map's objects: looking them up, registering faults, loading
// them, and letting them go.
extension ManagedObjectContext {
    // MARK: Registered objects

    /// The coordinator, which every operation beyond plain property access needs.
    var coordinator: PersistentStoreCoordinator {
        guard let coordinator = persistentStoreCoordinator else {
            fatalError("Coherence: \(self) has no persistent store coordinator")
        }
        return coordinator
    }

    /// The entity of `type` in this context's model; traps for a class that is
    /// not part of the model (a programming error).
    func entity(for type: ManagedObject.Type) -> EntityDescription {
        guard let persistentStoreCoordinator else {
            fatalError("Coherence: cannot use the entity \(type.entityName) in \(self): the context has no persistent store coordinator")
        }
        guard let entity = persistentStoreCoordinator.managedObjectModel.entity(for: type) else {
            fatalError("Coherence: \(type.entityName) is not an entity of the model of \(self)")
        }
        return entity
    }

    /// The entity of an object to insert: its class's or, for a plain
    /// ``ManagedObject`` made with ``ManagedObject/init(entity:insertInto:)``,
    /// the entity it was made for, which must be of this context's model.
    func entity(toInsert object: ManagedObject) -> EntityDescription {
        guard type(of: object) == ManagedObject.self, let entity = object._entity else { return entity(for: type(of: object)) }
        guard persistentStoreCoordinator?.managedObjectModel.entitiesByName[entity.name] === entity else {
            fatalError("Coherence: cannot insert an object of the entity \(entity.name) into \(self): the entity is not of the context's model")
        }
        return entity
    }

    /// Every object the context holds.
    ///
    /// Faults that nothing outside the context holds are let go first, so
    /// they are not counted (unless ``retainsRegisteredObjects``). Loaded
    /// objects stay until they turn back into faults or leave the context:
    /// Core Data lets go of an object nobody holds at the end of the
    /// autorelease pool's turn, which Swift has no equivalent of.
    ///
    /// **Complexity:** O(registered objects).
    public var registeredObjects: Set<ManagedObject> {
        _assertOnQueue()
        evictUnreferencedFaults()
        return Set(registered.objects)
    }

    /// The object registered under `objectID`, or `nil`; never fetches.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        _assertOnQueue()
        return registered[objectID]
    }

    /// The object for `objectID`: the registered one, or a new fault that
    /// loads its values when first used. Does not check that the object
    /// exists; use ``existingObject(with:)`` for that.
    public func object(with objectID: ManagedObjectID) -> ManagedObject {
        _assertOnQueue()
        if let object = registered[objectID] { return object }
        return registerFault(objectID, snapshot: nil)
    }

    /// The object for `objectID`, loaded.
    /// - Throws: ``ContextError/objectNotFound(_:)`` if no such object exists
    ///   in this context or the store, ``ContextError/objectDeleted(_:)`` if it
    ///   is marked for deletion here, ``ContextError/unreadableObject(_:reason:)``
    ///   if the store holds its row but cannot read it,
    ///   ``ContextError/entityNotInModel(_:)``, ``ContextError/noCoordinator``.
    public func existingObject(with objectID: ManagedObjectID) throws(ContextError) -> ManagedObject {
        _assertOnQueue()
        if let object = registered[objectID] {
            guard !object.isDeleted else { throw .objectDeleted(objectID) }
            if object.isFault {
                if object._snapshot == nil { object._snapshot = try committedSnapshot(of: objectID) }
                _fulfillFault(object)
            }
            return object
        }
        guard let coordinator = persistentStoreCoordinator else { throw .noCoordinator }
        guard coordinator.managedObjectModel.entity(for: objectID.objectClass) != nil else {
            throw .entityNotInModel(objectID.entityName)
        }
        let object = registerFault(objectID, snapshot: try committedSnapshot(of: objectID))
        _fulfillFault(object)
        return object
    }

    /// The committed snapshot of `objectID`: `.objectNotFound` when no store
    /// holds it, `.unreadableObject` when its store could not read it.
    private func committedSnapshot(of objectID: ManagedObjectID) throws(ContextError) -> Snapshot {
        let snapshot: Snapshot?
        do {
            snapshot = try source.snapshot(for: objectID)
        } catch StoreError.objectNotFound, StoreError.noPersistentStore {
            throw .objectNotFound(objectID) // its store is not (or no longer) there
        } catch {
            throw .unreadableObject(objectID, reason: "\(error)")
        }
        guard let snapshot else { throw .objectNotFound(objectID) }
        return snapshot
    }

    /// Whether the fault `object` has a row in the store, which it keeps as
    /// its snapshot (so that firing it reads nothing again). A row that
    /// cannot be read stops the program, as firing the fault would.
    func faultIsInStore(_ object: ManagedObject) -> Bool {
        guard object._snapshot == nil else { return true }
        do {
            object._snapshot = try committedSnapshot(of: object.objectID)
            return true
        } catch .objectNotFound {
            return false
        } catch {
            fatalError("Coherence could not read \(object.entityNameForMessages) \(object.objectID): \(error)")
        }
    }

    /// Registers a fault for `objectID`, optionally with its snapshot.
    func registerFault(_ objectID: ManagedObjectID, snapshot: Snapshot?, entity known: EntityDescription? = nil) -> ManagedObject {
        let object = registerNew(objectID, snapshot: snapshot, entity: known, fault: true)
        return object
    }

    /// Registers an object for `snapshot` that the context does not hold
    /// yet, loaded from it at once, and calls `awakeFromFetch()`: what
    /// ``registerFault(_:snapshot:entity:)`` then ``_fulfillFault(_:)`` do,
    /// in one pass over the new object.
    func registerLoaded(_ snapshot: Snapshot, entity known: EntityDescription?) -> ManagedObject {
        let object = registerNew(snapshot.objectID, snapshot: snapshot, entity: known, fault: false)
        object._loadValues(from: snapshot)
        derivationLoaded(object)
        object.awakeFromFetch()
        return object
    }

    /// A new object of `objectID`'s class in this context, registered.
    private func registerNew(_ objectID: ManagedObjectID, snapshot: Snapshot?, entity known: EntityDescription?,
                             fault: Bool) -> ManagedObject {
        // A fetch of a parent entity names it; the ID names the concrete one.
        let entity = known.flatMap { $0.managedObjectClass == objectID.objectClass ? $0 : nil } ?? entity(for: objectID.objectClass)
        let object = objectID.objectClass.init()
        object._id = objectID
        object._entity = entity
        object._contextRef = self
        object._flags.registered(fault: fault, contextFlags: registrationAccess)
        object._snapshot = snapshot
        register(object, as: objectID)
        return object
    }

    /// Adds `object` to the identity map, evicting the faults nothing else
    /// holds once the map has doubled.
    func register(_ object: ManagedObject, as id: ManagedObjectID) {
        registered[id] = object
        if registered.hasGrown { evictUnreferencedFaults() }
    }

    /// Lets go of the faults only the identity map holds, forgetting what
    /// derived attributes recorded about them (a freed object's identity may
    /// be reused by a new object).
    func evictUnreferencedFaults() {
        forgetEvicted(registered.evictUnreferencedFaults())
    }

    func forgetEvicted(_ objects: [ManagedObject]) {
        for object in objects {
            if !faultBatches.isEmpty { faultBatches.forget(object) }
            guard let entity = object._entity, !entity.dependentDerivations.isEmpty || !entity.derivations.isEmpty else { continue }
            derivationForget(object)
        }
    }

    /// Loads a fault's values from its snapshot (fetching it if needed) and
    /// calls `awakeFromFetch()`.
    func _fulfillFault(_ object: ManagedObject) {
        guard let entity = object._entity else { return }
        if object._snapshot == nil, !faultBatches.isEmpty {
            loadFaultBatch(containing: object)
        }
        if object._snapshot == nil {
            do {
                object._snapshot = try committedSnapshot(of: object.objectID)
            } catch .objectNotFound {
                fatalError("Coherence could not fulfill a fault for \(entity.name) \(object.objectID): the object is not in the store (deleted, or never saved)")
            } catch {
                fatalError("Coherence could not fulfill a fault for \(entity.name) \(object.objectID): \(error)")
            }
        }
        guard let snapshot = object._snapshot else { return }
        // A fault of a batched fetch that got its row another way.
        if !faultBatches.isEmpty { faultBatches.forget(object) }
        object._flags.fired()
        object._loadValues(from: snapshot)
        derivationLoaded(object)
        object.awakeFromFetch()
    }

    /// For a fault of a batched fetch: reads the snapshots of the batch of
    /// its fetch result that holds it, with one store query, and gives
    /// each fault of the batch its snapshot (without firing the others).
    private func loadFaultBatch(containing object: ManagedObject) {
        guard let ids = faultBatches.takeBatch(containing: object) else { return }
        let waiting = ids.filter { id in registered[id].map { $0.isFault && $0._snapshot == nil } ?? false }
        guard let snapshots = try? source.snapshots(for: waiting) else { return }
        for snapshot in snapshots {
            guard let fault = registered[snapshot.objectID] else { continue }
            faultBatches.forget(fault)
            if fault.isFault, fault._snapshot == nil { fault._snapshot = snapshot }
        }
    }

    /// The committed snapshot of an object that has none attached.
    func _committedSnapshot(of object: ManagedObject) -> Snapshot? {
        guard let id = object._id, !id.isTemporaryID else { return nil }
        return try? committedSnapshot(of: id)
    }

    /// Takes an object out of the context for good: it keeps its last values
    /// but belongs to no context any more.
    func invalidate(_ object: ManagedObject, notify: Bool) {
        derivationForget(object)
        if !faultBatches.isEmpty { faultBatches.forget(object) }
        registered[object.objectID] = nil
        if notify { object.willTurnIntoFault() }
        if let entity = object._entity { object._clearTransientValues(entity: entity) }
        object._contextRef = nil
        object._flags.invalidated()
        object._clearTracking()
        if notify { object.didTurnIntoFault() }
    }
}
