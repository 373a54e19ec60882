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
        coordinator.rowCache.remove(changes.updated.union(changes.deleted))
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
    }
}
