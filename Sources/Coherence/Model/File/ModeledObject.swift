/// The class of the objects of a model file's entity that names no class
/// of yours (``ManagedObjectModel/init(contentsOf:classes:)``): a
/// ``ManagedObject`` read and written by name, with
/// ``ManagedObject/value(forKey:)`` and ``ManagedObject/setValue(_:forKey:)``,
/// as Core Data's plain `NSManagedObject`s.
///
/// Coherence tells entities apart by class (an object ID holds its
/// class), so each such entity gets a class of its own: one instantiation
/// of this generic class, whose `Tag` spells a number in binary
/// (``ModeledClasses``). The same entity name gets the same class in every
/// model of the process, so model versions agree on IDs.
final class ModeledObject<Tag: EntityTag>: ManagedObject {
    override class var entityName: String { ModeledClasses.entityName(of: self) }
}

/// A number spelled as a type: ``EntityTagEnd`` wrapped in one
/// ``EntityTagZero`` or ``EntityTagOne`` per binary digit.
protocol EntityTag {}
enum EntityTagEnd: EntityTag {}
enum EntityTagZero<Rest: EntityTag>: EntityTag {}
enum EntityTagOne<Rest: EntityTag>: EntityTag {}

/// The classes made for entities without one, by entity name, for the
/// whole process.
///
/// **Complexity:** O(log entities) type instantiations to make a class,
/// once per name; O(1) to look one up.
enum ModeledClasses {
    private struct Table {
        var classes: [String: ManagedObject.Type] = [:]
        var names: [ObjectIdentifier: String] = [:]
    }

    private static let table = Locked(Table())

    /// The class of the entity named `name`, made on first use.
    static func objectClass(forEntityNamed name: String) -> ManagedObject.Type {
        table.withLock { table in
            if let known = table.classes[name] { return known }
            let made = makeClass(number: table.classes.count)
            table.classes[name] = made
            table.names[ObjectIdentifier(made)] = name
            return made
        }
    }

    /// The entity name a class was made for.
    static func entityName(of type: ManagedObject.Type) -> String {
        table.withLock { $0.names[ObjectIdentifier(type)] } ?? String(describing: type)
    }

    /// Whether `type` is a class made here.
    static func isModeled(_ type: ManagedObject.Type) -> Bool {
        table.withLock { $0.names[ObjectIdentifier(type)] != nil }
    }

    /// `ModeledObject<…>` for the tag spelling `number`, least significant
    /// digit outermost.
    private static func makeClass(number: Int) -> ManagedObject.Type {
        var tag: any EntityTag.Type = EntityTagEnd.self
        var rest = number
        repeat {
            tag = rest & 1 == 0 ? zero(tag) : one(tag)
            rest >>= 1
        } while rest > 0
        return objectClass(tag)
    }

    private static func zero<Rest: EntityTag>(_: Rest.Type) -> any EntityTag.Type { EntityTagZero<Rest>.self }
    private static func one<Rest: EntityTag>(_: Rest.Type) -> any EntityTag.Type { EntityTagOne<Rest>.self }
    private static func objectClass<Tag: EntityTag>(_: Tag.Type) -> ManagedObject.Type { ModeledObject<Tag>.self }
}
