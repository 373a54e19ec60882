import Foundation

/// What Core Data's `NSFetchRequestResult` names: the kind of object a
/// ``FetchRequest`` returns. Every ``ManagedObject`` is one, and gets Core
/// Data's `fetchRequest()` class method from it.
public protocol FetchRequestResult: AnyObject {}

extension ManagedObject: FetchRequestResult {}

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
}

extension FetchRequest {
    /// The entity the request fetches, as Core Data's `entity`: the one
    /// ``entityName`` names, or `Result`'s (from the last model built with
    /// it, see ``ManagedObject/entity()``). Setting it sets ``entityName``.
    public var entity: EntityDescription? {
        get {
            guard let name = entityName else { return EntityRegistry.entity(of: Result.self) }
            return EntityRegistry.entity(ofName: name, below: Result.self)
        }
        set { entityName = newValue?.name }
    }
}
