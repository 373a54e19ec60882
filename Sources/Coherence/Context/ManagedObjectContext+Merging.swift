import Foundation

extension ManagedObjectContext {
    /// Brings changes made outside these contexts (batch requests, another
    /// coordinator, another process) into live contexts, as Core Data's
    /// method of the same name.
    ///
    /// `changes` is a didSave userInfo or any dictionary with
    /// `inserted`/`updated`/`deleted` (or the `_objectIDs` keys), holding
    /// `ManagedObjectID`s, `ManagedObject`s or object URIs, as sets or arrays.
    /// Each context, on its own queue: registers inserted objects, refreshes
    /// updated ones (keeping local changes), removes deleted ones, and posts
    /// its own didChangeObjects (updates under `refreshed`).
    public static func mergeChanges(fromRemoteContextSave changes: [AnyHashable: Any], into contexts: [ManagedObjectContext]) {
        for context in contexts {
            let ids = context.objectIDChanges(from: changes)
            context.performAndWait { context.mergeRemoteChanges(ids) }
        }
    }

    /// ``mergeChanges(fromRemoteContextSave:into:)`` for object IDs, as a
    /// ``BatchResult`` or a didSave event carries them.
    public static func mergeChanges(fromRemoteContextSave changes: ObjectIDChanges, into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait { context.mergeRemoteChanges(changes) }
        }
    }

    /// Merges the changes of a didSave notification from another context of
    /// the same coordinator (``didSaveObjectsNotification`` or
    /// ``didSaveObjectIDsNotification``). Call it on this context's queue:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { note in
    ///     let changes = ContextDidSave(note)?.objectIDs ?? ObjectIDChanges()
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: changes) }
    /// }
    /// ```
    ///
    /// Updated objects are refreshed (their unsaved changes here stay), and
    /// reported under `refreshed` even when they are faults, so fetched
    /// results and observers see updates to objects never loaded here.
    /// Inserted objects are registered and reported under `inserted`; deleted
    /// ones are reported under `deleted` and leave the context. The context
    /// posts its own didChangeObjects, then
    /// ``didMergeChangesObjectIDsNotification``.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeChanges(fromContextDidSave: objectIDChanges(from: notification.userInfo ?? [:]))
    }

    /// ``mergeChanges(fromContextDidSave:)-(Notification)`` for the
    /// `Sendable` IDs of a save, as ``ContextDidSave/objectIDs`` and the
    /// didSave event sequence carry them.
    public func mergeChanges(fromContextDidSave changes: ObjectIDChanges) {
        _assertOnQueue()
        mergeRemoteChanges(changes)
    }

    /// The object IDs in a change dictionary, resolving URIs through this
    /// context's coordinator.
    private func objectIDChanges(from changes: [AnyHashable: Any]) -> ObjectIDChanges {
        func ids(_ keys: ManagedObjectContext.NotificationKey...) -> Set<ManagedObjectID> {
            var result = Set<ManagedObjectID>()
            for key in keys {
                guard let value = changes[key.rawValue] else { continue }
                let items: [Any] = (value as? any Sequence).map { Array($0) } ?? [value]
                for item in items {
                    switch item {
                    case let id as ManagedObjectID: result.insert(id)
                    case let object as ManagedObject: result.insert(object.objectID)
                    case let url as URL:
                        if let id = persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) { result.insert(id) }
                    default: break
                    }
                }
            }
            return result
        }
        return ObjectIDChanges(inserted: ids(.insertedObjects, .insertedObjectIDs),
                               updated: ids(.updatedObjects, .updatedObjectIDs),
                               deleted: ids(.deletedObjects, .deletedObjectIDs))
    }

    /// Applies committed changes made elsewhere, then announces them.
    func mergeRemoteChanges(_ changes: ObjectIDChanges) {
        _assertOnQueue()
        coordinator.rowCache.commit(changed: changes.updated.union(changes.deleted), saved: [])
        var gone: [ManagedObject] = []
        for id in changes.deleted {
            guard let object = registered[id] else { continue }
            tracker.inserted.remove(object)
            tracker.deleted.remove(object)
            tracker.changed.remove(object)
            tracker.pendingTouched.remove(object)
            tracker.pendingDeleted.insert(object)
            gone.append(object)
        }
        for id in changes.updated {
            guard let object = registered[id], !changes.deleted.contains(id) else { continue }
            if object.isFault {
                object._snapshot = nil
                tracker.pendingRefreshed.insert(object)
            } else {
                refresh(object, mergeChanges: true)
            }
        }
        for id in changes.inserted where registered[id] == nil {
            guard coordinator.managedObjectModel.entity(for: id.objectClass) != nil else { continue }
            tracker.pendingInserted.insert(object(with: id))
        }
        processPendingChanges()
        for object in gone {
            invalidate(object, notify: !object.isFault)
        }
        post(name: ManagedObjectContext.didMergeChangesObjectIDsNotification,
             userInfo: ContextDidMergeChanges(context: self, objectIDs: changes).userInfo)
    }
}
