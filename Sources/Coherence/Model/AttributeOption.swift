import Foundation
import Synchronization

/// How an ``Attribute`` is kept, beyond its type: `@Attribute(.transient)`.
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

extension Attribute {
    /// An attribute with options and an initial value:
    /// `@Attribute(.transient) var isEditing = false`.
    public init(wrappedValue: Value, _ options: AttributeOption...) {
        storage = AttributeOptionRecorder.record(options) ? nil : wrappedValue
    }

    /// An optional attribute with options and no initial value (`nil`):
    /// `@Attribute(.transient) var draft: String?`.
    public init(_ options: AttributeOption...) where Value: ExpressibleByNilLiteral {
        storage = AttributeOptionRecorder.record(options) ? nil : .some(nil)
    }
}

/// How the model learns which attributes were declared with options, which
/// an ``Attribute`` does not keep (that would cost every object memory).
///
/// While the model builds an entity's prototype, each ``Attribute`` initializer
/// given options lists them here, in declaration order. If there were any,
/// the model builds a second prototype during which those initializers leave
/// their wrapper without a value: the attributes that have a value in the
/// first prototype and none in the second are the ones with options, in the
/// order the initializers ran (declaration order within a class; the model
/// checks that the counts agree). Recording is per thread, so objects made
/// on other threads meanwhile are not affected, and costs them one atomic
/// load. Process-wide state: a lock held while a prototype is made (a
/// prototype's `init` must not build another model) and the recording.
enum AttributeOptionRecorder {
    enum Mode {
        case listing
        case marking
    }

    private struct State {
        var thread: pthread_t?
        var mode: Mode = .listing
        var options: [[AttributeOption]] = []
    }

    private static let state = Locked(State())

    /// Runs `body` (which makes a prototype) with recording in `mode` on
    /// this thread; returns the options listed.
    static func recording(_ mode: Mode, _ body: () -> Void) -> [[AttributeOption]] {
        // One model builds at a time while recording.
        lock.lock()
        defer { lock.unlock() }
        state.withLock { $0 = State(thread: pthread_self(), mode: mode) }
        isRecording.store(true, ordering: .releasing)
        defer { isRecording.store(false, ordering: .releasing) }
        body()
        return state.withLock { state in
            defer { state = State() }
            return state.options
        }
    }

    /// Whether some thread records: objects made while none does (every
    /// object after the model is built) take no lock.
    private static let isRecording = Atomic<Bool>(false)

    private static let lock = NSLock()

    /// Called by the initializers with options: lists them when this thread
    /// records, and says whether to leave the wrapper without a value.
    static func record(_ options: [AttributeOption]) -> Bool {
        guard isRecording.load(ordering: .acquiring) else { return false }
        return state.withLock { state in
            guard let thread = state.thread, pthread_equal(thread, pthread_self()) != 0 else { return false }
            state.options.append(options)
            return state.mode == .marking
        }
    }
}
