import Dispatch
import Foundation

/// A scratch pad of managed objects bound to one queue: it fetches objects,
/// tracks their changes, announces them with Core Data's notifications, and
/// saves them through its coordinator.
///
/// ```swift
/// let context = ManagedObjectContext(concurrencyType: .privateQueue)
/// context.persistentStoreCoordinator = coordinator
/// try await context.perform {
///     let item = FeedItem(context: context)
///     item.title = "Hello"
///     try context.save()
/// }
/// ```
///
/// **Queues.** A `.privateQueue` context owns a serial queue; a `.mainQueue`
/// context is bound to the main queue. Use the context and its objects only
/// inside ``perform(_:)-(()->Void)``/``performAndWait(_:)`` (or on the main
/// queue for a main-queue context). As in Core Data, `performAndWait` runs
/// its block on the calling thread and is reentrant. The async `perform`
/// returns only `Sendable` values, so Swift rejects handing an object to
/// another queue; pass ``ManagedObjectID``s instead. Debug builds (and any
/// build run with `COHERENCE_CONCURRENCY_DEBUG=1`, Core Data's
/// `-com.apple.CoreData.ConcurrencyDebug 1`) stop with a message naming the
/// entity and the context when an object is touched off its queue;
/// `COHERENCE_CONCURRENCY_DEBUG=0` turns the check off.
///
/// **Notifications.** Changes are announced by
/// ``didChangeObjectsNotification``, posted by ``processPendingChanges()``
/// (which runs at the end of every `perform`/`performAndWait` block, before
/// every save and fetch, and at the end of the main-queue turn for a
/// main-queue context changed outside a block); ``willSaveObjectsNotification`` and
/// ``didSaveObjectsNotification`` bracket a save. All are posted on
/// `NotificationCenter.default` with the context as the object, synchronously
/// on the context's queue.
///
/// The context itself is `Sendable`: any queue may call `perform`.
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// The kind of queue a context is bound to.
    public enum ConcurrencyType: Sendable, Hashable {
        /// The context owns a private serial queue.
        case privateQueue
        /// The context is bound to the main queue.
        case mainQueue

        /// Core Data's name for ``privateQueue``
        /// (`NSManagedObjectContextConcurrencyType.privateQueueConcurrencyType`),
        /// so `ManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)`
        /// reads as it does with Core Data.
        public static let privateQueueConcurrencyType = ConcurrencyType.privateQueue
        /// Core Data's name for ``mainQueue``
        /// (`NSManagedObjectContextConcurrencyType.mainQueueConcurrencyType`).
        public static let mainQueueConcurrencyType = ConcurrencyType.mainQueue
    }

    /// The kind of queue the context is bound to.
    public let concurrencyType: ConcurrencyType
    /// The queue `perform` submits to: a private serial queue, or the main queue.
    let queue: DispatchQueue
    /// Who holds a private-queue context now (see ``ContextOwnership``).
    let ownership: ContextOwnership

    private struct Configuration {
        var name: String?
        var transactionAuthor: String?
        var coordinator: PersistentStoreCoordinator?
        var parent: ManagedObjectContext?
        var children: [WeakContext] = []
        var automaticMerging: AutomaticMerging?
        var remoteMerging: RemoteChangeMerging?
        var mergePolicy: MergePolicy = .error
        var automaticMergeBudget: Duration?
    }

    private let configuration: Locked<Configuration>

    // State confined to the queue. `registered`, `tracker` and
    // `derivations` are touched on every object access or write and skip run-time exclusivity checks: no code path changes them from inside
    // their own accessors (evicted faults are handed back and released after
    // the identity map's mutation ends, so their `deinit` cannot reach back
    // into it; the tracker's and the derivations' methods call out to no
    // user code).
    @exclusivity(unchecked) var registered = IdentityMap()
    @exclusivity(unchecked) var tracker = ChangeTracker() {
        // Only a main-queue context schedules anything: the test is inline,
        // as this runs on every property write.
        didSet { if concurrencyType == .mainQueue { scheduleEndOfTurnProcessing() } }
    }
    /// Whether a main-queue context has asked the main queue to process its
    /// pending changes at the end of the current turn.
    var endOfTurnProcessingScheduled = false
    /// Set while ``processPendingChanges()`` runs, which announces what
    /// changes meanwhile itself.
    var isProcessingPendingChanges = false
    /// Set while a refresh undoes relationship changes: a member an ordered
    /// relationship gets back returns to its saved place instead of the end.
    var isRestoringSavedRelationships = false
    /// Set while a save calls its objects' validation methods; their default
    /// implementations then leave out the checks the save makes itself.
    var isValidatingSave = false
    /// How many `perform`/`performAndWait` blocks of this context are
    /// running on the holding thread, one inside the other.
    var blockDepth = 0
    @exclusivity(unchecked) var derivations = DerivationState()
    /// Faults of batched fetches, and where each batch of them lies.
    var faultBatches = FaultBatches()
    /// Merge work not applied yet, in the order the saves arrived.
    var mergeBacklog: ArraySlice<MergeWork> = []
    /// Objects a merge deleted, announced and still in ``deletedObjects``
    /// until the next ``processPendingChanges()`` (see
    /// ``finishMergedDeletions()``).
    var mergedDeletions: [ManagedObject] = [] {
        didSet { if !mergedDeletions.isEmpty { scheduleEndOfTurnProcessing() } }
    }
    /// A scratch context only evaluates fetches against committed values; it
    /// shares its creator's queue and posts nothing.
    let isScratch: Bool
    /// The access flags every object the context registers starts with:
    /// `.queueChecked` while the concurrency check is on (``ConcurrencyDebug``),
    /// `.observable` while ``isObservationEnabled`` is on.
    @exclusivity(unchecked) var registrationAccess: AccessState = ConcurrencyDebug.isEnabled ? .queueChecked : []
    /// How many operations that check the invariants when they end are
    /// running, one inside another (``enterCheckedOperation()``).
    var checkedOperationDepth = 0
    let observers = ContextObservers()
    let objectObservers = ObjectObservers()

    /// Creates a context; give it a coordinator before use.
    public init(concurrencyType: ConcurrencyType, persistentStoreCoordinator: PersistentStoreCoordinator? = nil) {
        self.concurrencyType = concurrencyType
        configuration = Locked(Configuration(coordinator: persistentStoreCoordinator))
        isScratch = false
        ownership = ContextOwnership()
        switch concurrencyType {
        case .mainQueue:
            queue = .main
        case .privateQueue:
            queue = DispatchQueue(label: "Coherence.ManagedObjectContext")
        }
        if concurrencyType == .mainQueue { registrationAccess.insert(.observable) }
        registered.isPinned = { [objectObservers] in objectObservers.isObserving($0) }
    }

    /// A context on `context`'s queue that sees only committed values.
    init(scratchFor context: ManagedObjectContext) {
        concurrencyType = context.concurrencyType
        // Named after its context, whose author its saves record in history.
        configuration = Locked(Configuration(name: context.name, transactionAuthor: context.transactionAuthor,
                                             coordinator: context.persistentStoreCoordinator, parent: context.parent))
        isScratch = true
        queue = context.queue
        ownership = context.ownership
    }

    deinit {
        configuration.withLock {
            $0.automaticMerging?.stop()
            $0.remoteMerging?.stop()
        }
        let released = registered.count
        for object in registered.objects {
            object._contextRef = nil
            object._flags.contextDeinitialized()
        }
        registered.removeAll()
        // The derivations let go of the objects they hold first, so that the
        // sweep finds their snapshots held by nothing (the change tracker,
        // whose setter schedules work, keeps unsaved objects until the next
        // sweep).
        derivations.removeAll()
        persistentStoreCoordinator?.rowCache.sweep(releasedAbout: released)
    }

    /// A name for logs and messages.
    public var name: String? {
        get { configuration.withLock { $0.name } }
        set { configuration.withLock { $0.name = newValue } }
    }

    /// The author that persistent history records for this context's saves
    /// and batch requests (``PersistentHistoryTransaction/author``), as Core
    /// Data's `transactionAuthor`: set it before saving; it stays until changed.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/transactionauthor>
    public var transactionAuthor: String? {
        get { configuration.withLock { $0.transactionAuthor } }
        set { configuration.withLock { $0.transactionAuthor = newValue } }
    }

    /// The coordinator this context fetches from and saves to; for a nested
    /// context, its root context's coordinator.
    public var persistentStoreCoordinator: PersistentStoreCoordinator? {
        get { configuration.withLock { $0.parent?.persistentStoreCoordinator ?? $0.coordinator } }
        set { configuration.withLock { $0.coordinator = newValue } }
    }

    /// The parent of a nested context: the context reads the parent's state
    /// (unsaved changes included) and ``save()`` pushes its changes into the
    /// parent, which posts its own didChangeObjects; only the root context
    /// writes to the store. Set it before using the context, instead of a
    /// coordinator. After the root saves, children learn the permanent IDs
    /// of the objects they inserted.
    public var parent: ManagedObjectContext? {
        get { configuration.withLock { $0.parent } }
        set {
            let old = configuration.withLock { configuration in
                defer { configuration.parent = newValue }
                return configuration.parent
            }
            old?.removeChild(self)
            newValue?.addChild(self)
        }
    }

    /// A context whose parent is `parent` (a nested context).
    public convenience init(concurrencyType: ConcurrencyType, parent: ManagedObjectContext) {
        self.init(concurrencyType: concurrencyType)
        self.parent = parent
    }

    private func addChild(_ child: ManagedObjectContext) {
        configuration.withLock { $0.children = $0.children.filter { $0.context != nil } + [WeakContext(context: child)] }
    }

    private func removeChild(_ child: ManagedObjectContext) {
        configuration.withLock { $0.children.removeAll { $0.context == nil || $0.context === child } }
    }

    /// The live nested contexts whose parent is this one.
    var children: [ManagedObjectContext] {
        configuration.withLock { $0.children.compactMap(\.context) }
    }

    /// Where committed objects come from: the parent, or the coordinator.
    var source: any ObjectSource {
        if let parent { return ParentSource(parent: parent, child: ownership) }
        return coordinator
    }

    /// How ``save()`` resolves conflicts with changes saved elsewhere since
    /// the objects were read; ``MergePolicy/error`` by default.
    public var mergePolicy: MergePolicy {
        get { configuration.withLock { $0.mergePolicy } }
        set { configuration.withLock { $0.mergePolicy = newValue } }
    }

    /// The longest an automatic merge keeps this context's queue busy at a
    /// time: a larger save is merged in chunks, each posting one coalesced
    /// didChangeObjects (and didMergeChangesObjectIDs), with the queue free
    /// for other work in between. The budget covers announcing a chunk too
    /// (processing, notification, observers such as fetched results
    /// controllers), estimated from the previous chunk; the first chunk
    /// takes at most 64 objects to measure it. It is a target, not a
    /// guarantee: one object, or a slow observer, can exceed it. `nil` (the
    /// default) merges each save at once.
    public var automaticMergeBudget: Duration? {
        get { configuration.withLock { $0.automaticMergeBudget } }
        set { configuration.withLock { $0.automaticMergeBudget = newValue } }
    }

    /// Whether the context merges, on its own queue and without user code,
    /// every save of the other contexts of its coordinator (as
    /// ``mergeChanges(fromContextDidSave:)-(ObjectIDChanges)`` would). Off by default.
    public var automaticallyMergesChangesFromParent: Bool {
        get { configuration.withLock { $0.automaticMerging != nil } }
        set {
            configuration.withLock { configuration in
                guard newValue != (configuration.automaticMerging != nil) else { return }
                configuration.automaticMerging?.stop()
                configuration.automaticMerging = newValue ? AutomaticMerging(for: self) : nil
            }
        }
    }

    /// Whether the context follows every other writer of its stores (other
    /// coordinators, processes and machines) through persistent history, and
    /// merges what they commit on its own queue, as
    /// ``mergeChanges(fromContextDidSave:)-(ObjectIDChanges)`` would: it then
    /// posts its ordinary didChangeObjects and didMergeChangesObjectIDs, so
    /// fetched results controllers, observers and derived attributes follow.
    /// Off by default; the one-line form of Core Data's history-processing
    /// loop (Coherence's own, beyond Core Data):
    ///
    /// ```swift
    /// container.viewContext.automaticallyMergesRemoteChanges = true
    /// ```
    ///
    /// The context follows from the moment it is set; each transaction is
    /// merged once, in commit order, in chunks under ``automaticMergeBudget``
    /// (a transaction committed while the first context of a coordinator
    /// starts following may be missed). Stores added to the coordinator
    /// later are followed too.
    /// Saves of this context's own coordinator are left out: contexts of one
    /// coordinator hear of each other through ``automaticallyMergesChangesFromParent``.
    ///
    /// Setting it traps when no store of the coordinator keeps persistent
    /// history (``PersistentStoreDescription/persistentHistoryTracking``):
    /// without history there is nothing to follow. Setting it on a context
    /// without a coordinator traps too, and so does a store that cannot be
    /// watched (the database cannot be read when it starts, the system's
    /// inotify limit is reached), with the reason.
    public var automaticallyMergesRemoteChanges: Bool {
        get { configuration.withLock { $0.remoteMerging != nil } }
        set {
            guard newValue != configuration.withLock({ $0.remoteMerging != nil }) else { return }
            // Started outside the lock: it reads the store, and its messages
            // name the context (whose description takes the lock).
            let merging = newValue ? RemoteChangeMerging(for: self, coordinator: persistentStoreCoordinator) : nil
            let old = configuration.withLock { configuration in
                defer { configuration.remoteMerging = merging }
                return configuration.remoteMerging
            }
            old?.stop()
        }
    }

    public var description: String {
        "<ManagedObjectContext \(name ?? "unnamed") \(concurrencyType)>"
    }

    // MARK: Inserting and deleting

    /// Inserts a new object; it is saved at the next ``save()``. Calls
    /// ``ManagedObject/awakeFromInsert()``. Inserting an object that is
    /// already in this context does nothing.
    public func insert(_ object: ManagedObject) {
        _assertOnQueue()
        if object._belongs(to: self) { return }
        require(!object._hasContext, "Coherence: \(object) belongs to another context")
        require(!object._access.contains(.invalidated), "Coherence: \(object) was invalidated and cannot be inserted again")
        let entity = entity(toInsert: object)
        // Core Data raises for an object of an abstract entity; stop, naming it.
        if entity.isAbstract { fatalError("Coherence: \(entity.name) is an abstract entity and cannot be instantiated; insert an object of one of its sub-entities") }
        object._setInitialValues(entity: entity)
        register(inserted: object, entity: entity)
        derivationTouched(object)
        object.awakeFromInsert()
    }

    /// Registers a new object as inserted (without `awakeFromInsert`, which
    /// a child's save into its parent does not repeat).
    func register(inserted object: ManagedObject, entity: EntityDescription) {
        object._entity = entity
        object._contextRef = self
        object._flags.inserted(contextFlags: registrationAccess)
        register(object, as: object.objectID)
        tracker.inserted.insert(object)
        tracker.pendingInserted.insert(object)
    }

    /// Marks an object for deletion at the next save. Its delete rules run at
    /// the next ``processPendingChanges()``. Deleting an inserted object
    /// discards it; deleting an object already marked for deletion does
    /// nothing.
    ///
    /// An object that belongs to no context (never inserted, or invalidated
    /// by a reset or a saved deletion) and a fault whose row another context
    /// deleted are left as they are, as Core Data leaves them (its
    /// `shouldDeleteInaccessibleFaults` is on by default). An object of
    /// another context is a programming error: like Core Data, which raises
    /// ("An NSManagedObjectContext cannot delete objects in other contexts"),
    /// this stops the program with a message naming the entity, in release
    /// builds too.
    public func delete(_ object: ManagedObject) {
        _assertOnQueue()
        guard object._belongs(to: self) else {
            // An object already out of every context (never inserted, its
            // context reset, its deletion saved) is left alone, as Core Data
            // leaves it; one of another context is a programming error.
            guard object._hasContext else { return }
            fatalError("Coherence: \(self) cannot delete \(object): the \(object.entityNameForMessages) belongs to another context; fetch it in this one with object(with: objectID)")
        }
        if object.isFault {
            // A fault whose row another context deleted is already gone
            // (Core Data's shouldDeleteInaccessibleFaults, on by default).
            guard faultIsInStore(object) else { return }
            _fulfillFault(object)
        }
        markDeleted(object)
    }

    /// Whether the context keeps every object it registered until the
    /// object leaves it, as Core Data's `retainsRegisteredObjects`. Off by
    /// default, as in Core Data, whose context holds its objects weakly: an
    /// object that no code holds is let go by a merge instead of announced,
    /// and faults nothing holds are swept. (Loaded objects otherwise stay
    /// until refreshed: Core Data frees them at the end of the autorelease
    /// pool's turn, which Swift has no equivalent of.) On, nothing is let go
    /// and every merged change to a registered object is announced.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/retainsregisteredobjects>
    public var retainsRegisteredObjects: Bool {
        get {
            _assertOnQueue()
            return registered.retainsObjects
        }
        set {
            _assertOnQueue()
            registered.retainsObjects = newValue
        }
    }

    // MARK: Unsaved changes

    /// Whether the context has unsaved insertions, deletions or updates.
    public var hasChanges: Bool {
        _assertOnQueue()
        return !tracker.inserted.isEmpty || !tracker.deleted.isEmpty
            || tracker.hasChangedObject { $0.isUpdated || !$0._foreignTargets.isEmpty }
    }

    /// Inserted objects not saved yet.
    public var insertedObjects: Set<ManagedObject> {
        _assertOnQueue()
        return tracker.inserted
    }

    /// Saved objects with unsaved changes.
    public var updatedObjects: Set<ManagedObject> {
        _assertOnQueue()
        return Set(tracker.changedObjects.filter { $0.isUpdated })
    }

    /// Saved objects marked for deletion.
    public var deletedObjects: Set<ManagedObject> {
        _assertOnQueue()
        return tracker.deleted
    }
}

/// The observation behind `automaticallyMergesChangesFromParent`: every
/// didSave of another context on the same coordinator is merged, on the
/// receiving context's queue.
private final class AutomaticMerging: @unchecked Sendable {
    // Set once in init, removed in stop(); NotificationCenter tokens are not Sendable.
    private var token: (any NSObjectProtocol)?

    init(for context: ManagedObjectContext) {
        token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
        ) { [weak context] notification in
            guard let context, let saver = notification.object as? ManagedObjectContext, saver !== context,
                  case let changes = notification.savedObjectIDs,
                  !changes.isEmpty else { return } // an empty save has nothing to merge
            // A nested context merges its parent's saves; a root context, the
            // store saves of the other root contexts of its coordinator.
            if let parent = context.parent {
                guard saver === parent else { return }
            } else {
                guard saver.parent == nil, let coordinator = context.persistentStoreCoordinator,
                      saver.persistentStoreCoordinator === coordinator else { return }
            }
            context.perform { context.mergeRemoteChanges(changes, budget: context.automaticMergeBudget) }
        }
    }

    func stop() {
        if let token { NotificationCenter.default.removeObserver(token) }
        token = nil
    }
}

/// A weak reference to a nested context, for its parent's list of children.
struct WeakContext: @unchecked Sendable {
    weak var context: ManagedObjectContext?
}
