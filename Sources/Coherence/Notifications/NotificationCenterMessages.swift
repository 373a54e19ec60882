import Foundation

// The context messages on Foundation's NotificationCenter: their conformances
// to NotificationCenter.MainActorMessage and NotificationCenter.AsyncMessage
// (https://developer.apple.com/documentation/foundation/notification-center-messages),
// Core Data's message identifiers, and the posting.
//
// On Apple platforms Foundation turns a posted Notification into a message
// for message observers with the type's `makeMessage(_:)`. Swift's Foundation
// on Linux (FoundationEssentials) has no such bridge: a posted Notification
// reaches only Notification observers, and a posted message only message
// observers. So on Linux a context posts both, in the same moment.

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.ObjectsDidChangeMessage: NotificationCenter.MainActorMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.WillSaveMessage: NotificationCenter.MainActorMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.DidSaveMessage: NotificationCenter.MainActorMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.DidSaveObjectIDsMessage: NotificationCenter.MainActorMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.DidMergeChangesMessage: NotificationCenter.MainActorMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.DidSaveObjectIDsAsyncMessage: NotificationCenter.AsyncMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension ManagedObjectContext.DidMergeChangesAsyncMessage: NotificationCenter.AsyncMessage {
    /// The context that posts the message.
    public typealias Subject = ManagedObjectContext
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.ObjectsDidChangeMessage> {
    /// ``ManagedObjectContext/ObjectsDidChangeMessage``, for `addObserver(of:for:using:)`.
    public static var objectsDidChange: Self { .init() }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.WillSaveMessage> {
    /// ``ManagedObjectContext/WillSaveMessage``, for `addObserver(of:for:using:)`.
    public static var willSave: Self { .init() }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.DidSaveMessage> {
    /// ``ManagedObjectContext/DidSaveMessage``, for `addObserver(of:for:using:)`.
    public static var didSave: Self { .init() }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.DidSaveObjectIDsMessage> {
    /// ``ManagedObjectContext/DidSaveObjectIDsMessage``, for `addObserver(of:for:using:)`.
    public static var didSaveObjectIDs: Self { .init() }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.DidMergeChangesMessage> {
    /// ``ManagedObjectContext/DidMergeChangesMessage``, for `addObserver(of:for:using:)`.
    public static var didMergeChanges: Self { .init() }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.DidSaveObjectIDsAsyncMessage> {
    /// ``ManagedObjectContext/DidSaveObjectIDsAsyncMessage``, for `addObserver(of:for:using:)`.
    public static var didSaveObjectIDsAsync: Self { .init() }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<ManagedObjectContext.DidMergeChangesAsyncMessage> {
    /// ``ManagedObjectContext/DidMergeChangesAsyncMessage``, for `addObserver(of:for:using:)`
    /// (https://developer.apple.com/documentation/foundation/notificationcenter/messageidentifier/didmergechangesasync).
    public static var didMergeChangesAsync: Self { .init() }
}

extension ManagedObjectContext {
    /// Posts on `NotificationCenter.default` the message form of a
    /// notification this context just posted, as Core Data does: a main-queue
    /// context posts the main-actor message (delivered before this returns),
    /// a private-queue context the asynchronous one where Core Data has one
    /// (didSaveObjectIDs, didMergeChangesObjectIDs).
    func postMessage(for notification: Notification) {
        #if !canImport(Darwin) // Apple's Foundation makes the messages from the notification itself.
        let center = NotificationCenter.default
        switch concurrencyType {
        case .mainQueue:
            require(isOnQueue, "Coherence: \(self) posted \(notification.name.rawValue) off the main queue; use the context's perform or performAndWait")
            // assumeIsolated runs its body at once, on this thread: nothing is sent anywhere.
            nonisolated(unsafe) let notification = notification
            MainActor.assumeIsolated {
                switch notification.name {
                case ObjectsDidChangeMessage.name: center.postMessage(ObjectsDidChangeMessage.self, of: notification, subject: self)
                case WillSaveMessage.name: center.postMessage(WillSaveMessage.self, of: notification, subject: self)
                case DidSaveMessage.name: center.postMessage(DidSaveMessage.self, of: notification, subject: self)
                case DidSaveObjectIDsMessage.name: center.postMessage(DidSaveObjectIDsMessage.self, of: notification, subject: self)
                case DidMergeChangesMessage.name: center.postMessage(DidMergeChangesMessage.self, of: notification, subject: self)
                default: break
                }
            }
        case .privateQueue:
            switch notification.name {
            case DidSaveObjectIDsAsyncMessage.name:
                if let message = DidSaveObjectIDsAsyncMessage.makeMessage(notification) { center.post(message, subject: self) }
            case DidMergeChangesAsyncMessage.name:
                if let message = DidMergeChangesAsyncMessage.makeMessage(notification) { center.post(message, subject: self) }
            default: break
            }
        }
        #endif
    }
}

extension NotificationCenter {
    /// Posts the main-actor message of `notification`.
    @MainActor
    fileprivate func postMessage<Message: NotificationCenter.MainActorMessage & ContextNotification>(
        _ type: Message.Type, of notification: Notification, subject: ManagedObjectContext
    ) where Message.Subject == ManagedObjectContext {
        if let message = Message.makeMessage(notification) { post(message, subject: subject) }
    }
}
