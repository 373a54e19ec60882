import Foundation

/// A bookmark in a store's persistent history, as Core Data's
/// `NSPersistentHistoryToken`: the store it belongs to and the number of the
/// last transaction it covers. Keep the token of the last transaction you
/// processed (it is `Codable`, so it can be written to disk) and fetch the
/// history after it at the next launch.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorytoken>
///
/// Tokens compare by store identifier, then by transaction number: within one
/// store, a later transaction has a greater token.
public struct PersistentHistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The identifier of the store whose history this token marks.
    public let storeIdentifier: String
    /// The number of the last transaction the token covers (0 before the
    /// first one). Numbers grow by one with every transaction of the store.
    public let transactionNumber: Int64

    /// A token for transaction `transactionNumber` of the store `storeIdentifier`.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Orders by store identifier, then by transaction number.
    public static func < (lhs: PersistentHistoryToken, rhs: PersistentHistoryToken) -> Bool {
        (lhs.storeIdentifier, lhs.transactionNumber) < (rhs.storeIdentifier, rhs.transactionNumber)
    }

    /// `storeIdentifier#transactionNumber`.
    public var description: String { "\(storeIdentifier)#\(transactionNumber)" }
}

/// The kind of a ``PersistentHistoryChange``, as Core Data's
/// `NSPersistentHistoryChangeType`.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorychangetype>
public enum PersistentHistoryChangeType: Int, Sendable, Hashable, Codable {
    /// The object was inserted.
    case insert = 0
    /// The object's values changed.
    case update = 1
    /// The object was deleted.
    case delete = 2
}

/// One object's change in a ``PersistentHistoryTransaction``, as Core Data's
/// `NSPersistentHistoryChange`.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorychange>
public struct PersistentHistoryChange: Sendable, Hashable {
    /// The change's number, unique in its store, in commit order.
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: ManagedObjectID
    /// Insert, update or delete.
    public let changeType: PersistentHistoryChangeType
    /// For an update, the names of the properties that changed (attributes
    /// and relationships; Core Data gives their descriptions); `nil` for an
    /// insertion or a deletion, and for an update whose properties the store
    /// does not know (rows a delete rule or a derived value changed in a batch
    /// request).
    public let updatedProperties: Set<String>?
    /// For a deletion, the values of the object's attributes declared with
    /// ``AttributeOption/preservesValueInHistoryOnDeletion``, by name, as store
    /// values (Core Data: `tombstone`, a dictionary of the preserved values);
    /// `nil` for other changes and for entities without such attributes.
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorychange/tombstone>
    public let tombstone: [String: StoreValue]?

    /// A change (used by stores that keep history).
    public init(changeID: Int64, changedObjectID: ManagedObjectID, changeType: PersistentHistoryChangeType,
                updatedProperties: Set<String>? = nil, tombstone: [String: StoreValue]? = nil) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

/// The changes of one save or one batch request, as a store's persistent
/// history keeps them, as Core Data's `NSPersistentHistoryTransaction`.
/// <https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction>
public struct PersistentHistoryTransaction: Sendable, Hashable {
    /// When the transaction committed.
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public let contextName: String?
    /// The transaction's number in its store (Core Data: `transactionNumber`).
    public let transactionNumber: Int64
    /// The identifier of the store the transaction changed.
    public let storeID: String
    /// The objects it changed, in the order the store wrote them; `nil` when
    /// the request asked for ``PersistentHistoryResultType/transactionsOnly``.
    public let changes: [PersistentHistoryChange]?

    /// A transaction (used by stores that keep history).
    public init(timestamp: Date, author: String?, contextName: String?, transactionNumber: Int64, storeID: String,
                changes: [PersistentHistoryChange]?) {
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.transactionNumber = transactionNumber
        self.storeID = storeID
        self.changes = changes
    }

    /// The token that marks this transaction: fetch the history after it to
    /// get the transactions that followed.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(storeIdentifier: storeID, transactionNumber: transactionNumber)
    }

    /// The IDs of the objects the transaction inserted, updated and deleted.
    public var objectIDChanges: ObjectIDChanges {
        var result = ObjectIDChanges()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: result.inserted.insert(change.changedObjectID)
            case .update: result.updated.insert(change.changedObjectID)
            case .delete: result.deleted.insert(change.changedObjectID)
            }
        }
        return result
    }

    /// A ``ManagedObjectContext/didSaveObjectIDsNotification`` carrying the
    /// transaction's inserted, updated and deleted object IDs, for
    /// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)-(Notification)``,
    /// as Core Data's `objectIDNotification()`:
    ///
    /// ```swift
    /// for transaction in transactions {
    ///     viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    ///     lastToken = transaction.token
    /// }
    /// ```
    /// <https://developer.apple.com/documentation/coredata/nspersistenthistorytransaction/objectidnotification()>
    public func objectIDNotification() -> Notification {
        Notification(name: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, userInfo: objectIDChanges.savedUserInfo)
    }
}
