import Synchronization

/// Core Data's `@NSManaged`, for the entities of a model file
/// (``ManagedObjectModel/init(contentsOf:classes:)``): the property's
/// storage, type and options come from the model, and the class (or an
/// extension of it) only names it.
///
/// ```swift
/// // Car+CoreDataProperties.swift, as Xcode generates it, with @NSManaged
/// // renamed to @Managed and the NS prefix dropped from NSFetchRequest:
/// extension Car {
///     @nonobjc public class func fetchRequest() -> FetchRequest<Car> {
///         FetchRequest<Car>(entityName: "Car")
///     }
///     @Managed public var maker: String?
///     @Managed public var year: Int16
///     @Managed public var owners: NSSet?
///     @Managed public var engine: Engine?
/// }
/// // The extension Xcode generates with the to-many accessors
/// // (addToOwners(_:), removeFromOwners(_:), each for one object and for an
/// // NSSet) is deleted: @Managed on `owners` generates them.
/// ```
///
/// - A property reads and writes the entity's property of its name, with
///   change tracking and Observation, as assigning it does in Core Data.
///   Its Swift type may be the model's (`String?`, `Date?`, `Set<Person>`),
///   or the types Xcode generates: a scalar (`Int16`, `Bool`, `Double`) for
///   an optional numeric attribute (no value reads as zero), `NSNumber?`,
///   `NSDecimalNumber?`, and `NSSet?` for a to-many relationship. A
///   Transformable attribute is declared with its class (`Color?`, a
///   top-level class conforming to `NSSecureCoding`) or a Foundation value
///   (`[String]?`), kept as a keyed archive.
/// - A property named `primitiveX`, when the entity has no property of that
///   name, is the primitive accessor of `x`
///   (``ManagedObject/primitiveValue(forKey:)``): no change tracking, no
///   notification.
/// - A to-many property (`NSSet?` or `Set<Destination>`) also gets Core
///   Data's generated accessors: `addToX(_:)` and `removeFromX(_:)` for one
///   object (a `ManagedObject` for `NSSet?`, a `Destination` for a `Set`)
///   and for a set of them (`NSSet`, or `Set<Destination>`). An ordered
///   relationship (`NSOrderedSet?`) gets Xcode's ordered accessors as well:
///   `insertIntoX(_:at:)` (one object at an `Int`, or an array at an
///   `NSIndexSet`), `removeFromX(at:)`, `replaceX(at:with:)`, and
///   `addToX(_:)`/`removeFromX(_:)` taking an `NSOrderedSet`. Swift cannot
///   attach one macro to both properties and bodiless functions, so the
///   accessor functions Xcode generates are deleted when porting.
///
/// Fetches find `@Managed` properties by name (format predicates,
/// `SortDescriptor(key:)`) in SQL. Key paths (`#Predicate`,
/// `SortDescriptor(\Car.maker)`) give the same results, evaluated on every
/// object of the entity: Swift gives no way to name a property declared in
/// an extension from its key path.
///
/// A name the entity does not have stops the program at the first access,
/// naming the entity; so does a value that cannot convert to the declared
/// type (reads convert numbers through `NSNumber`, and no value reads as
/// `nil` or zero), naming the entity, the property and both types, as Core
/// Data fails for a mismatched `@NSManaged` declaration. Each property finds its place in its entity
/// by name once per model.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: arbitrary)
public macro Managed() = #externalMacro(module: "CoherenceMacros", type: "ManagedMacro")

/// A `@Managed` property's declaration: its name and Swift type, the model
/// says the rest. What the macro generates; not for your code.
///
/// **Complexity:** O(1) per access once resolved: the place in the first
/// entity it is used with serves every entity with the same property at
/// that place (one string comparison); another entity costs a dictionary
/// lookup per access.
public final class ManagedDeclaration<Value>: PropertyDeclaration, @unchecked Sendable {
    // @unchecked: `name` is immutable, `resolution` atomic.

    /// Where the property is in an entity.
    struct Place {
        let index: Int
        /// The primitive accessor of the property at `index`.
        let isPrimitive: Bool
    }

    /// The place in the first entity the property was used with, and the
    /// name of the property there.
    final class Resolution: Sendable {
        let entity: EntityDescription
        let place: Place
        let propertyName: String

        init(entity: EntityDescription, place: Place, propertyName: String) {
            self.entity = entity
            self.place = place
            self.propertyName = propertyName
        }
    }

    private let resolution = AtomicLazyReference<Resolution>()

    /// The declaration of the `@Managed` property `name`.
    public override init(name: String) {
        super.init(name: name)
    }

    /// Where the property is in `entity`: the property of its name or, for
    /// `primitiveX`, the primitive accessor of `x`. Stops the program for
    /// a name the entity does not have. The first entity's place is kept,
    /// and serves every entity that has the same property there (sibling
    /// sub-entities share their parent's attributes); another entity's is
    /// looked up by name.
    func resolved(in entity: EntityDescription) -> Place {
        if let known = resolution.load() {
            if known.entity === entity { return known.place }
            let index = known.place.index
            if !known.place.isPrimitive, index < entity.propertyCount, entity.propertyName(at: index) == known.propertyName {
                return known.place
            }
        }
        let found: Place
        if let index = entity.indexByName[name] {
            found = Place(index: index, isPrimitive: false)
        } else if name.hasPrefix("primitive"), name.count > 9 {
            let rest = String(name.dropFirst(9))
            let key = rest.prefix(1).lowercased() + rest.dropFirst()
            // `primitiveUpdatedAt` for `updatedAt`, `primitiveURL` for `URL`.
            guard let index = entity.indexByName[key] ?? entity.indexByName[rest] else {
                fatalError("Coherence: \(entity.name) has no property \(name) or \(key) for @Managed var \(name)")
            }
            found = Place(index: index, isPrimitive: true)
        } else {
            fatalError("Coherence: \(entity.name) has no property \(name) for @Managed var \(name); add it to the model")
        }
        if resolution.load() == nil {
            _ = resolution.storeIfNil(Resolution(entity: entity, place: found, propertyName: entity.propertyName(at: found.index)))
        }
        return found
    }
}
