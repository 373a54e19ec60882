import Foundation

/// What resolving conflicts decided for the retry of a save.
struct ConflictResolution {
    /// Objects deleted from the store that the save writes back.
    var reinserted: Set<ManagedObject> = []
    /// Objects deleted from the store whose deletion stands.
    var lost: Set<ManagedObject> = []
    /// The version (-1: gone) of each row of the last round's conflicts.
    var lastConflicts: [ManagedObjectID: Int64]?
    /// The last round's constraint conflicts, described.
    var lastConstraintConflicts: [String]?
}

extension ManagedObjectContext {
    /// Applies the merge policy to a save's conflicts, or throws
    /// ``MergeError``: policy `.error`, or the very conflicts of the last
    /// round again (rows at the same versions: the resolution did not take).
    /// Conflicts with rows other writers saved since are resolved however
    /// many rounds they take.
    func resolve(_ error: StoreConflictError, policy: MergePolicy, resolution: inout ConflictResolution) throws {
        let seen = Dictionary(error.conflicts.map { ($0.objectID, $0.current?.version ?? -1) }, uniquingKeysWith: { first, _ in first })
        let repeated = seen == resolution.lastConflicts
        resolution.lastConflicts = seen
        let conflicts = error.conflicts.compactMap { conflict in registered[conflict.objectID].map { (conflict, $0) } }
        guard policy != .error, !repeated else {
            throw MergeError(conflicts: conflicts.map { mergeConflict($0.0, object: $0.1) })
        }
        // A deletion that conflicts goes ahead only when the object wins;
        // its delete rules then also apply to what the store holds now.
        let deletions = conflicts.filter { $0.1.isDeleted }
        if !deletions.isEmpty, policy != .mergeByPropertyObjectTrump, policy != .overwrite {
            throw MergeError(conflicts: conflicts.map { mergeConflict($0.0, object: $0.1) })
        }
        for (conflict, object) in deletions {
            guard let current = conflict.current else { continue }
            redelete(object, against: current)
        }
        for (conflict, object) in conflicts where !object.isDeleted {
            guard let entity = object._entity else { continue }
            guard let current = conflict.current else {
                switch policy {
                case .overwrite, .mergeByPropertyObjectTrump: resolution.reinserted.insert(object)
                default: resolution.lost.insert(object)
                }
                continue
            }
            let base = object._snapshot
            // Transient attributes are the context's own: the store's
            // snapshot holds only their initial values.
            for index in 0..<entity.propertyCount where index >= entity.attributes.count || !entity.attributes[index].isTransient {
                let mine = object._currentValue(at: index)
                let read = base?.values[index]
                var theirs = current.values[index]
                if theirs == .toManyFault, let relationship = entity.relationship(at: index) {
                    // The store derives to-many values from other rows: read them now.
                    let ids = (try? source.relatedObjectIDs(of: object.objectID, relationship: relationship)) ?? []
                    theirs = relationship.isOrdered ? .orderedObjectIDs(ids) : .objectIDs(Set(ids))
                }
                // A to-many set merges member by member under the
                // per-property policies: the store's members, with those
                // this context added and without those it removed. Taking
                // either whole set would drop the other writer's members,
                // and the derived values recounted from it after resolution.
                if policy == .mergeByPropertyObjectTrump || policy == .mergeByPropertyStoreTrump,
                   let relationship = entity.relationship(at: index), relationship.isToMany,
                   let mineIDs = mine?.toManyMembers, let storeIDs = theirs.toManyMembers {
                    let merged = mergedMembers(mine: mineIDs, read: read, store: storeIDs)
                    if relationship.isOrdered {
                        // The order of the side that wins, per property: this
                        // context's if it changed the order, unless the store
                        // changed it too under store trump; the other side's
                        // members after.
                        let mineList = mine?.referencedIDList ?? []
                        let storeList = theirs.referencedIDList
                        let readList: [ManagedObjectID]? = if case .orderedObjectIDs(let list)? = read { list } else { nil }
                        let changedHere = readList.map { $0 != mineList } ?? object._changedProperties.contains(index)
                        let changedThere = readList.map { $0 != storeList } ?? true
                        let mineFirst = changedHere && (policy == .mergeByPropertyObjectTrump || !changedThere)
                        let order = mineFirst ? RelationshipDescription.order(mineList, then: storeList, within: merged)
                            : RelationshipDescription.order(storeList, then: mineList, within: merged)
                        if order != mineList { relationship.setStorage(.ordered(order), of: object) }
                    } else if merged != mineIDs {
                        relationship.setMembers(merged, of: object)
                    }
                    continue
                }
                // A derived value is never the context's own change: it
                // follows children, and the store's counts what other
                // writers saved (a value recomputed here from children this
                // context had loaded would undo theirs).
                let isDerived = index < entity.attributes.count && entity.attributes[index].isDerived
                let changedHere = mine != read && !isDerived
                let changedThere = theirs != read && read != .toManyFault
                let takeTheirs: Bool = switch policy {
                case .mergeByPropertyStoreTrump: changedThere
                case .mergeByPropertyObjectTrump: !changedHere && changedThere
                case .rollback: true
                case .overwrite, .error: false
                }
                if takeTheirs { setCommittedValue(theirs, at: index, of: object, entity: entity) }
            }
            object._snapshot = current.keepingTransientValues(of: base, entity: entity)
        }
    }

    /// A to-many set as both writers changed it: the store's members, plus
    /// the members this context added since it read the set, minus those it
    /// removed. A set not loaded when the object was read tells its own
    /// changes by its members: one inserted or changed here was added or
    /// removed here.
    private func mergedMembers(mine: Set<ManagedObjectID>, read: StoreValue?, store: Set<ManagedObjectID>) -> Set<ManagedObjectID> {
        if let readIDs = read?.toManyMembers {
            return store.union(mine.subtracting(readIDs)).subtracting(readIDs.subtracting(mine))
        }
        func changedHere(_ id: ManagedObjectID) -> Bool {
            registered[id].map { $0.isInserted || $0._hasChangedProperties } ?? false
        }
        return store.union(mine.subtracting(store).filter(changedHere)).subtracting(store.subtracting(mine).filter(changedHere))
    }

    /// Applies a deleted object's delete rules again to the destinations the
    /// store holds now (some may be new since the context read the object).
    private func redelete(_ object: ManagedObject, against current: Snapshot) {
        guard let entity = object._entity else { return }
        for relationship in entity.relationships {
            var now = current.values[relationship.index].referencedIDs
            if current.values[relationship.index] == .toManyFault {
                now = Set((try? source.relatedObjectIDs(of: object.objectID, relationship: relationship)) ?? [])
            }
            let known = relationship.storage(of: object).loadedIDs ?? []
            let added = now.subtracting(known)
            guard !added.isEmpty else { continue }
            relationship.setMembers(known.union(added), of: object)
        }
        object._snapshot = current
        tracker.deletionsToPropagate.append(object)
        applyDeleteRules()
    }

    /// Sets one property to the value the store holds: an attribute with
    /// change tracking (so the change is announced); a relationship on this
    /// object alone. The destinations' rows already say what the store
    /// holds, so their objects here are not changed: changing them (their
    /// inverse) would make the save write whole rows from this context's
    /// copies of them, over what other writers saved since (the
    /// concurrency campaign found entries detached from their account and
    /// balances written back that way).
    ///
    /// The loaded other sides follow without change tracking, so that the
    /// graph in memory agrees with itself (an object moved to another
    /// destination leaves the old one's loaded set), and the derived values
    /// fed through the relationship are recounted.
    private func setCommittedValue(_ value: StoreValue, at index: Int, of object: ManagedObject, entity: EntityDescription) {
        if let relationship = entity.relationship(at: index) {
            let old = relationship.storage(of: object).loadedIDs ?? []
            let new = value.referencedIDs
            relationship.setStorage(value == .toManyFault ? .empty : RelationshipStorage(storeValue: value, isToMany: relationship.isToMany), of: object)
            for (ids, adding) in [(old.subtracting(new), false), (new.subtracting(old), true)] {
                for id in ids {
                    // A fault loads its committed values when it fires: nothing to update.
                    guard let target = registered[id], !target.isFault, let inverse = target._entity?.inverse(of: relationship),
                          var members = inverse.storage(of: target).loadedIDs else { continue }
                    if adding {
                        if !inverse.isToMany { members = [] }
                        members.insert(object.objectID)
                    } else {
                        members.remove(object.objectID)
                    }
                    inverse.setMembers(members, of: target)
                    derivationStale(target)
                }
            }
            derivationTouched(object)
        } else {
            _recordWrite(of: object, property: index)
            try? entity.attributes[index].setStoreValue(value, of: object)
        }
    }

    private func mergeConflict(_ conflict: StoreConflictError.Conflict, object: ManagedObject) -> MergeConflict {
        let entity = object._entity!
        func dictionary<Values: RandomAccessCollection<StoreValue>>(_ values: Values) -> [String: StoreValue] where Values.Index == Int {
            var result: [String: StoreValue] = [:]
            for index in 0..<entity.propertyCount where values[index] != .toManyFault {
                result[entity.propertyName(at: index)] = values[index]
            }
            return result
        }
        let current = (0..<entity.propertyCount).map { object._currentValue(at: $0) ?? .null }
        return MergeConflict(
            objectID: object.objectID, isDeletion: object.isDeleted, objectSnapshot: dictionary(current),
            cachedSnapshot: object._snapshot.map { dictionary($0.values) },
            persistedSnapshot: conflict.current.map { dictionary($0.values) },
            newVersionNumber: conflict.current?.version ?? 0, oldVersionNumber: conflict.expectedVersion)
    }
}

/// The state of a context's loaded objects before conflict resolution
/// changed them, so that a save that still fails leaves everything as it was.
struct SaveCheckpoint {
    private struct ObjectState {
        let object: ManagedObject
        let values: [StoreValue?]
        let snapshot: Snapshot?
        let lifecycle: LifecycleState
        let tracking: TrackingCheckpoint
    }

    private let tracker: ChangeTracker
    private let objects: [ObjectState]

    init(_ context: ManagedObjectContext) {
        tracker = context.tracker
        objects = context.registered.objects.compactMap { object in
            guard !object.isFault, let entity = object._entity else { return nil }
            return ObjectState(object: object, values: (0..<entity.propertyCount).map { object._currentValue(at: $0) },
                               snapshot: object._snapshot, lifecycle: object._lifecycle, tracking: object._trackingCheckpoint)
        }
    }

    func restore(_ context: ManagedObjectContext) {
        let replaced = context.tracker
        tracker.relist(replacing: replaced)
        context.tracker = tracker
        // Objects the resolution loaded and changed (inverse upkeep, delete
        // rules, derived values) were faults at the checkpoint: faults again,
        // with no record of those changes, they load their committed values
        // when next used.
        let captured = Set(objects.map { ObjectIdentifier($0.object) })
        for object in replaced.changed + replaced.pendingWrites.map(\.object) + replaced.deleted
        where !captured.contains(ObjectIdentifier(object)) && object._belongs(to: context) && !object.isFault {
            context.derivationForget(object)
            object._clearTracking()
            object._flags.settled()
            object._clearCurrentValues()
            object._flags.turnedIntoFault()
        }
        for state in objects {
            guard let entity = state.object._entity else { continue }
            for attribute in entity.attributes {
                if let value = state.values[attribute.index] {
                    try? attribute.setStoreValue(value, of: state.object)
                } else {
                    attribute.clearValue(of: state.object)
                }
            }
            for relationship in entity.relationships {
                relationship.setStorage(
                    RelationshipStorage(storeValue: state.values[relationship.index] ?? .null, isToMany: relationship.isToMany), of: state.object)
            }
            state.object._snapshot = state.snapshot
            state.object._flags.restored(lifecycle: state.lifecycle)
            state.object._restoreTracking(state.tracking)
        }
    }
}
