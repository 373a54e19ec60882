import Foundation

/// The entity of each class in the models built so far, for Core Data's
/// lookups that name no model: `Car.entity()`, `objectID.entity`, the
/// `entity` of an object not inserted yet.
///
/// Process-wide state, written once per ``ManagedObjectModel`` built (the
/// last model built with a class that is still alive wins, as Core Data
/// warns when several loaded models claim one class) and read under a lock.
/// It holds the models' entities weakly (``ModelEntities``, never an entity
/// itself): a model nothing else holds is freed, and the class's entity is
/// then the one of the model built before it, if that one is alive.
///
/// **Complexity:** O(models built with the class and alive) to look up;
/// O(entities) to register a model.
enum EntityRegistry {
    private struct WeakModel {
        weak var entities: ModelEntities?
    }

    /// Per class, the models built with it, oldest first.
    private static let models = Locked<[ObjectIdentifier: [WeakModel]]>([:])

    static func register(_ model: ModelEntities) {
        models.withLock { models in
            for key in model.byClass.keys {
                var alive = (models[key] ?? []).filter { $0.entities != nil }
                alive.append(WeakModel(entities: model))
                models[key] = alive
            }
        }
    }

    /// The entity of `key`'s class in the last model built with it that is alive.
    private static func entity(_ key: ObjectIdentifier, in models: [ObjectIdentifier: [WeakModel]]) -> EntityDescription? {
        guard let list = models[key] else { return nil }
        for model in list.reversed() {
            if let entity = model.entities?.byClass[key] { return entity }
        }
        return nil
    }

    static func entity(of type: ManagedObject.Type) -> EntityDescription? {
        models.withLock { entity(ObjectIdentifier(type), in: $0) }
    }

    /// The entity named `name` whose class is `type` or a subclass of it.
    static func entity(ofName name: String, below type: ManagedObject.Type) -> EntityDescription? {
        models.withLock { models in
            for key in models.keys {
                if let entity = entity(key, in: models), entity.name == name,
                   isSameOrSubclass(entity.managedObjectClass, of: type) { return entity }
            }
            return nil
        }
    }
}

extension ManagedObject {
    /// The entity of this class, as Core Data's `entity()`: from the last
    /// ``ManagedObjectModel`` built with the class.
    ///
    /// Like Core Data, which raises when no loaded model knows the class,
    /// this stops the program, naming the class, in release builds too,
    /// when no model was built with it.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/entity()>
    public class func entity() -> EntityDescription {
        guard let entity = EntityRegistry.entity(of: self) else {
            fatalError("Coherence: \(self) is in no ManagedObjectModel built so far; build the model with ManagedObjectModel(entities:) first")
        }
        return entity
    }

    /// Creates an object of `entity` and inserts it into `context` (none
    /// for `nil`), as Core Data's `init(entity:insertInto:)`.
    ///
    /// Like Core Data, which raises for an entity of another class, this
    /// stops the program, naming both, in release builds too.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobject/init(entity:insertinto:)>
    ///
    /// For an entity of a model file that has no class of its own
    /// (``ManagedObjectModel/init(contentsOf:classes:)``), make the object
    /// as Core Data code does, with `ManagedObject(entity:insertInto:)`.
    public convenience init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.init()
        if type(of: self) == ManagedObject.self, ModeledClasses.isModeled(entity.managedObjectClass) {
            _entity = entity
            _setInitialValues(entity: entity)
        } else if entity.managedObjectClass != type(of: self) {
            fatalError("Coherence: init(entity:insertInto:) was given the entity \(entity.name) for an object of class \(type(of: self)); use \(entity.managedObjectClass)(entity:insertInto:)")
        }
        context?.insert(self)
    }
}

extension EntityDescription {
    /// Creates an object of the entity named `entityName` in the model of
    /// `context`'s coordinator and inserts it, as Core Data's
    /// `NSEntityDescription.insertNewObject(forEntityName:into:)`.
    ///
    /// Like Core Data, which raises when the model has no such entity,
    /// this stops the program, naming it, in release builds too.
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/insertnewobject(forentityname:into:)>
    @discardableResult
    public static func insertNewObject(forEntityName entityName: String, into context: ManagedObjectContext) -> ManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            fatalError("Coherence: insertNewObject(forEntityName:into:) could not locate an entity named \(entityName) in the model of \(context)")
        }
        let object = entity.managedObjectClass.init()
        context.insert(object)
        return object
    }

    /// The entity named `entityName` in the model of `context`'s
    /// coordinator, as Core Data's `entity(forEntityName:in:)`; `nil` when
    /// there is none.
    /// <https://developer.apple.com/documentation/coredata/nsentitydescription/entity(forentityname:in:)>
    public static func entity(forEntityName entityName: String, in context: ManagedObjectContext) -> EntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }
}

extension ManagedObjectID {
    /// The entity of the object, as Core Data's `NSManagedObjectID.entity`:
    /// from the last model built with its class (see ``ManagedObject/entity()``).
    public var entity: EntityDescription {
        objectClass.entity()
    }

}
