/// Core Data's `NSMergePolicyType`: the kind of a ``MergePolicy``, as Core
/// Data code passes it to `NSMergePolicy(merge:)`.
/// <https://developer.apple.com/documentation/coredata/nsmergepolicytype>
public enum MergePolicyType: Sendable, Hashable {
    /// ``MergePolicy/error``.
    case errorMergePolicyType
    /// ``MergePolicy/mergeByPropertyStoreTrump``.
    case mergeByPropertyStoreTrumpMergePolicyType
    /// ``MergePolicy/mergeByPropertyObjectTrump``.
    case mergeByPropertyObjectTrumpMergePolicyType
    /// ``MergePolicy/overwrite``.
    case overwriteMergePolicyType
    /// ``MergePolicy/rollback``.
    case rollbackMergePolicyType
}

extension MergePolicy {
    /// The policy of `type`, as Core Data's `NSMergePolicy(merge:)`:
    /// `context.mergePolicy = MergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)`.
    /// <https://developer.apple.com/documentation/coredata/nsmergepolicy/init(merge:)>
    public init(merge type: MergePolicyType) {
        switch type {
        case .errorMergePolicyType: self = .error
        case .mergeByPropertyStoreTrumpMergePolicyType: self = .mergeByPropertyStoreTrump
        case .mergeByPropertyObjectTrumpMergePolicyType: self = .mergeByPropertyObjectTrump
        case .overwriteMergePolicyType: self = .overwrite
        case .rollbackMergePolicyType: self = .rollback
        }
    }

    /// The policy's kind, as Core Data's `NSMergePolicy.mergeType`.
    public var mergeType: MergePolicyType {
        switch self {
        case .error: .errorMergePolicyType
        case .mergeByPropertyStoreTrump: .mergeByPropertyStoreTrumpMergePolicyType
        case .mergeByPropertyObjectTrump: .mergeByPropertyObjectTrumpMergePolicyType
        case .overwrite: .overwriteMergePolicyType
        case .rollback: .rollbackMergePolicyType
        }
    }
}

/// Core Data's `NSErrorMergePolicy`: ``MergePolicy/error``.
public let ErrorMergePolicy = MergePolicy.error
/// Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`: ``MergePolicy/mergeByPropertyStoreTrump``.
public let MergeByPropertyStoreTrumpMergePolicy = MergePolicy.mergeByPropertyStoreTrump
/// Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`: ``MergePolicy/mergeByPropertyObjectTrump``.
public let MergeByPropertyObjectTrumpMergePolicy = MergePolicy.mergeByPropertyObjectTrump
/// Core Data's `NSOverwriteMergePolicy`: ``MergePolicy/overwrite``.
public let OverwriteMergePolicy = MergePolicy.overwrite
/// Core Data's `NSRollbackMergePolicy`: ``MergePolicy/rollback``.
public let RollbackMergePolicy = MergePolicy.rollback
