import Foundation

/// What changed about one observed object, in one didChangeObjects.
public struct ObjectChange: Sendable, Hashable {
    /// Which key of didChangeObjects the object appeared under.
    public enum Kind: Sendable, Hashable {
        /// Inserted into the context.
        case inserted
        /// Changed in the context (by code, merge or derivation).
        case updated
        /// Deleted in the context.
        case deleted
        /// Refreshed from the store or a merge.
        case refreshed
        /// Invalidated: its context forgot it.
        case invalidated
    }

    /// The observed object.
    public let objectID: ManagedObjectID
    /// What happened to it.
    public let kind: Kind
    /// The names of the properties whose values changed (for `updated`).
    public let changedKeys: Set<String>
}

/// The objects of one entity that changed in one didChangeObjects, as an
/// entity observer sees them: insertions and updates that match its
/// predicate, and every deletion. Use it on the context's queue.
public struct EntityChange<Entity: ManagedObject> {
    /// Inserted objects that match the predicate.
    public let inserted: [Entity]
    /// Updated or refreshed objects that match the predicate after the change.
    public let updated: [Entity]
    /// Deleted objects (all of them: their values no longer decide).
    public let deleted: [Entity]

    /// The same changes as object IDs.
    public var objectIDs: ObjectIDChanges {
        ObjectIDChanges(inserted: Set(inserted.map(\.objectID)), updated: Set(updated.map(\.objectID)),
                        deleted: Set(deleted.map(\.objectID)))
    }
}

/// Observers of single objects and of entities, indexed so that a change
/// wakes only the observers of that object or entity (and, for key-path
/// observers, of those properties).
///
/// **Complexity:** dispatching one notification is O(changed objects +
/// matching observers), whatever the number of observers registered.
final class ObjectObservers: Sendable {
    /// Handlers run on the context's queue only, which makes holding them safe.
    private struct ObjectEntry: @unchecked Sendable {
        let properties: Set<Int>?
        let handler: (ObjectChange) -> Void
    }

    private struct EntityEntry: @unchecked Sendable {
        let handler: (_ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject]) -> Void
    }

    private enum Key {
        case object(ManagedObjectID)
        case entity(ObjectIdentifier)
    }

    private struct State {
        var byObject: [ManagedObjectID: [Int: ObjectEntry]] = [:]
        var byEntity: [ObjectIdentifier: [Int: EntityEntry]] = [:]
        /// Where each registration lives, for O(1) removal.
        var keys: [Int: Key] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    var isEmpty: Bool { state.withLock { $0.byObject.isEmpty && $0.byEntity.isEmpty } }

    /// Whether an observer watches this object by its ID.
    func isObserving(_ id: ManagedObjectID) -> Bool {
        state.withLock { $0.byObject[id]?.isEmpty == false }
    }

    func add(object: ManagedObjectID, properties: Set<Int>?, handler: @escaping (ObjectChange) -> Void) -> Int {
        let entry = ObjectEntry(properties: properties, handler: handler)
        return state.withLock { state in
            state.nextID += 1
            state.byObject[object, default: [:]][state.nextID] = entry
            state.keys[state.nextID] = .object(object)
            return state.nextID
        }
    }

    func add(entity: EntityDescription,
             handler: @escaping ([ManagedObject], [ManagedObject], [ManagedObject]) -> Void) -> Int {
        let entry = EntityEntry(handler: handler)
        return state.withLock { state in
            state.nextID += 1
            state.byEntity[ObjectIdentifier(entity), default: [:]][state.nextID] = entry
            state.keys[state.nextID] = .entity(ObjectIdentifier(entity))
            return state.nextID
        }
    }

    func remove(_ id: Int) {
        state.withLock { state in
            switch state.keys.removeValue(forKey: id) {
            case .object(let object)?:
                state.byObject[object]?[id] = nil
                if state.byObject[object]?.isEmpty == true { state.byObject[object] = nil }
            case .entity(let entity)?:
                state.byEntity[entity]?[id] = nil
                if state.byEntity[entity]?.isEmpty == true { state.byEntity[entity] = nil }
            case nil:
                break
            }
        }
    }

    /// Calls the observers concerned by one announced change.
    func dispatch(_ change: ManagedObjectContext.ObjectsDidChangeMessage, changedProperties: [ObjectIdentifier: Set<Int>]) {
        guard !isEmpty else { return }
        var calls: [() -> Void] = []
        var byEntity: [Int: (EntityEntry, [ManagedObject], [ManagedObject], [ManagedObject])] = [:]
        state.withLock { state in
            func visit(_ objects: Set<ManagedObject>, _ kind: ObjectChange.Kind) {
                for object in objects {
                    let id = object.objectID
                    if let entries = state.byObject[id] {
                        let changed = changedProperties[ObjectIdentifier(object)] ?? []
                        let entity = object._entity
                        for entry in entries.values {
                            if kind == .updated, let wanted = entry.properties, wanted.isDisjoint(with: changed) { continue }
                            let names = Set(changed.compactMap { entity?.propertyName(at: $0) })
                            let event = ObjectChange(objectID: id, kind: kind, changedKeys: names)
                            calls.append { entry.handler(event) }
                        }
                    }
                    // Observers of the entity and of its ancestors (a
                    // sub-entity's objects are its parent's too).
                    guard let objectEntity = object._entity else { continue }
                    var observed = state.byEntity[ObjectIdentifier(objectEntity)] ?? [:]
                    var ancestor = objectEntity.superentity
                    while let current = ancestor {
                        if let entries = state.byEntity[ObjectIdentifier(current)] { observed.merge(entries) { first, _ in first } }
                        ancestor = current.superentity
                    }
                    for (token, entry) in observed {
                        var bucket = byEntity[token] ?? (entry, [], [], [])
                        switch kind {
                        case .inserted: bucket.1.append(object)
                        case .updated, .refreshed: bucket.2.append(object)
                        case .deleted, .invalidated: bucket.3.append(object)
                        }
                        byEntity[token] = bucket
                    }
                }
            }
            visit(change.inserted, .inserted)
            visit(change.updated, .updated)
            visit(change.refreshed, .refreshed)
            visit(change.deleted, .deleted)
            visit(change.invalidated.union(change.invalidatedAllObjects), .invalidated)
        }
        for call in calls { call() }
        for (entry, inserted, updated, deleted) in byEntity.values {
            entry.handler(inserted, updated, deleted)
        }
    }
}

