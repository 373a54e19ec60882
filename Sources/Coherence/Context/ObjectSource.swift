/// Where a context reads committed objects from: its coordinator (a root
/// context) or its parent context (a nested context, which sees the parent's
/// unsaved state as committed).
protocol ObjectSource: Sendable {
    /// The object's state as this source sees it, or `nil` if it does not exist.
    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot?
    /// As `snapshots(for:)`, bypassing caches, by object ID: for `refresh`
    /// and merges. An object no longer in the store maps to `nil`; one that
    /// could not be read (a read error) is missing.
    func latestSnapshots(for objectIDs: [ManagedObjectID]) -> [ManagedObjectID: Snapshot?]
    /// Every object of an entity.
    func snapshots(of entity: EntityDescription) throws -> [Snapshot]
    /// Several objects at once (those that exist).
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot]
    /// The destinations of a to-many relationship.
    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID]
    /// The destinations of a to-many relationship of several objects.
    func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]]
    /// The matching snapshots, or `nil` when the caller must evaluate the request.
    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]?
    /// The IDs of the matching objects, or `nil` when the caller must
    /// evaluate the request.
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]?
    /// The number of matching objects, or `nil` when the caller must count.
    func count(_ request: StoreFetchRequest) throws -> Int?
}

extension PersistentStoreCoordinator: ObjectSource {}

extension ObjectSource {
    /// Every object of an entity and, with `subentities`, of its
    /// sub-entities, in primary-key order across the hierarchy.
    func snapshots(of entity: EntityDescription, subentities: Bool) throws -> [Snapshot] {
        guard subentities, !entity.subentities.isEmpty else { return try snapshots(of: entity) }
        return try entity.selfAndDescendants.flatMap { try snapshots(of: $0) }.sorted { $0.objectID.key < $1.objectID.key }
    }
}

/// A nested context's view of its parent: every read hops onto the parent's
/// queue and answers from the parent's objects, unsaved changes included.
/// A read of a main-queue parent may be answered by main-queue code that is
/// waiting for the child itself (see ``MainQueueRelay``).
struct ParentSource: ObjectSource {
    let parent: ManagedObjectContext
    /// The ownership of the child that reads.
    let child: ContextOwnership

    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        try parent.withExclusiveAccess(readingFor: child) { () throws -> Snapshot? in try parent.childSnapshot(for: objectID) }
    }

    func latestSnapshots(for objectIDs: [ManagedObjectID]) -> [ManagedObjectID: Snapshot?] {
        // Keyed by the IDs asked for: the parent may know an object by the
        // permanent ID its save gave it, the child still by the temporary one.
        var result: [ManagedObjectID: Snapshot?] = [:]
        for id in objectIDs {
            do {
                result.updateValue(try snapshot(for: id), forKey: id)
            } catch {
                continue // unreadable now: missing, so the object is left as it is
            }
        }
        return result
    }

    func snapshots(of entity: EntityDescription) throws -> [Snapshot] {
        try parent.withExclusiveAccess(readingFor: child) { () throws -> [Snapshot] in try parent.childSnapshots(of: entity) }
    }

    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        try parent.withExclusiveAccess(readingFor: child) { () throws -> [Snapshot] in try objectIDs.compactMap { try parent.childSnapshot(for: $0) } }
    }

    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try parent.withExclusiveAccess(readingFor: child) { () throws -> [ManagedObjectID] in
            let objectID = parent.tracker.translated(objectID)
            guard let object = parent.registeredObject(for: objectID), !object.isFault else {
                return try parent.source.relatedObjectIDs(of: objectID, relationship: relationship)
            }
            return parent.relatedIDList(of: object, relationship)
        }
    }

    func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]] {
        var result: [ManagedObjectID: [Snapshot]] = [:]
        for id in objectIDs {
            result[id] = try snapshots(for: relatedObjectIDs(of: id, relationship: relationship))
        }
        return result
    }

    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? { nil }

    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? { nil }

    func count(_ request: StoreFetchRequest) throws -> Int? { nil }
}

extension ManagedObjectContext {
    /// A snapshot of one object as this context holds it, for a child.
    func childSnapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        applyDerivations()
        let objectID = tracker.translated(objectID)
        if let object = registered[objectID] {
            if object.isDeleted { return nil }
            if !object.isFault { return currentSnapshot(of: object) }
            if let snapshot = object._snapshot { return snapshot }
        }
        guard !objectID.isTemporaryID else { return nil }
        return try source.snapshot(for: objectID)
    }

    /// Every object of an entity as this context holds it, for a child:
    /// committed ones with this context's changes, insertions, no deletions.
    func childSnapshots(of entity: EntityDescription) throws -> [Snapshot] {
        applyDerivations()
        var result: [Snapshot] = []
        for snapshot in try source.snapshots(of: entity) {
            guard let object = registered[snapshot.objectID] else {
                result.append(snapshot)
                continue
            }
            if object.isDeleted { continue }
            result.append(object.isFault ? (object._snapshot ?? snapshot) : currentSnapshot(of: object))
        }
        for object in tracker.inserted where object._entity === entity { // exactly this entity, as the store's rows
            result.append(currentSnapshot(of: object))
        }
        return result
    }

    /// The object's current values as a snapshot (its version is the last
    /// committed one).
    func currentSnapshot(of object: ManagedObject) -> Snapshot {
        let entity = object._entity!
        let values = (0..<entity.propertyCount).map { object._currentValue(at: $0) ?? .null }
        return Snapshot(objectID: object.objectID, values: values, version: object._snapshot?.version ?? 0)
    }
}
