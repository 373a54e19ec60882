/// Why a save was refused. The store and the context are left as they were,
/// the changes still pending.
///
/// Like Core Data's `NSValidationMultipleErrorsError`, one save that finds
/// several problems reports them all, as ``multiple(_:)``.
public enum ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A required (non-optional) attribute has no value: declared without
    /// an initial value and never set, or set to `nil` through key-value
    /// coding or `setPrimitiveValue`.
    case missingValue(entity: String, property: String)
    /// A relationship with the `.deny` delete rule still has destinations, so
    /// its object cannot be deleted.
    case deleteDenied(entity: String, property: String)
    /// A relationship was given an object of another context (or of no
    /// context, or an invalidated one).
    case crossContextRelationship(entity: String, property: String, destination: String)
    /// A relationship points at an object that is deleted (or was inserted
    /// and deleted again), for example after a `.noAction` delete rule.
    case danglingReference(entity: String, property: String, destination: String)
    /// An attribute's value cannot be converted to its store form.
    case invalidValue(entity: String, property: String, reason: String)
    /// A to-many relationship holds fewer destinations than its model's
    /// minimum count (``RelationshipDescription/minCount``), as Core Data's
    /// `NSValidationRelationshipLacksMinimumCountError`.
    case tooFewDestinations(entity: String, property: String, count: Int, minimum: Int)
    /// A to-many relationship holds more destinations than its model's
    /// maximum count (``RelationshipDescription/maxCount``), as Core Data's
    /// `NSValidationRelationshipExceedsMaximumCountError`.
    case tooManyDestinations(entity: String, property: String, count: Int, maximum: Int)
    /// An object's own validation rejected it: its
    /// ``ManagedObject/validateForInsert()``, ``ManagedObject/validateForUpdate()``
    /// or ``ManagedObject/validateForDelete()`` threw `error`, or its
    /// ``ManagedObject/validateValue(_:forKey:)`` did for `property`. A
    /// ``ValidationError`` thrown there is reported as itself instead.
    /// Two of these are equal when their entity, property and the
    /// `String(reflecting:)` of their errors are.
    case rejected(entity: String, property: String?, error: any Error)
    /// Several of the above, in the order found.
    case multiple([ValidationError])

    /// The individual errors (one, unless ``multiple(_:)``).
    public var errors: [ValidationError] {
        if case .multiple(let errors) = self { return errors }
        return [self]
    }

    /// `errors` as one error: nothing for none, the error itself for one,
    /// ``multiple(_:)`` for several.
    static func combining(_ errors: [ValidationError]) -> ValidationError? {
        errors.count > 1 ? .multiple(errors) : errors.first
    }

    public var description: String {
        switch self {
        case .missingValue(let entity, let property):
            "\(entity).\(property) is required but has no value"
        case .deleteDenied(let entity, let property):
            "\(entity) cannot be deleted: its relationship \(property) has the deny rule and is not empty"
        case .crossContextRelationship(let entity, let property, let destination):
            "\(entity).\(property) refers to \(destination), which belongs to another context or to none"
        case .danglingReference(let entity, let property, let destination):
            "\(entity).\(property) refers to \(destination), which is deleted"
        case .invalidValue(let entity, let property, let reason):
            "\(entity).\(property) cannot be stored: \(reason)"
        case .tooFewDestinations(let entity, let property, let count, let minimum):
            "\(entity).\(property) holds \(count) objects, fewer than its minimum count \(minimum)"
        case .tooManyDestinations(let entity, let property, let count, let maximum):
            "\(entity).\(property) holds \(count) objects, more than its maximum count \(maximum)"
        case .rejected(let entity, let property, let error):
            "\(entity)\(property.map { "." + $0 } ?? "") failed its validation: \(error)"
        case .multiple(let errors):
            errors.map(\.description).joined(separator: "; ")
        }
    }

    public static func == (lhs: ValidationError, rhs: ValidationError) -> Bool {
        lhs.identity == rhs.identity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    /// What equality compares: the case and its values, errors by their
    /// `String(reflecting:)`.
    private var identity: [String] {
        switch self {
        case .missingValue(let entity, let property): ["missingValue", entity, property]
        case .deleteDenied(let entity, let property): ["deleteDenied", entity, property]
        case .crossContextRelationship(let entity, let property, let destination):
            ["crossContextRelationship", entity, property, destination]
        case .danglingReference(let entity, let property, let destination):
            ["danglingReference", entity, property, destination]
        case .invalidValue(let entity, let property, let reason): ["invalidValue", entity, property, reason]
        case .tooFewDestinations(let entity, let property, let count, let minimum):
            ["tooFewDestinations", entity, property, String(count), String(minimum)]
        case .tooManyDestinations(let entity, let property, let count, let maximum):
            ["tooManyDestinations", entity, property, String(count), String(maximum)]
        case .rejected(let entity, let property, let error):
            ["rejected", entity, property ?? "", String(reflecting: error)]
        case .multiple(let errors): ["multiple", String(errors.count)] + errors.flatMap(\.identity)
        }
    }
}
