import Foundation

/// What Core Data's `NSFetchRequestResult` names: what a ``FetchRequest``
/// returns. Managed objects, their IDs, `NSDictionary` (dictionary results)
/// and `NSNumber` (a count) are; `FetchRequest<FetchRequestResult>` is
/// Core Data's untyped request, whose results are cast as Core Data code
/// casts them. Every ``ManagedObject`` gets Core Data's `fetchRequest()`
/// class method from it.
public protocol FetchRequestResult {}

extension ManagedObject: FetchRequestResult {}
extension ManagedObjectID: FetchRequestResult {}
extension NSDictionary: FetchRequestResult {}
extension NSNumber: FetchRequestResult {}

extension FetchRequestResult where Self: ManagedObject {
    /// A request for the objects of this class's entity, as the
    /// `fetchRequest()` class method Core Data generates for each entity:
    ///
    /// ```swift
    /// let request = Car.fetchRequest()
    /// request.predicate = #Predicate { $0.year > 2020 }
    /// let cars = try context.fetch(request)
    /// ```
    ///
    /// A class may declare its own, as Xcode's generated code does
    /// (`class func fetchRequest() -> FetchRequest<Car>`); it then takes
    /// precedence.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/fetchrequest()>
    public static func fetchRequest() -> FetchRequest<Self> {
        FetchRequest<Self>()
    }

    /// Core Data's untyped `fetchRequest()`, which `NSManagedObject`
    /// declares: `let request: FetchRequest<FetchRequestResult> = Car.fetchRequest()`
    /// gives a request for this class's entity whose results are cast, as
    /// Core Data code writes it. Without a type to match, the typed
    /// ``fetchRequest()->FetchRequest<Self>`` is chosen.
    @_disfavoredOverload
    public static func fetchRequest() -> FetchRequest<FetchRequestResult> {
        FetchRequest<FetchRequestResult>(entityName: entityName)
    }
}

extension FetchRequest {
    /// The entity the request fetches, as Core Data's `entity`: the one
    /// ``entityName`` names, or `Result`'s when `Result` is an entity's
    /// class (from the last model built with it, see
    /// ``ManagedObject/entity()``). Setting it sets ``entityName``.
    public var entity: EntityDescription? {
        get {
            let objectClass = Result.self as? ManagedObject.Type
            guard let name = entityName else { return objectClass.flatMap(EntityRegistry.entity(of:)) }
            return EntityRegistry.entity(ofName: name, below: objectClass ?? ManagedObject.self)
        }
        set { entityName = newValue?.name }
    }
}
