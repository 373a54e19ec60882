import Foundation

/// A typed view of one kind of context notification: the message types
/// nested in ``ManagedObjectContext`` (``ManagedObjectContext/ObjectsDidChangeMessage``,
/// ``ManagedObjectContext/DidSaveMessage`` and the others), Core Data's
/// names for them.
///
/// Read a posted `Notification` with ``makeMessage(_:)``, observe one context
/// with ``ManagedObjectContext/addObserver(for:using:)``, iterate
/// ``ManagedObjectContext/events(for:)`` from Swift concurrency, or observe
/// the messages on `NotificationCenter` with Foundation's
/// `addObserver(of:for:using:)` (see ``ManagedObjectContext/ObjectsDidChangeMessage``).
public protocol ContextNotification {
    /// The `Sendable` summary the async sequences carry.
    associatedtype Event: Sendable
    /// The name of the `Notification` this message corresponds to.
    static var name: Notification.Name { get }
    /// The typed view of a posted notification, or `nil` if `notification`
    /// is of another kind or was not posted by a context.
    static func makeMessage(_ notification: Notification) -> Self?
    /// The `Sendable` summary of this message.
    var event: Event { get }
}

extension Notification {
    /// The managed objects under `key` in userInfo; empty if there are none.
    func managedObjects(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObject> {
        userInfo?[key.rawValue] as? Set<ManagedObject> ?? []
    }

    /// The object IDs under `key` in userInfo; empty if there are none.
    func objectIDs(_ key: ManagedObjectContext.NotificationKey) -> Set<ManagedObjectID> {
        userInfo?[key.rawValue] as? Set<ManagedObjectID> ?? []
    }

    /// The posting context, if this is a context notification named `name`.
    func context(named name: Notification.Name) -> ManagedObjectContext? {
        guard self.name == name else { return nil }
        return object as? ManagedObjectContext
    }
}
