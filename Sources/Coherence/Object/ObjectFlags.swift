/// An object's state flags, and the only code that changes them: every
/// transition of an object's life in its context is one method here, named
/// for what happens (inserted, fired, deleted, saved, turned into a fault,
/// invalidated...). The flags' setters are private to this file, so the
/// compiler keeps every other file to these transitions; the context keeps
/// its collections (``ChangeTracker``, ``IdentityMap``) in step with them,
/// which ``ManagedObjectContext/_checkInvariants()`` checks.
///
/// Three bytes, stored in the object where its ID leaves padding.
///
/// **Complexity:** O(1) for every transition.
@usableFromInline
struct ObjectFlags {
    /// What sends a property read down the slow path.
    @usableFromInline private(set) var access: AccessState = []
    /// Where the object is in its context's unit of work.
    private(set) var lifecycle: LifecycleState = []
    /// The context's change lists the object is in.
    private(set) var listed: TrackerLists = []

    @usableFromInline init() {}

    // MARK: Joining a context

    /// Registered as a saved object: a fault (`fault: true`) or loaded, with
    /// the context's registration flags (concurrency check, Observation).
    mutating func registered(fault: Bool, contextFlags: AccessState) {
        access = contextFlags.union(fault ? .fault : [])
        lifecycle = []
    }

    /// Inserted into a context, not announced yet (`insert(_:)` takes only
    /// objects that never belonged to a context).
    mutating func inserted(contextFlags: AccessState) {
        lifecycle = [.inserted, .insertionUnannounced]
        access = contextFlags
    }

    /// A didChangeObjects announced the insertion: writes are tracked from now.
    mutating func insertionAnnounced() {
        lifecycle.remove(.insertionUnannounced)
    }

    /// The context's registration flag `flag` turned on or off
    /// (``ManagedObjectContext/isObservationEnabled``).
    mutating func contextFlag(_ flag: AccessState, isOn: Bool) {
        if isOn { access.formUnion(flag) } else { access.subtract(flag) }
    }

    // MARK: Values

    /// Its values were loaded from its snapshot.
    mutating func fired() {
        access.remove(.fault)
    }

    /// Its values were let go (refresh without merging, a checkpoint
    /// restored): the next read loads them again.
    mutating func turnedIntoFault() {
        access.insert(.fault)
    }

    // MARK: Unit of work

    /// Marked for deletion at the next save (by the app or a merge).
    mutating func deleted() {
        lifecycle = .deleted
    }

    /// Its insertion, deletion or update was saved, or undone by a rollback:
    /// neither inserted nor deleted any more.
    mutating func settled() {
        lifecycle = []
    }

    /// Put back as a save's checkpoint recorded it, after a conflict.
    mutating func restored(lifecycle recorded: LifecycleState) {
        lifecycle = recorded
    }

    /// Listed in, or taken out of, one of its context's change lists.
    mutating func listed(_ list: TrackerLists, _ isListed: Bool) {
        if isListed { listed.formUnion(list) } else { listed.subtract(list) }
    }

    // MARK: Leaving a context

    /// Taken out of its context for good (a reset, a saved deletion): it
    /// belongs to no unit of work.
    mutating func invalidated() {
        access.insert(.invalidated)
        lifecycle = []
    }

    /// Its context went away while the object lived on: it keeps what it
    /// was, but can no longer load or change.
    mutating func contextDeinitialized() {
        access.insert(.invalidated)
    }
}

extension ManagedObject {
    /// The object's access flags (see ``ObjectFlags``).
    @inlinable final var _access: AccessState { _flags.access }
    /// Where the object is in its context's unit of work (see ``ObjectFlags``).
    final var _lifecycle: LifecycleState { _flags.lifecycle }
    /// The context's change lists the object is in (see ``ObjectFlags``).
    final var _listed: TrackerLists { _flags.listed }
}
