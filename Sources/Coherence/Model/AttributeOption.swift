
/// How an `@Attribute` is kept, beyond its type: `@Attribute(.transient)`.
public struct AttributeOption: Hashable, Sendable, CustomStringConvertible {
    let name: String

    /// Core Data's transient attribute: the context tracks it like any other
    /// (a change of it makes the object updated, is announced in
    /// didChangeObjects, is undone by `rollback()` and by
    /// `refresh(_:mergeChanges: false)`), but no store keeps it. As in Core
    /// Data, ``ManagedObject/changedValues()`` reports only persistent
    /// properties, so it leaves transient ones out. An object loaded from the store has the declared
    /// initial value. The SQLite store cannot filter on it: a predicate that
    /// reads it needs ``FetchRequest/evaluatesPredicateInMemory``; sorting by
    /// it works (in memory).
    /// <https://developer.apple.com/documentation/coredata/nspropertydescription/istransient>
    public static let transient = AttributeOption(name: "transient")

    /// SwiftData's name for ``transient``: `@Attribute(.ephemeral)` ("track
    /// changes to this property but don't persist them").
    /// <https://developer.apple.com/documentation/swiftdata/schema/attribute/option/ephemeral>
    public static let ephemeral = transient

    /// Core Data's `preservesValueInHistoryOnDeletion`: when an object is
    /// deleted, persistent history keeps this attribute's value in the
    /// deletion's ``PersistentHistoryChange/tombstone``, so that a process
    /// that merges the history later knows what was deleted (an identifier
    /// kept in another system, a title to show):
    /// `@Attribute(.preservesValueInHistoryOnDeletion) var remoteID = ""`.
    /// <https://developer.apple.com/documentation/coredata/nsattributedescription/preservesvalueinhistoryondeletion>
    public static let preservesValueInHistoryOnDeletion = AttributeOption(name: "preservesValueInHistoryOnDeletion")

    public var description: String { "." + name }
}
