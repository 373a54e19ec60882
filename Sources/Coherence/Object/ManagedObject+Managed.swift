import Foundation

// What `@Managed` generates calls these: a property's `get` calls
// `_read(__Coherence_maker.declaration)`, its `set`
// `_write(__Coherence_maker.declaration, newValue)`; the generated
// `addToOwners(_:)` calls `_addToRelationship("owners", value)`. Values go
// through the key-value paths (`value(forKey:)`, `setValue(_:forKey:)`,
// the primitive ones), converted to the types Xcode generates.
extension ManagedObject {
    /// Reads a `@Managed` property. Not for your code.
    public final func _read<Value>(_ declaration: ManagedDeclaration<Value>) -> Value {
        let entity = _managedEntity(declaration.name)
        let resolved = declaration.resolved(in: entity)
        let value: Any?
        if resolved.isPrimitive {
            value = _readProperty(at: resolved.index, entity: entity)
        } else {
            _prepareForRead(declaration)
            value = _readProperty(at: resolved.index, entity: entity)
        }
        let transformable = resolved.index < entity.attributes.count && entity.attributes[resolved.index].isTransformable
        guard let converted = ManagedValueConversion.convert(value, to: Value.self, transformable: transformable,
                                                             property: "\(entity.name).\(declaration.name)") else {
            let modelType = entity.relationship(at: resolved.index)?.isOrdered == true ? "NSOrderedSet" : "\(entity.valueType(at: resolved.index))"
            fatalError("Coherence: \(entity.name).\(declaration.name) is \(modelType) in the model; "
                       + "@Managed declares it \(Value.self), which its value \(value.map { "\($0)" } ?? "nil") cannot convert to")
        }
        return converted
    }

    /// Writes a `@Managed` property. Not for your code.
    public final func _write<Value>(_ declaration: ManagedDeclaration<Value>, _ newValue: Value) {
        let entity = _managedEntity(declaration.name)
        let resolved = declaration.resolved(in: entity)
        let key = entity.propertyName(at: resolved.index)
        let attribute = resolved.index < entity.attributes.count ? entity.attributes[resolved.index] : nil
        var value = ManagedValueConversion.storable(newValue, decimal: attribute?.attributeType == .decimal)
        if let attribute, attribute.attributeType == .binaryData, let object = value, !(object is Data) {
            guard attribute.isTransformable else {
                fatalError("Coherence: \(entity.name).\(key) is a Binary attribute in the model, which holds Data; "
                           + "@Managed declares it \(Value.self) (make it Transformable in the model to keep an object)")
            }
            // A Transformable attribute: the object, archived; an equal
            // object keeps the archive the attribute has.
            let wrapped = (Value.self as? any OptionalValue.Type)?.wrappedType ?? Value.self
            if let current = _readProperty(at: resolved.index, entity: entity) as? Data,
               TransformableArchive.archive(current, holdsEqualTo: object, as: wrapped) {
                return
            }
            guard let archive = TransformableArchive.archive(object, property: "\(entity.name).\(key)") else {
                fatalError("Coherence: \(entity.name).\(key) holds Data (a Transformable attribute is kept as a keyed archive); "
                           + "@Managed declares it \(Value.self), whose value \(Swift.type(of: object)) does not conform to NSSecureCoding")
            }
            value = archive
        }
        if resolved.isPrimitive {
            setPrimitiveValue(value, forKey: key)
        } else {
            guard !_access.contains(.invalidated) else {
                fatalError("Coherence: cannot set \(entity.name).\(key): the object was invalidated (its context was reset or its deletion saved)")
            }
            if let box = _observation {
                box.registrar.withMutation(of: self, keyPath: declaration._observationKey) {
                    _setValue(value, at: resolved.index, entity: entity, announce: false)
                }
            } else {
                _setValue(value, at: resolved.index, entity: entity)
            }
        }
    }

    /// Adds `objects` (an object, or a set or sequence of them) to the
    /// to-many relationship `key`: the `addToOwners(_:)` that `@Managed`
    /// generates. An ordered relationship appends those it lacks, in order.
    /// Not for your code.
    public final func _addToRelationship(_ key: String, _ objects: Any) {
        let relationship = _toManyRelationship(key, function: "addTo")
        let added = Self._managedObjects(in: objects, key: key)
        if relationship.isOrdered { return _editOrdered(key) { $0 += added } }
        let current = value(forKey: key) as? Set<ManagedObject> ?? []
        setValue(current.union(added), forKey: key)
    }

    /// Removes `objects` (an object, or a set or sequence of them) from the
    /// to-many relationship `key`: the `removeFromOwners(_:)` that
    /// `@Managed` generates. Not for your code.
    public final func _removeFromRelationship(_ key: String, _ objects: Any) {
        let relationship = _toManyRelationship(key, function: "removeFrom")
        let removed = Set(Self._managedObjects(in: objects, key: key).map(ObjectIdentifier.init))
        if relationship.isOrdered { return _editOrdered(key) { $0.removeAll { removed.contains(ObjectIdentifier($0)) } } }
        let current = value(forKey: key) as? Set<ManagedObject> ?? []
        setValue(current.filter { !removed.contains(ObjectIdentifier($0)) }, forKey: key)
    }

    /// Inserts `objects` (one object, or an array) into the ordered
    /// relationship `key` at `indexes`: the generated
    /// `insertIntoItems(_:at:)`, with `NSMutableOrderedSet`'s meaning (an
    /// object already in the relationship stays where it is). Not for your
    /// code.
    public final func _insertIntoRelationship(_ key: String, _ objects: Any, at indexes: [Int]) {
        _ = _orderedRelationship(key, function: "insertInto")
        let inserted = Self._managedObjects(in: objects, key: key)
        _editOrdered(key) { list in
            _require(indexes.count == inserted.count, key, "insertInto was given \(inserted.count) objects for \(indexes.count) indexes")
            for (index, object) in zip(indexes.sorted(), inserted) where !list.contains(where: { $0 === object }) {
                _require(index >= 0 && index <= list.count, key, "index \(index) is beyond the end (\(list.count) objects)")
                list.insert(object, at: index)
            }
        }
    }

    /// Removes the objects at `indexes` from the ordered relationship `key`:
    /// the generated `removeFromItems(at:)`. Not for your code.
    public final func _removeFromRelationship(_ key: String, at indexes: [Int]) {
        _ = _orderedRelationship(key, function: "removeFrom")
        _editOrdered(key) { list in
            for index in Set(indexes).sorted(by: >) {
                _require(index >= 0 && index < list.count, key, "index \(index) is beyond the end (\(list.count) objects)")
                list.remove(at: index)
            }
        }
    }

    /// Replaces the objects at `indexes` of the ordered relationship `key`
    /// with `objects`: the generated `replaceItems(at:with:)`, with
    /// `NSMutableOrderedSet`'s meaning (an object already elsewhere in the
    /// relationship does not replace). Not for your code.
    public final func _replaceInRelationship(_ key: String, at indexes: [Int], with objects: Any) {
        _ = _orderedRelationship(key, function: "replace")
        let replacements = Self._managedObjects(in: objects, key: key)
        _editOrdered(key) { list in
            _require(indexes.count == replacements.count, key, "replace was given \(replacements.count) objects for \(indexes.count) indexes")
            for (index, object) in zip(indexes.sorted(), replacements) {
                _require(index >= 0 && index < list.count, key, "index \(index) is beyond the end (\(list.count) objects)")
                if let existing = list.firstIndex(where: { $0 === object }), existing != index { continue }
                list[index] = object
            }
        }
    }

    /// The destinations of a relationship value as `value(forKey:)` gives
    /// it: a `Set`, an `NSOrderedSet` (in order) or one object.
    static func _destinations(in value: Any?) -> [ManagedObject] {
        switch value {
        case let set as Set<ManagedObject>: Array(set)
        case let ordered as NSOrderedSet: ordered.array.compactMap { $0 as? ManagedObject }
        case let object as ManagedObject: [object]
        default: []
        }
    }

    /// Changes the ordered relationship `key` through its list of objects.
    private final func _editOrdered(_ key: String, _ edit: (inout [ManagedObject]) -> Void) {
        var list = Self._destinations(in: value(forKey: key))
        edit(&list)
        var seen = Set<ObjectIdentifier>()
        setValue(list.filter { seen.insert(ObjectIdentifier($0)).inserted }, forKey: key)
    }

    /// Stops the program, naming the entity and relationship, unless `condition`.
    private final func _require(_ condition: Bool, _ key: String, _ message: @autoclosure () -> String) {
        guard condition else { fatalError("Coherence: \(_entity?.name ?? Self.entityName).\(key): \(message())") }
    }

    /// The object's entity, for a `@Managed` access.
    private final func _managedEntity(_ name: String) -> EntityDescription {
        guard let entity = _entity ?? _adoptEntityBeforeInsertion() else {
            fatalError("Coherence: cannot use \(Self.entityName).\(name): the object belongs to no context and no model with its class was built")
        }
        return entity
    }

    /// The to-many relationship `key`; stops the program, naming the
    /// entity, when it has none of that name.
    private final func _toManyRelationship(_ key: String, function: String) -> RelationshipDescription {
        let entity = _managedEntity(key)
        guard let index = entity.indexByName[key], let relationship = entity.relationship(at: index), relationship.isToMany else {
            fatalError("Coherence: \(entity.name) has no to-many relationship \(key) for the @Managed accessor \(function)\(key.prefix(1).uppercased() + key.dropFirst())")
        }
        return relationship
    }

    /// The ordered relationship `key`; stops the program, naming the
    /// entity, when it has none of that name.
    private final func _orderedRelationship(_ key: String, function: String) -> RelationshipDescription {
        let relationship = _toManyRelationship(key, function: function)
        guard relationship.isOrdered else {
            fatalError("Coherence: \(_managedEntity(key).name).\(key) is not ordered in the model, so it has no accessor \(function)\(key.prefix(1).uppercased() + key.dropFirst()) by index")
        }
        return relationship
    }

    /// The objects in an argument of a generated to-many accessor.
    private static func _managedObjects(in value: Any, key: String) -> [ManagedObject] {
        if let object = value as? ManagedObject { return [object] }
        if let ordered = value as? NSOrderedSet, let objects = ordered.array as? [ManagedObject] { return objects }
        if let sequence = value as? any Sequence, let objects = Array(sequence) as? [ManagedObject] { return objects }
        fatalError("Coherence: \(key) takes objects, not \(type(of: value))")
    }
}

/// The conversions between the values the key-value paths give and take
/// and the Swift types `@Managed` properties are declared with.
enum ManagedValueConversion {
    /// `value` (a property's value; `nil` for none) as a `Value`; `nil`
    /// when it cannot be one.
    static func convert<Value>(_ value: Any?, to _: Value.Type, transformable: Bool, property: @autoclosure () -> String) -> Value? {
        guard let value else {
            // No value: `nil` for an optional, zero or false for a scalar.
            if let none = (Value.self as? any OptionalValue.Type)?.noValue as? Value { return none }
            if let number = Value.self as? any ExpressibleByIntegerLiteral.Type, let zero = zero(number) as? Value { return zero }
            if Value.self == Bool.self { return false as? Value }
            return nil
        }
        if let typed = value as? Value { return typed }
        // The Foundation types Xcode generates.
        if let number = number(value), let typed = number as? Value { return typed }
        if let set = value as? Set<ManagedObject>, let typed = NSSet(array: Array(set)) as? Value { return typed }
        // A Transformable attribute read as the object it archives.
        if transformable, let data = value as? Data, let object = TransformableArchive.unarchive(data, as: Value.self, property: property()) { return object }
        return nil
    }

    /// The value to hand `setValue(_:forKey:)`: `nil` for an optional
    /// without one; for a `Decimal` attribute, an `NSDecimalNumber`'s
    /// `Decimal` (other numbers convert in `setValue(_:forKey:)`).
    static func storable<Value>(_ value: Value, decimal: Bool) -> Any? {
        if let optional = value as? any OptionalValue { return optional.wrapped.flatMap { storable($0, decimal: decimal) } }
        if decimal, let number = value as? NSDecimalNumber { return number.decimalValue }
        return value
    }

    private static func zero<Number: ExpressibleByIntegerLiteral>(_: Number.Type) -> Any { 0 as Number }

    /// A number attribute's value as an `NSNumber` (`NSDecimalNumber` for a
    /// `Decimal`).
    private static func number(_ value: Any) -> NSNumber? {
        switch value {
        case let value as Decimal: NSDecimalNumber(decimal: value)
        case let value as Int16: NSNumber(value: value)
        case let value as Int32: NSNumber(value: value)
        case let value as Int64: NSNumber(value: value)
        case let value as Int: NSNumber(value: value)
        case let value as Double: NSNumber(value: value)
        case let value as Float: NSNumber(value: value)
        case let value as Bool: NSNumber(value: value)
        default: nil
        }
    }
}

/// `Optional`, seen without its wrapped type.
protocol OptionalValue {
    static var noValue: Any { get }
    static var wrappedType: Any.Type { get }
    var wrapped: Any? { get }
}

extension Optional: OptionalValue {
    static var noValue: Any { Optional<Wrapped>.none as Any }
    static var wrappedType: Any.Type { Wrapped.self }
    var wrapped: Any? { self.map { $0 as Any } }
}
