/// The context's invariants: what its identity map, its change tracker and
/// its objects' state flags must agree on between operations.
///
/// ``_checkInvariants()`` checks them all and stops the program with a
/// message naming the context, the object and the broken rule. Built with
/// `COHERENCE_INVARIANTS` set (`COHERENCE_INVARIANTS=1 swift test`, as the
/// test command and CI do), the context checks them at the end of every
/// `processPendingChanges()`, save, merge, refresh, rollback and reset, as
/// swift-collections checks its own under `COLLECTIONS_INTERNAL_CHECKS`.
/// Without it, those calls compile to nothing. Operations nest (user code
/// called back in the middle of one may start another); only the outermost
/// checks, when it ends.
///
/// The rules, for a context that is not a scratch context:
/// 1. Every registered object names this context, is registered under its
///    own ID, has an entity, is not invalidated, and carries the context's
///    registration flags (the concurrency check, Observation).
/// 2. `insertedObjects` holds exactly the registered objects whose lifecycle
///    says inserted, never faults and never deleted.
/// 3. The saved deletions (`deleted`) and the deleted insertions
///    (`discarded`) hold exactly the registered objects whose lifecycle says
///    deleted, and the three sets are disjoint.
/// 4. An object not yet announced as inserted is inserted and waits in the
///    next notification's insertions.
/// 5. The changed list holds each object at most once, exactly the objects
///    whose `changed` list flag is set, and every object with written
///    properties since the last save.
/// 6. A fault has no written properties and no values of its own (its
///    change buffer is empty: it reads nothing until it fires).
///
/// **Complexity:** O(registered objects + tracked objects).
extension ManagedObjectContext {
    /// Starts an operation that checks the invariants when it ends (built
    /// with `COHERENCE_INVARIANTS`; nothing otherwise). Operations nest: a
    /// fetch in a `didSave()` override, a processPendingChanges inside a
    /// save or a rollback, user code called back in the middle of one; only
    /// the outermost checks, once the context is whole again.
    @inline(__always)
    func enterCheckedOperation() {
        #if COHERENCE_INVARIANTS
        checkedOperationDepth += 1
        #endif
    }

    /// Ends the operation ``enterCheckedOperation()`` started; the outermost
    /// checks rules 1 to 6 above.
    @inline(__always)
    func leaveCheckedOperation() {
        #if COHERENCE_INVARIANTS
        checkedOperationDepth -= 1
        if checkedOperationDepth == 0 { _checkInvariants() }
        #endif
    }

    /// Checks rules 1 to 6 above; stops the program, in release builds too,
    /// at the first one broken.
    func _checkInvariants() {
        guard !isScratch else { return }
        checkRegisteredObjects()
        checkLifecycleSets()
        checkChangedList()
    }

    /// Rule 1, and rule 6.
    private func checkRegisteredObjects() {
        let flags = registrationAccess
        for object in registered.objects {
            let id = object._id
            expect(object._belongs(to: self), object, "is registered but names another context or none")
            expect(id.map { registered[$0] === object } == true, object, "is not registered under its own ID")
            expect(object._entity != nil, object, "is registered without an entity")
            expect(!object._access.contains(.invalidated), object, "is registered but invalidated")
            expect(object._access.intersection([.queueChecked, .observable]) == flags,
                   object, "does not carry the context's registration flags \(flags.rawValue): \(object._access.rawValue)")
            if object._access.contains(.fault) {
                expect(!object._hasChangedProperties, object, "is a fault with written properties")
                expect(object._values.isEmpty, object, "is a fault with values in its change buffer")
            }
        }
    }

    /// Rules 2, 3 and 4.
    private func checkLifecycleSets() {
        for object in tracker.inserted {
            expect(object._lifecycle.contains(.inserted) && !object._lifecycle.contains(.deleted), object,
                   "is in insertedObjects but its lifecycle is \(object._lifecycle.rawValue)")
            expect(!object._access.contains(.fault), object, "is in insertedObjects but is a fault")
            expect(isRegistered(object), object, "is in insertedObjects but not registered")
        }
        for (name, set) in [("deletedObjects", tracker.deleted), ("the deleted insertions", tracker.discarded)] {
            for object in set {
                expect(object._lifecycle == .deleted, object, "is in \(name) but its lifecycle is \(object._lifecycle.rawValue)")
                expect(isRegistered(object), object, "is in \(name) but not registered")
            }
        }
        expect(tracker.inserted.isDisjoint(with: tracker.deleted) && tracker.inserted.isDisjoint(with: tracker.discarded)
               && tracker.deleted.isDisjoint(with: tracker.discarded), nil, "an object is in two of inserted, deleted and discarded")
        for object in registered.objects {
            let lifecycle = object._lifecycle
            if lifecycle.contains(.inserted) {
                expect(tracker.inserted.contains(object), object, "says inserted but is not in insertedObjects")
            }
            if lifecycle.contains(.deleted) {
                expect(tracker.deleted.contains(object) || tracker.discarded.contains(object), object,
                       "says deleted but is in neither deletedObjects nor the deleted insertions")
            }
            if lifecycle.contains(.insertionUnannounced) {
                expect(lifecycle.contains(.inserted), object, "is an unannounced insertion that is not inserted")
                expect(tracker.pendingInserted.contains(object), object, "is an unannounced insertion missing from the next notification")
            }
        }
    }

    /// Rule 5.
    private func checkChangedList() {
        var listed = Set<ObjectIdentifier>()
        for object in tracker.changed {
            expect(listed.insert(ObjectIdentifier(object)).inserted, object, "is in the changed list twice")
            expect(object._listed.contains(.changed), object, "is in the changed list without its flag")
        }
        for object in registered.objects {
            if object._listed.contains(.changed) {
                expect(listed.contains(ObjectIdentifier(object)), object, "has the changed-list flag but is not in the list")
            }
            if object._hasChangedProperties {
                expect(listed.contains(ObjectIdentifier(object)), object, "has written properties but is not in the changed list")
            }
        }
    }

    private func isRegistered(_ object: ManagedObject) -> Bool {
        object._id.map { registered[$0] === object } == true
    }

    /// Stops the program unless `condition` holds, naming the context, the
    /// object and what is wrong (`fatalError`: printed in release builds).
    private func expect(_ condition: @autoclosure () -> Bool, _ object: ManagedObject?, _ problem: @autoclosure () -> String) {
        guard !condition() else { return }
        let subject = object.map { "\(type(of: $0).entityName) \($0._id.map { "\($0)" } ?? "without an ID")" } ?? "An object"
        fatalError("Coherence invariant broken in context \(name ?? "unnamed"): \(subject) \(problem())")
    }
}
