/// Flags that make a property read take the slow path.
@usableFromInline
struct AccessState: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @usableFromInline init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The property values have not been loaded from the snapshot yet.
    @usableFromInline static let fault = AccessState(rawValue: 1 << 0)
    /// The object no longer belongs to a context.
    @usableFromInline static let invalidated = AccessState(rawValue: 1 << 1)
    /// A model-building prototype: reads record which property was read.
    @usableFromInline static let prototype = AccessState(rawValue: 1 << 2)
}

/// Where an object is in its context's unit of work.
struct LifecycleState: OptionSet {
    let rawValue: UInt8
    /// Inserted and not saved yet.
    static let inserted = LifecycleState(rawValue: 1 << 0)
    /// Marked for deletion at the next save.
    static let deleted = LifecycleState(rawValue: 1 << 1)
    /// Inserted, and no didChangeObjects has announced it yet: writes need no
    /// change tracking, since the insertion announces the object whole.
    static let insertionUnannounced = LifecycleState(rawValue: 1 << 2)
}

/// What a context records about one object's unsaved and unannounced changes.
/// Allocated on the first change, so unchanged objects carry no tracking.
final class ObjectTracking {
    /// The store form of each property written since the last
    /// didChangeObjects notification, as it was before the first write
    /// (`.some(nil)`: it had no value). Compared with the current value to
    /// tell a real update from a change that was undone.
    var notifiedValues: [Int: StoreValue?] = [:]
    /// Properties written since the last save.
    var changedProperties: Set<Int> = []
    /// Relationships assigned an object of another context, or no context,
    /// with a description of that object; the next save throws for each.
    var foreignTargets: [Int: String] = [:]
    /// For prototypes: the offset of the last property read.
    var recordedOffset: Int?

    func copy() -> ObjectTracking {
        let copy = ObjectTracking()
        copy.notifiedValues = notifiedValues
        copy.changedProperties = changedProperties
        copy.foreignTargets = foreignTargets
        return copy
    }
}
