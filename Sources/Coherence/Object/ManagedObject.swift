import Foundation
import Observation

/// The base class of every entity's objects.
///
/// Declare an entity as a `final class` with `@Attribute` and
/// `@Relationship` properties, and create objects with `init(context:)`:
///
/// ```swift
/// final class FeedItem: ManagedObject {
///     @Attribute var title = ""
///     @Attribute var read = false
///     @Relationship var server: Server?
/// }
/// let item = FeedItem(context: context)
/// ```
///
/// An object belongs to one context and, like its context, to that context's
/// queue: use it only inside the context's `perform` blocks (or on the main
/// queue for a main-queue context). `ManagedObject` is deliberately not
/// `Sendable`; hand ``objectID`` to other queues instead. Debug builds stop the
/// program with a message naming the entity and the context when an object is
/// touched off its context's queue.
///
/// Equality is identity: one context holds at most one object per
/// ``ManagedObjectID``.
///
/// Objects are `Observable`: in a context that takes part in Observation
/// (a main-queue context, or one with ``ManagedObjectContext/isObservationEnabled``
/// set), reading a property inside `withObservationTracking` (or a SwiftUI
/// view) registers it, and any later change of the object — by your code, a
/// merge, a refresh, a rollback or inverse upkeep — notifies the observer.
open class ManagedObject: Hashable, CustomStringConvertible, Observable {
    // The object's bookkeeping is touched only on its context's queue, by
    // Coherence, in calls that never overlap; `@exclusivity(unchecked)`
    // spares every property access a run-time exclusivity check.
    // Declared in this order so that the three bytes of flags fill the
    // padding after the 20-byte optional ID: every object is 16 bytes
    // smaller than with them apart.
    @exclusivity(unchecked) final var _id: ManagedObjectID?
    /// The object's state flags; changed only by ``ObjectFlags``'s
    /// transitions (read them through `_access`, `_lifecycle`, `_listed`).
    @exclusivity(unchecked) @usableFromInline final var _flags = ObjectFlags()
    /// The owning context, not owned. Cleared by the context when it
    /// unregisters the object or is deinitialized, so it never dangles.
    /// Kept as `Unmanaged` so that testing it (``_hasContext``,
    /// ``_belongs(to:)``) retains nothing: loading an `unowned(unsafe)`
    /// reference retains it, and writes test it on every property.
    @exclusivity(unchecked) final var _context: Unmanaged<ManagedObjectContext>?
    /// The owning context (retained while the caller uses it).
    final var _contextRef: ManagedObjectContext? {
        get { _context?.takeUnretainedValue() }
        set { _context = newValue.map { Unmanaged.passUnretained($0) } }
    }
    /// Whether the object belongs to a context. Retains nothing.
    @inline(__always)
    final var _hasContext: Bool { _context != nil }
    /// Whether the object belongs to `context`. Retains nothing.
    @inline(__always)
    final func _belongs(to context: ManagedObjectContext) -> Bool {
        _context?.toOpaque() == Unmanaged.passUnretained(context).toOpaque()
    }
    @exclusivity(unchecked) final var _entity: EntityDescription?
    /// The last committed values, shared with the store's row cache.
    @exclusivity(unchecked) final var _snapshot: Snapshot?
    /// Where the current values not written since come from (see
    /// `ManagedObject+Values.swift`); usually the same as `_snapshot`.
    @exclusivity(unchecked) @usableFromInline final var _base: Snapshot?
    /// The values written since `_base`, in store form, by property index:
    /// `nil` for a value `_base` holds, `.some(nil)` for no value.
    @exclusivity(unchecked) @usableFromInline final var _values: ContiguousArray<StoreValue??> = []
    /// Which of the first 32 properties were written since the last save
    /// and since the last notification (see `ManagedObject+Tracking.swift`).
    @exclusivity(unchecked) final var _changes = InlineChangeMasks()
    /// What the object needs only sometimes, allocated on first need.
    @exclusivity(unchecked) @usableFromInline final var _extras: ObjectExtras?

    /// Created on the first property read while the object's context takes
    /// part in Observation (``ManagedObjectContext/isObservationEnabled``):
    /// objects of other contexts carry none.
    @inlinable final var _observation: ObservationBox? { _extras?.observation }

    /// Creates an object that belongs to no context yet. Prefer
    /// ``init(context:)``; an object created this way joins a context with
    /// ``ManagedObjectContext/insert(_:)``. Subclasses inherit this
    /// initializer; Coherence also uses it to create fetched objects.
    public required init() {}

    /// Creates an object and inserts it into `context`, which calls
    /// ``awakeFromInsert()``.
    public convenience init(context: ManagedObjectContext) {
        self.init()
        context.insert(self)
    }

    /// The entity name of this class: the class name unless overridden.
    open class var entityName: String {
        String(describing: self)
    }

    /// The entity's previous name, for lightweight migration of a store
    /// saved when the entity had that name.
    open class var renamingIdentifier: String? { nil }

    /// Previous names of this entity's properties, for lightweight migration:
    /// `["headline": "title"]` when `title` was renamed to `headline`.
    open class var propertyRenamingIdentifiers: [String: String] { [:] }

    /// The entity's fetch indexes, as Core Data's `NSEntityDescription.indexes`
    /// (SwiftData's `#Index`): each inner array names the attributes of one
    /// index, in order: `[["title"], ["rank", "title"]]`. Only attributes
    /// can be indexed; the model throws ``ModelError/invalidIndex(entity:property:reason:)``
    /// for anything else.
    ///
    /// The SQLite store creates the indexes when it opens the store, and
    /// drops the ones no longer declared. A fetch sorted in ascending order
    /// by an index's attributes, in order, with `SortDescriptor`'s default
    /// string comparison and no predicate, then walks the index and reads
    /// only the rows it returns: a page of 20 sorted objects costs about as
    /// much as 20 unsorted ones. Other fetches are not sure to use it
    /// (descending sorts walk it but sort ties again; predicates on strings,
    /// which compare bytes, cannot use it; SQLite decides for the rest). String attributes are indexed in
    /// `String`'s `Comparable` order, the order of `SortDescriptor(\.title)`
    /// on Linux; the store rebuilds such indexes if that order ever changes
    /// (a new Unicode version). Because of that order, tools that lack
    /// Coherence's collation (the `sqlite3` shell) can read such a table but
    /// not write to it. An index speeds up fetches and slows down saves a
    /// little.
    open class var indexes: [[String]] { [] }

    /// Core Data's uniqueness constraints: each inner array names attributes
    /// (one, or several for a compound constraint) whose values no two
    /// objects of the entity may share. `nil` values never conflict, as in
    /// SQL. The SQLite store enforces each with a unique index, so that two
    /// processes cannot both insert.
    ///
    /// A save that would break a constraint is a constraint conflict, which
    /// the context's ``ManagedObjectContext/mergePolicy`` resolves:
    /// - `.error` throws ``MergeError`` listing each conflict in
    ///   ``MergeError/constraintConflicts``, and saves nothing;
    /// - `.mergeByPropertyObjectTrump` and `.overwrite` turn the insertion
    ///   into an update of the existing object (an upsert): it keeps its
    ///   object ID and takes the inserted object's attribute values;
    /// - `.mergeByPropertyStoreTrump` and `.rollback` do the same but keep
    ///   the existing object's attribute values.
    ///
    /// Either way the inserted duplicates are deleted from the context after
    /// their relationships were added to the surviving object (to-one ones
    /// where the survivor has none or, with the object-trump policies,
    /// always; to-many ones are joined). Several insertions equal to each
    /// other and to no stored object merge into the first inserted, or into
    /// the saved object that already had the values (changed in other
    /// properties by the same save). A saved object changed so that it
    /// equals another one is reported as a conflict under every policy:
    /// Coherence does not delete a saved object to resolve it (Core Data's
    /// policies may).
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/uniquenessconstraints>
    open class var uniquenessConstraints: [[String]] { [] }

    /// Whether the entity is abstract, as Core Data's
    /// `NSEntityDescription.isAbstract`: it has no objects of its own, only
    /// objects of its sub-entities (subclasses listed in the model). A model
    /// file's entities are abstract as the file says.
    /// Inserting an object of an abstract entity traps, naming the entity,
    /// where Core Data raises an exception.
    ///
    /// A Swift class var is inherited, an entity's abstractness is not: a
    /// class whose parent entity is abstract is concrete whatever it returns,
    /// so that `final class Car: Vehicle` is concrete when `Vehicle` is
    /// abstract: a class counts as abstract only where it says so and its
    /// superclass (an entity's class or a base class that is none) does not.
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/isabstract>
    open class var isAbstract: Bool { false }

    // MARK: Identity and state

    /// The object's ID: temporary until the object is saved, permanent after.
    public final var objectID: ManagedObjectID {
        if let id = _id { return id }
        // A plain `ManagedObject` of a model file's entity without a class
        // (`init(entity:insertInto:)`) stands for its entity's class.
        let id = ManagedObjectID.temporary(for: _entity?.managedObjectClass ?? type(of: self))
        _id = id
        return id
    }

    /// The context the object belongs to; `nil` before insertion and after the
    /// object was invalidated (its context was reset, or it was deleted and
    /// the deletion saved).
    public final var managedObjectContext: ManagedObjectContext? { _contextRef }

    /// The object's entity, as Core Data's `entity`: the description it
    /// was inserted with. An object created with `init()` and never inserted
    /// has the entity of the last model built with its class
    /// (``entity()``).
    public final var entity: EntityDescription {
        _entity ?? Self.entity()
    }

    /// Whether the object was inserted and the insertion is not saved yet.
    public final var isInserted: Bool { _lifecycle.contains(.inserted) }

    /// Whether the object will be deleted at the next save.
    public final var isDeleted: Bool { _lifecycle.contains(.deleted) }

    /// Whether the object's values have not been loaded yet. Reading any
    /// property loads them ("fires the fault").
    public final var isFault: Bool { _access.contains(.fault) }

    /// Whether the object is saved and has property values that differ from
    /// the committed ones. A change that was undone does not count.
    public final var isUpdated: Bool {
        guard _hasContext, _lifecycle.isEmpty else { return false }
        return _hasChangedValues
    }

    /// Whether the object is inserted, deleted or updated.
    public final var hasChanges: Bool {
        guard _hasContext else { return false }
        return !_lifecycle.isEmpty || _hasChangedValues
    }

    /// The last saved values of the named properties (all properties for
    /// `nil`), in the form ``changedValues()`` uses. Empty for an object that
    /// was never saved.
    public final func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard let entity = _entity, let snapshot = _snapshot ?? _contextRef?._committedSnapshot(of: self) else { return [:] }
        var result: [String: Any] = [:]
        for name in keys ?? entity.propertyNames {
            guard let index = entity.indexByName[name] else { continue }
            result[name] = _swiftValue(snapshot.values[index], at: index, entity: entity)
        }
        return result
    }

    /// The value of the named property, as Core Data's `value(forKey:)`:
    /// an attribute's Swift value, a to-one relationship's object, a to-many
    /// relationship's `Set<ManagedObject>` (an `NSOrderedSet` for an
    /// ordered relationship, as in Core Data); `nil` when it has no value (an
    /// optional attribute that is `nil`, an empty to-one relationship).
    ///
    /// A key the entity does not have goes to ``value(forUndefinedKey:)``,
    /// as in Core Data (<https://developer.apple.com/documentation/coredata/nsmanagedobject/value(forkey:)>).
    /// Reading an object that was never inserted stops the program with a
    /// message naming the entity and the key, in release builds too.
    public final func value(forKey key: String) -> Any? {
        guard let entity = _entity else {
            fatalError("Coherence: cannot read \(Self.entityName).\(key): the object belongs to no context; insert it first")
        }
        guard let index = entity.indexByName[key] else { return value(forUndefinedKey: key) }
        return _readProperty(at: index, entity: entity)
    }

    /// The value of a key that is not a property of the entity, asked for by
    /// ``value(forKey:)``: Foundation's `value(forUndefinedKey:)`. Core Data
    /// reads a class's computed `@objc` properties by name through the
    /// Objective-C runtime, which Linux does not have; override this to
    /// offer them by name, for a fetched results controller's
    /// `sectionNameKeyPath` or any code that reads values by key:
    ///
    /// ```swift
    /// var initial: String { String(name.prefix(1)) }   // Core Data: @objc var initial
    ///
    /// override func value(forUndefinedKey key: String) -> Any? {
    ///     key == "initial" ? initial : super.value(forUndefinedKey: key)
    /// }
    /// ```
    ///
    /// The default stops the program with a message naming the entity and
    /// the key, in release builds too, as Foundation raises
    /// `NSUndefinedKeyException`.
    /// <https://developer.apple.com/documentation/objectivec/nsobject-swift.class/value(forundefinedkey:)>
    open func value(forUndefinedKey key: String) -> Any? {
        fatalError("Coherence: \(_entity?.name ?? Self.entityName) is not key value coding-compliant for the key \"\(key)\": "
                   + "the entity has no such property (override value(forUndefinedKey:) to offer a computed one)")
    }

    /// Sets the named attribute or relationship, with change tracking, like
    /// assigning the property.
    /// - Parameter key: the property's name.
    /// - Parameter value: a value of the attribute's Swift type (`nil` or
    ///   `NSNull()` for an optional one), a `ManagedObject` (or `nil`) for a
    ///   to-one relationship, a sequence of `ManagedObject`s for a to-many
    ///   relationship (an `NSOrderedSet` or an array for an ordered one,
    ///   whose order it takes).
    ///
    /// Like Core Data's key-value coding, which raises an exception for an
    /// unknown key (`NSUnknownKeyException`) or a value of the wrong type,
    /// this stops the program with a message naming the entity and the key,
    /// in release builds too, for a key the entity does not have, a value of
    /// the wrong type, a `@Derived` property (Coherence computes it), or an
    /// object that belongs to no context (never inserted, or invalidated).
    public final func setValue(_ value: Any?, forKey key: String) {
        guard !_access.contains(.invalidated) else {
            fatalError("Coherence: cannot set \(Self.entityName).\(key): the object was invalidated (its context was reset or its deletion saved)")
        }
        guard let entity = _entity else {
            fatalError("Coherence: cannot set \(Self.entityName).\(key): the object belongs to no context; insert it first")
        }
        guard let index = entity.indexByName[key] else {
            fatalError("Coherence: \(entity.name) is not key value coding-compliant for the key \"\(key)\": the entity has no such property")
        }
        _setValue(value, at: index, entity: entity)
    }

    /// ``setValue(_:forKey:)`` for the property at `index` of `entity`, the
    /// object's entity. `announce: false` is for a property setter that
    /// tells Observation about its own attribute (`@Managed`); otherwise a
    /// write of an attribute is announced as a change of the whole object.
    final func _setValue(_ value: Any?, at index: Int, entity: EntityDescription, announce: Bool = true) {
        var key: String { entity.propertyName(at: index) } // for messages only
        if let relationship = entity.relationship(at: index) {
            var objects: [ManagedObject]?
            if value == nil || value is NSNull {
                // No destination; for a to-many relationship (an `NSSet?`
                // set to `nil`), none either.
                objects = []
            } else if let object = value as? ManagedObject, !relationship.isToMany {
                objects = [object]
            } else if let sequence = value as? any Sequence, relationship.isToMany,
                      !relationship.isOrdered || !(value is NSSet || value is any SetAlgebra) {
                // An ordered relationship takes an ordered collection: a set has no order to keep.
                objects = Array(sequence) as? [ManagedObject]
            }
            guard let objects, objects.allSatisfy({ $0._isDestination(of: relationship) }) else {
                let expected = relationship.isOrdered ? "an NSOrderedSet (or an array) of \(relationship.destinationEntityName)"
                    : relationship.isToMany ? "Set<\(relationship.destinationEntityName)>" : "\(relationship.destinationEntityName)?"
                fatalError("Coherence: unacceptable value for \(entity.name).\(key): expected \(expected), got \(Self._typeName(of: value))")
            }
            _setRelationship(index: index, to: objects)
            return
        }
        let attribute = entity.attributes[index]
        guard !attribute.isDerived else {
            fatalError("Coherence: cannot set \(entity.name).\(key): the property is derived; Coherence keeps it current")
        }
        _prepareForWriteAt(index: index, announce: announce)
        guard attribute.setSwiftValue(value is NSNull ? nil : value, of: self) else {
            fatalError("Coherence: unacceptable value for \(entity.name).\(key): expected \(attribute.valueType), got \(Self._typeName(of: value))")
        }
    }

    /// Whether this object can be a destination of `relationship`: an
    /// object of its destination entity or of a sub-entity.
    final func _isDestination(of relationship: RelationshipDescription) -> Bool {
        guard let entity = _entity else { return isSameOrSubclass(type(of: self), of: relationship.destinationType) }
        return entity.isKind(ofEntityNamed: relationship.destinationEntityName)
    }

    private static func _typeName(of value: Any?) -> String {
        value.map { "\(type(of: $0))" } ?? "nil"
    }

    // MARK: Lifecycle hooks

    /// Called once, when the object is inserted into a context. Set initial
    /// values that depend on the moment of insertion here.
    open func awakeFromInsert() {}

    /// Called when the object's values are loaded from the store (when a fault
    /// fires, including objects returned by a fetch).
    open func awakeFromFetch() {}

    /// Called for each inserted, updated and deleted object during a save,
    /// after the willSave notification and before validation. Changes made
    /// here are saved too. A change made through a property is announced by
    /// a further didChangeObjects during the save; to stamp a value (a
    /// modification date) without announcing it, set it with
    /// ``setPrimitiveValue(_:forKey:)``, as in Core Data.
    open func willSave() {}

    /// Called for each saved object after the store committed, before the
    /// didSave notification.
    open func didSave() {}

    // MARK: Validation

    /// Checks that the object can be inserted as it is. A save calls it for
    /// each inserted object, after ``willSave()``; an error thrown here fails
    /// the save, with nothing written and the changes still pending.
    ///
    /// The default implementation checks that required attributes have
    /// values and that relationships point at live objects of this context,
    /// then calls ``validateValue(_:forKey:)`` for each attribute that has a
    /// value (derived ones excepted) and each relationship whose destinations
    /// are loaded, and throws what it found: one ``ValidationError``, or
    /// ``ValidationError/multiple(_:)``. Override it to check combinations of
    /// values; as Core Data asks, call `super` first and combine its error
    /// with yours:
    ///
    /// ```swift
    /// override func validateForInsert() throws {
    ///     var errors: [ValidationError] = []
    ///     do { try super.validateForInsert() } catch let error as ValidationError { errors = error.errors }
    ///     if endDate < startDate {
    ///         errors.append(.rejected(entity: "Event", property: nil, error: EventError.endsBeforeStart))
    ///     }
    ///     if errors.count == 1 { throw errors[0] }
    ///     if !errors.isEmpty { throw ValidationError.multiple(errors) }
    /// }
    /// ```
    ///
    /// During a save, the checks of required values, relationships and
    /// `.deny` rules run even if an override does not call `super`, so that
    /// a save never writes an incomplete object (a departure from Core Data,
    /// where an override that skips `super` skips them).
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/validateforinsert()>
    open func validateForInsert() throws {
        try _validateProperties()
    }

    /// Checks that the object's changed state can be saved. A save calls it
    /// for each updated object, after ``willSave()``; the default
    /// implementation and the rules for overriding it are those of
    /// ``validateForInsert()``, except that ``validateValue(_:forKey:)`` is
    /// called for the changed relationships only (the others were valid when
    /// saved, and reading a to-many relationship makes an object of each
    /// destination).
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/validateforupdate()>
    open func validateForUpdate() throws {
        try _validateProperties()
    }

    /// Checks that the object can be deleted. A save calls it for each
    /// deleted object; the default implementation throws
    /// ``ValidationError/deleteDenied(entity:property:)`` for each `.deny`
    /// relationship that still has destinations. Call `super` first when
    /// overriding, as for ``validateForInsert()``.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/validatefordelete()>
    open func validateForDelete() throws {
        try _validateDeletion()
    }

    /// Checks one property's value, Core Data's per-property validation.
    /// The default ``validateForInsert()`` and ``validateForUpdate()`` call
    /// it with the current value of each attribute and loaded relationship
    /// (of an updated object, each changed relationship)
    /// (`nil` for an optional attribute that is `nil` or an empty to-one
    /// relationship; a to-many relationship's value is a `Set<ManagedObject>`,
    /// an ordered one's an `NSOrderedSet`).
    /// Throw to reject the value: a ``ValidationError`` is reported as it is,
    /// any other error as ``ValidationError/rejected(entity:property:error:)``
    /// naming the key.
    ///
    /// ```swift
    /// override func validateValue(_ value: inout Any?, forKey key: String) throws {
    ///     try super.validateValue(&value, forKey: key)
    ///     if key == "title", (value as? String)?.isEmpty == true { throw FeedError.emptyTitle }
    /// }
    /// ```
    ///
    /// The default implementation throws ``ValidationError/missingValue(entity:property:)``
    /// for `nil` and a required attribute. Called during a save, a value the
    /// method replaces is not stored: change values in ``willSave()``.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/validatevalue(_:forkey:)>
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        try _validateRequiredValue(value, forKey: key)
    }

    /// Called when the context applies the deletion of this object (in
    /// `processPendingChanges()`), before the delete rules run.
    open func prepareForDeletion() {}

    /// Called before the object turns into a fault: on `refresh`, on
    /// `reset()`, and after its deletion was saved. Stop observing here.
    open func willTurnIntoFault() {}

    /// Called after the object turned into a fault.
    open func didTurnIntoFault() {}

    // MARK: Description (Hashable: ManagedObject+Hashing.swift)

    open var description: String {
        var state: [String] = []
        if isFault { state.append("fault") }
        if isInserted { state.append("inserted") }
        if isDeleted { state.append("deleted") }
        if _access.contains(.invalidated) { state.append("invalidated") }
        let suffix = state.isEmpty ? "" : " (\(state.joined(separator: ", ")))"
        return "<\(entityNameForMessages) \(objectID)\(suffix)>"
    }
}

/// An object's Observation registrar, boxed: `ObservationRegistrar` is a
/// resilient type, so a copy of one out of the object (on every property
/// read) would go through its value witnesses; a box is one retain.
@usableFromInline
final class ObservationBox {
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline init() {}
}
