import Foundation

extension ManagedObjectContext {
    /// Whether the context's objects take part in Swift's Observation:
    /// `withObservationTracking`, `Observations` and SwiftUI see their
    /// changes. On by default for a `.mainQueue` context, where user
    /// interfaces read objects; off by default for a `.privateQueue`
    /// context, whose imports and background work then read and write
    /// objects without Observation's costs. Turn it on, on the context's
    /// queue, for a private context whose objects you observe:
    ///
    /// ```swift
    /// let background = container.newBackgroundContext()
    /// background.performAndWait { background.isObservationEnabled = true }
    /// ```
    ///
    /// While it is on, an object gets an `ObservationRegistrar` on its first
    /// property read and tells it about every read; every change of the
    /// object (by its setters, a merge, a refresh, a rollback or inverse
    /// upkeep) then notifies the registrar's observers. While it is off,
    /// reads register nothing; changes still notify the observers objects
    /// already have. Core Data has no counterpart: its objects are not
    /// `Observable`.
    ///
    /// Why a switch: Observation's public API cannot tell whether a thread is
    /// inside `withObservationTracking`, so an object that might be observed
    /// must have a registrar and tell it about every read (two allocations
    /// per object, a call per read, two locked look-ups per write), whether
    /// or not anything observes it.
    ///
    /// Use it on the context's queue, as every other use of the context
    /// (the concurrency check stops the program otherwise). On a main-queue
    /// context that nothing observes (a server rendering pages from its view
    /// context), turning it off spares every object read those costs.
    /// **Complexity:** O(registered objects) to change; O(1) to read.
    public var isObservationEnabled: Bool {
        get {
            _assertOnQueue()
            return registrationAccess.contains(.observable)
        }
        set {
            _assertOnQueue()
            guard newValue != isObservationEnabled else { return }
            if newValue { registrationAccess.insert(.observable) } else { registrationAccess.remove(.observable) }
            for object in registered.objects {
                object._flags.contextFlag(.observable, isOn: newValue)
            }
        }
    }

    /// Calls `handler` on this context's queue whenever `object` is announced
    /// as updated, refreshed, deleted or invalidated — only when one of
    /// `keyPaths` changed, if given. Other objects' changes cost this
    /// observer nothing. A key path that is not a modeled property the
    /// model knows by key path (a computed property, or a `@Managed` one)
    /// makes the observer see every change of the object, rather than miss
    /// one.
    /// - Returns: a token; the observation ends when it is released or cancelled.
    public func observe<Object: ManagedObject>(
        _ object: Object, keyPaths: [PartialKeyPath<Object>]? = nil, handler: @escaping (ObjectChange) -> Void
    ) -> ContextObservation {
        let entity = object._entity ?? entity(for: Object.self)
        let properties = Self.observedProperties(keyPaths, of: entity)
        let id = objectObservers.add(object: object.objectID, properties: properties, handler: handler)
        return ContextObservation(remove: { [objectObservers] in objectObservers.remove(id) })
    }

    /// Calls `handler` on this context's queue with the objects of `Entity`
    /// that each didChangeObjects announces: inserted and updated (or
    /// refreshed) ones that match `predicate`, and every deleted one.
    /// Changes of other entities cost this observer nothing.
    /// - Returns: a token; the observation ends when it is released or cancelled.
    public func observe<Entity: ManagedObject>(
        _ type: Entity.Type, matching predicate: Predicate<Entity>? = nil, handler: @escaping (EntityChange<Entity>) -> Void
    ) -> ContextObservation {
        let entity = entity(for: Entity.self)
        let id = objectObservers.add(entity: entity) { inserted, updated, deleted in
            func matching(_ objects: [ManagedObject]) -> [Entity] {
                objects.compactMap { $0 as? Entity }.filter { object in
                    guard let predicate else { return true }
                    return (try? predicate.evaluate(object)) ?? false
                }
            }
            let change = EntityChange(inserted: matching(inserted), updated: matching(updated),
                                      deleted: deleted.compactMap { $0 as? Entity })
            if !change.inserted.isEmpty || !change.updated.isEmpty || !change.deleted.isEmpty { handler(change) }
        }
        return ContextObservation(remove: { [objectObservers] in objectObservers.remove(id) })
    }

    /// ``observe(_:keyPaths:handler:)`` as an async sequence, by object ID.
    public func changes<Object: ManagedObject>(
        of objectID: ManagedObjectID, as type: Object.Type, keyPaths: [PartialKeyPath<Object>]? = nil
    ) -> AsyncStream<ObjectChange> {
        let (stream, continuation) = AsyncStream<ObjectChange>.makeStream()
        let entity = entity(for: objectID.objectClass)
        let properties = Self.observedProperties(keyPaths, of: entity)
        let id = objectObservers.add(object: objectID, properties: properties) { continuation.yield($0) }
        continuation.onTermination = { [objectObservers] _ in objectObservers.remove(id) }
        return stream
    }

    /// ``observe(_:matching:handler:)`` as an async sequence of object IDs.
    public func changes<Entity: ManagedObject>(
        of type: Entity.Type, matching predicate: Predicate<Entity>? = nil
    ) -> AsyncStream<ObjectIDChanges> {
        let (stream, continuation) = AsyncStream<ObjectIDChanges>.makeStream()
        let token = observe(type, matching: predicate) { continuation.yield($0.objectIDs) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// The property indexes `keyPaths` name, or `nil` (every property) when
    /// one of them is not known by key path.
    static func observedProperties<Object>(_ keyPaths: [PartialKeyPath<Object>]?, of entity: EntityDescription) -> Set<Int>? {
        guard let keyPaths else { return nil }
        var properties: Set<Int> = []
        for keyPath in keyPaths {
            guard let index = entity.propertyIndex(for: keyPath) else { return nil }
            properties.insert(index)
        }
        return properties
    }
}
