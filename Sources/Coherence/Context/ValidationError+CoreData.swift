import Foundation

/// Core Data's `NSValidationMultipleErrorsError` (1560): several validation
/// errors, listed under ``NSDetailedErrorsKey``.
public let NSValidationMultipleErrorsError = 1560
/// Core Data's `NSManagedObjectValidationError` (1550): a generic validation
/// error.
public let NSManagedObjectValidationError = 1550
/// Core Data's `NSValidationMissingMandatoryPropertyError` (1570).
public let NSValidationMissingMandatoryPropertyError = 1570
/// Core Data's `NSValidationRelationshipLacksMinimumCountError` (1580).
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// Core Data's `NSValidationRelationshipExceedsMaximumCountError` (1590).
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// Core Data's `NSValidationRelationshipDeniedDeleteError` (1600).
public let NSValidationRelationshipDeniedDeleteError = 1600
/// Core Data's `NSDetailedErrorsKey`: the errors of a
/// ``NSValidationMultipleErrorsError``, in its `userInfo`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// Core Data's `NSValidationKeyErrorKey`: the property a validation error
/// is about, in its `userInfo`.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"

/// ``ValidationError`` as Core Data code reads it through `NSError`
/// (`error as NSError`): domain `NSCocoaErrorDomain`, Core Data's codes, and
/// for several errors ``NSDetailedErrorsKey`` with the list, each error that
/// a validation method threw as itself.
/// <https://developer.apple.com/documentation/coredata/nsvalidationmultipleerrorserror>
extension ValidationError: CustomNSError {
    /// `NSCocoaErrorDomain`, Core Data's domain.
    public static var errorDomain: String { NSCocoaErrorDomain }

    /// Core Data's code for the error (``NSValidationMultipleErrorsError``
    /// for ``multiple(_:)``).
    public var errorCode: Int {
        switch self {
        case .missingValue: NSValidationMissingMandatoryPropertyError
        case .deleteDenied: NSValidationRelationshipDeniedDeleteError
        case .tooFewDestinations: NSValidationRelationshipLacksMinimumCountError
        case .tooManyDestinations: NSValidationRelationshipExceedsMaximumCountError
        case .multiple: NSValidationMultipleErrorsError
        case .crossContextRelationship, .danglingReference, .invalidValue, .rejected: NSManagedObjectValidationError
        }
    }

    /// The description, the property under ``NSValidationKeyErrorKey``, and
    /// for ``multiple(_:)`` the errors under ``NSDetailedErrorsKey``.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        switch self {
        case .multiple(let errors):
            info[NSDetailedErrorsKey] = errors.map(\.thrownError) as [any Error]
        case .missingValue(_, let property), .deleteDenied(_, let property), .crossContextRelationship(_, let property, _),
             .danglingReference(_, let property, _), .invalidValue(_, let property, _),
             .tooFewDestinations(_, let property, _, _), .tooManyDestinations(_, let property, _, _):
            info[NSValidationKeyErrorKey] = property
        case .rejected(_, let property, _):
            if let property { info[NSValidationKeyErrorKey] = property }
        }
        return info
    }

    /// The error as Core Data reports it: what a validation method threw for
    /// ``rejected(entity:property:error:)``, the error itself otherwise.
    public var thrownError: any Error {
        if case .rejected(_, _, let error) = self { return error }
        return self
    }
}
