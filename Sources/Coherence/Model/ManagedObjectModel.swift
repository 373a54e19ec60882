/// The entities of an application, built from `ManagedObject` subclasses and
/// validated once.
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [Server.self, FeedItem.self])
/// ```
///
/// The property macros (`@Attribute`, `@Relationship`, `@Derived`) keep
/// each property's declaration as static data; building the model makes one
/// object of each class with `init()` (never inserted, never read) to list
/// the properties with a `Mirror`, so an entity class must not customize
/// its mirror (`CustomReflectable`). It throws a
/// ``ModelError`` naming the entity and the property for an unsupported
/// attribute type, a missing or mismatched inverse, a destination outside the
/// model, or two entities with the same name.
///
/// A listed class that subclasses another listed class is a sub-entity of
/// it (of the nearest one), as Core Data's `superentity`. A superclass that
/// is not listed is an ordinary base class, as in Core Data, where the
/// class hierarchy need not be the entity hierarchy: shared behaviour, and
/// the properties it declares belong to each entity below it.
public final class ManagedObjectModel: Sendable, CustomStringConvertible {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// The entities by name.
    public let entitiesByName: [String: EntityDescription]
    var entitiesByClass: [ObjectIdentifier: EntityDescription] { modelEntities.byClass }
    /// The entities by class and their sub-entities, which the registry of
    /// models and the entities refer to weakly.
    let modelEntities: ModelEntities
    /// Every `@Derived` property of the model.
    let derivations: [DerivationDescription]

    /// A model with no entities, as Core Data's `NSManagedObjectModel()`:
    /// enough for a coordinator that only manages store files
    /// (``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)``).
    /// A model's entities are fixed when it is made; list them with
    /// ``init(entities:)``.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/init()>
    public convenience init() {
        do {
            try self.init(entities: [])
        } catch {
            fatalError("Coherence: an empty model cannot fail to build: \(error)")
        }
    }

    /// Builds and validates a model from `ManagedObject` subclasses.
    /// - Throws: ``ModelError``.
    public convenience init(entities classes: [ManagedObject.Type]) throws(ModelError) {
        try self.init(declarations: classes.map { type throws(ModelError) in try EntityDeclaration(type) })
    }

    /// Builds and validates a model from its entities' declarations, read
    /// from classes or from a model file; `locating` gives an error the
    /// place it comes from (a model file's line).
    init(declarations: [EntityDeclaration], locating: (ModelError) -> ModelError = { $0 }) throws(ModelError) {
        let built: ModelEntities, derivations: [DerivationDescription]
        do {
            (built, derivations) = try Self.build(declarations)
        } catch {
            throw locating(error)
        }
        self.derivations = derivations
        entities = built.all
        entitiesByName = Dictionary(uniqueKeysWithValues: built.all.map { ($0.name, $0) })
        modelEntities = built
        // A derivation's format predicate reads attributes of its child entity.
        for derivation in derivations {
            guard let expression = derivation.declaration.expression, let child = entitiesByName[derivation.childEntityName] else { continue }
            func fail(_ reason: String) -> ModelError {
                locating(.invalidDerivation(entity: derivation.parentEntityName, property: derivation.propertyName, reason: reason))
            }
            do {
                try FormatPredicateValidation.validate(expression, entity: child, model: self)
            } catch {
                throw fail("its predicate: \(error)")
            }
            if let key = FormatDerivationCheck.firstKeyThatIsNoAttribute(in: expression, entity: child) {
                throw fail("its predicate reads \(key), which is not an attribute of \(child.name): a derived value follows "
                           + "the changes of its children's own attributes")
            }
        }
        EntityRegistry.register(built)
    }

    /// The entities of `declarations`, resolved and checked, and their
    /// derived properties.
    private static func build(_ declarations: [EntityDeclaration]) throws(ModelError)
        -> (entities: ModelEntities, derivations: [DerivationDescription]) {
        var byName: [String: EntityDeclaration] = [:]
        var byClass: [ObjectIdentifier: EntityDeclaration] = [:]
        for declaration in declarations {
            guard byName[declaration.name] == nil else { throw .duplicateEntity(name: declaration.name) }
            byName[declaration.name] = declaration
            byClass[ObjectIdentifier(declaration.type)] = declaration
        }
        // Sub-entities: a model file names each parent; otherwise the
        // nearest listed superclass is the parent. A superclass that is not
        // listed is an ordinary base class: its declared properties belong
        // to each entity below it, as Core Data's class and entity
        // hierarchies may differ.
        var parents: [ObjectIdentifier: EntityDeclaration] = [:]
        for declaration in declarations {
            if let file = declaration.file {
                if let parent = file.parentName.flatMap({ byName[$0] }) { parents[ObjectIdentifier(declaration.type)] = parent }
                continue
            }
            if let parent = nearestListedAncestor(of: declaration, among: declarations) {
                parents[ObjectIdentifier(declaration.type)] = parent
            }
        }
        func depth(_ declaration: EntityDeclaration) -> Int {
            parents[ObjectIdentifier(declaration.type)].map { depth($0) + 1 } ?? 0
        }
        // Each entity's class and its ancestor entities' classes: what an
        // inverse or a destination is checked against (for a model file,
        // the class hierarchy need not follow the entity hierarchy).
        var lineages: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
        for declaration in declarations {
            var lineage: Set<ObjectIdentifier> = [ObjectIdentifier(declaration.type)]
            var ancestor = parents[ObjectIdentifier(declaration.type)]
            while let next = ancestor {
                lineage.insert(ObjectIdentifier(next.type))
                ancestor = parents[ObjectIdentifier(next.type)]
            }
            lineages[ObjectIdentifier(declaration.type)] = lineage
        }
        let hierarchy = EntityLineages(lineages: lineages)
        // Derived properties: resolved first, each entity gets its own and
        // those its objects feed.
        var derivations: [DerivationDescription] = []
        for declaration in declarations {
            // A sub-entity shares its parent's derivations (at the same
            // attribute indexes) and resolves only its own.
            let inherited = parents[ObjectIdentifier(declaration.type)]?.attributes.count ?? 0
            for derived in declaration.derived where derived.index >= inherited {
                derivations.append(try declaration.resolveDerivation(derived, id: derivations.count, in: byName, hierarchy: hierarchy))
            }
        }
        // Parents first, so that each sub-entity can point at its parent.
        var builtByName: [String: EntityDescription] = [:]
        for declaration in declarations.sorted(by: { depth($0) < depth($1) }) {
            let parent = parents[ObjectIdentifier(declaration.type)]
            let superentity = parent.flatMap { builtByName[$0.name] }
            var lineage: Set<String> = [declaration.name]
            var ancestor = parents[ObjectIdentifier(declaration.type)]
            while let next = ancestor {
                lineage.insert(next.name)
                ancestor = parents[ObjectIdentifier(next.type)]
            }
            builtByName[declaration.name] = try declaration.resolve(
                in: byClass, hierarchy: hierarchy, derivations: derivations.filter { lineage.contains($0.parentEntityName) },
                dependentDerivations: derivations.filter { lineage.contains($0.childEntityName) },
                superentity: superentity,
                isAbstract: declaration.isAbstract)
        }
        let built = declarations.map { builtByName[$0.name]! }
        let entities = ModelEntities(built)
        for root in built where root.superentity == nil && !root.subentities.isEmpty {
            try checkSharedColumns(root)
        }
        for entity in built {
            for relationship in entity.relationships {
                let destination = builtByName[relationship.destinationEntityName]!
                relationship.destinationHasSubentities = !destination.subentities.isEmpty
                relationship.destinationRootEntityName = destination.rootEntity.name
                if relationship.destinationHasSubentities, !relationship.isToMany { entity.referencesHierarchy = true }
            }
        }
        for entity in built {
            let layout = SnapshotLayout(entity)
            for attribute in entity.attributes {
                (attribute.access as? PropertyDeclaration)?.bindSnapshotWord(layout, index: attribute.index)
            }
        }
        return (entities, derivations)
    }

    /// Entities of one hierarchy share their root's table: a property name
    /// declared by two of them (siblings) must mean the same kind of column.
    /// The listed class nearest above `declaration`'s class, if any: the
    /// listed ancestor that is a subclass of every other listed ancestor.
    /// **Complexity:** O(entities²) dynamic casts, at model building.
    private static func nearestListedAncestor(of declaration: EntityDeclaration,
                                              among declarations: [EntityDeclaration]) -> EntityDeclaration? {
        let ancestors = declarations.filter {
            $0.type != declaration.type && isSameOrSubclass(declaration.type, of: $0.type)
        }
        return ancestors.first { candidate in ancestors.allSatisfy { isSameOrSubclass(candidate.type, of: $0.type) } }
    }

    private static func checkSharedColumns(_ root: EntityDescription) throws(ModelError) {
        var kinds: [String: (entity: String, kind: String)] = [:]
        var ownToOne: [String: String] = [:]
        for entity in root.selfAndDescendants {
            // Two entities that each declare a to-one relationship of one name
            // would share its column, and the inverse side could not tell
            // their rows apart: refused (a parent may declare it for both).
            for relationship in entity.relationships where !relationship.isToMany
                && entity.superentity?.relationship(named: relationship.name) == nil {
                if let other = ownToOne[relationship.name] {
                    throw .conflictingSubentityProperty(
                        entity: entity.name, property: relationship.name,
                        reason: "\(other) declares a to-one relationship of the same name; declare it once, on their common parent")
                }
                ownToOne[relationship.name] = entity.name
            }
            for attribute in entity.attributes {
                let kind = attribute.isTransient ? "a transient attribute" : "an attribute of type \(attribute.attributeType)"
                if let known = kinds[attribute.name], known.kind != kind {
                    throw .conflictingSubentityProperty(entity: entity.name, property: attribute.name,
                                                        reason: "it is \(kind) but \(known.entity).\(attribute.name) is \(known.kind)")
                }
                kinds[attribute.name] = kinds[attribute.name] ?? (entity.name, kind)
            }
            for relationship in entity.relationships {
                let kind = relationship.isToMany ? "a to-many relationship" : "a to-one relationship to \(relationship.destinationEntityName)"
                if let known = kinds[relationship.name], known.kind != kind {
                    throw .conflictingSubentityProperty(entity: entity.name, property: relationship.name,
                                                        reason: "it is \(kind) but \(known.entity).\(relationship.name) is \(known.kind)")
                }
                kinds[relationship.name] = kinds[relationship.name] ?? (entity.name, kind)
            }
        }
    }

    /// The entity whose objects are instances of `type`.
    public func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entitiesByClass[ObjectIdentifier(type)]
    }

    public var description: String {
        entities.map(\.description).joined(separator: "\n")
    }
}

/// Which entity classes are each entity's or its ancestors': what the
/// model checks inverses and destinations against.
struct EntityLineages {
    let lineages: [ObjectIdentifier: Set<ObjectIdentifier>]

    /// Whether `type` is the class of `ancestor`'s entity or of one of its
    /// sub-entities.
    func isSameOrSubentity(_ type: ManagedObject.Type, of ancestor: ManagedObject.Type) -> Bool {
        lineages[ObjectIdentifier(type)]?.contains(ObjectIdentifier(ancestor)) ?? isSameOrSubclass(type, of: ancestor)
    }
}

/// An entity as read from its class or from a model file, before its
/// inverses are resolved.
struct EntityDeclaration {
    let type: ManagedObject.Type
    let name: String
    /// What a model file says of the entity beyond its properties; `nil`
    /// for an entity read from its class, where the class says it.
    let file: FileEntityFacts?
    let indexes: [[String]]
    let uniquenessConstraints: [[String]]
    let renamingIdentifier: String?
    let propertyRenamingIdentifiers: [String: String]
    /// Whether the entity is abstract: a model file says; a class's
    /// `isAbstract` counts only where it differs from its superclass's (a
    /// Swift class property is inherited, an entity's abstractness not).
    let isAbstract: Bool
    let attributes: [AttributeDescription]
    let relationships: [DeclaredRelationship]
    /// Derived properties: their attribute index and declaration.
    let derived: [(index: Int, declaration: DerivationDeclaration)]
    /// The property each key path reaches, by attribute index or (for
    /// relationships) position among the relationships: for every class
    /// from the entity's class up to the one that declares the property.
    let attributeKeyPaths: [SendableKeyPath: Int]
    let relationshipKeyPaths: [SendableKeyPath: Int]

    /// Reads the declarations of `type`'s properties.
    ///
    /// Swift has no public API that lists a class's stored properties
    /// without an instance: the model makes one object of the class (with
    /// `init()`, never inserted, never read), and a `Mirror` of it lists
    /// the zero-size fields the property macros add (`_title`), whose types
    /// name the declarations. The mirror's levels give the superclasses:
    /// properties of superclasses come first, in declaration order.
    init(_ type: ManagedObject.Type) throws(ModelError) {
        self.type = type
        name = type.entityName
        file = nil
        indexes = type.indexes
        uniquenessConstraints = type.uniquenessConstraints
        propertyRenamingIdentifiers = type.propertyRenamingIdentifiers
        let instance = type.init()
        // What the class says itself, not what it inherits from a
        // superclass (an entity's, or a base class that is none).
        let superclass = Mirror(reflecting: instance).superclassMirror?.subjectType as? ManagedObject.Type
        isAbstract = type.isAbstract && !(superclass?.isAbstract ?? false)
        renamingIdentifier = type.renamingIdentifier == superclass?.renamingIdentifier ? nil : type.renamingIdentifier
        var levels: [(type: AnyClass, fields: [any PropertyDeclaring.Type])] = []
        var mirror: Mirror? = Mirror(reflecting: instance)
        while let level = mirror, let levelType = level.subjectType as? AnyClass, levelType != ManagedObject.self {
            let fields = level.children.compactMap { (Swift.type(of: $0.value) as? any ReflectedPropertyField.Type)?.declaring }
            levels.append((levelType, fields))
            mirror = level.superclassMirror
        }
        var attributes: [AttributeDescription] = []
        var relationships: [DeclaredRelationship] = []
        var derived: [(index: Int, declaration: DerivationDeclaration)] = []
        var attributeKeyPaths: [SendableKeyPath: Int] = [:]
        var relationshipKeyPaths: [SendableKeyPath: Int] = [:]
        // From the topmost class down; each property is reachable by key
        // paths rooted at its class and every class below it.
        for (depth, level) in levels.enumerated().reversed() {
            let roots = levels[...depth].map(\.type)
            for declaring in level.fields {
                let declaration = declaring.anyDeclaration
                let keyPaths = roots.compactMap { declaring.keyPath(rootedAt: $0) }.map(SendableKeyPath.init)
                if let attribute = declaration as? any AttributeDescribing {
                    let index = attributes.count
                    declaration.bind(position: index, entity: name)
                    attributes.append(try attribute.describe(entity: name, index: index))
                    if let derivation = (declaration as? any DerivedDescribing)?.derivation {
                        derived.append((index, derivation))
                    }
                    for keyPath in keyPaths { attributeKeyPaths[keyPath] = index }
                } else if let relationship = declaration as? any RelationshipDescribing {
                    declaration.bind(position: relationships.count, entity: name)
                    for keyPath in keyPaths { relationshipKeyPaths[keyPath] = relationships.count }
                    relationships.append(relationship.declared())
                }
            }
        }
        self.attributes = attributes
        self.relationships = relationships
        self.derived = derived
        self.attributeKeyPaths = attributeKeyPaths
        self.relationshipKeyPaths = relationshipKeyPaths
    }

    /// The index of the attribute that `keyPath` reads.
    func attributeIndex(readBy keyPath: AnyKeyPath) -> Int? {
        attributeKeyPaths[SendableKeyPath(keyPath)]
    }

    /// The property index of every property a key path reaches, for the
    /// entity description.
    var keyPathIndexes: [SendableKeyPath: Int] {
        attributeKeyPaths.merging(relationshipKeyPaths.mapValues { attributes.count + $0 }) { first, _ in first }
    }

    func resolveDerivation(_ derived: (index: Int, declaration: DerivationDeclaration), id: Int,
                           in declarations: [String: EntityDeclaration], hierarchy: EntityLineages) throws(ModelError) -> DerivationDescription {
        let property = attributes[derived.index].name
        let declaration = derived.declaration
        func fail(_ reason: String) -> ModelError { .invalidDerivation(entity: name, property: property, reason: reason) }
        if let reason = declaration.formatError { throw fail(reason) }
        guard let relationshipName = declaration.relationshipName ?? declaration.relationship.flatMap(relationshipName(readBy:)),
              let position = relationships.firstIndex(where: { $0.name == relationshipName }) else {
            throw fail("it does not follow a relationship of \(name)")
        }
        let relationship = relationships[position]
        guard let child = declarations.values.first(where: { $0.type == relationship.destinationType }) else {
            throw .destinationNotInModel(entity: name, property: relationship.name, destination: relationship.destinationType.entityName)
        }
        let inverseName = try inverseName(of: relationship, destination: child, hierarchy: hierarchy)
        guard let inversePosition = child.relationships.firstIndex(where: { $0.name == inverseName }) else {
            throw fail("\(child.name).\(inverseName) is not a relationship")
        }
        if declaration.kind == .copy {
            guard !relationship.isToMany else { throw fail("a copied value needs a to-one relationship") }
        } else {
            guard relationship.isToMany, !child.relationships[inversePosition].isToMany else {
                throw fail("an aggregate needs a to-many relationship whose inverse is to-one")
            }
        }
        var childAttribute: Int?
        if declaration.attribute != nil || declaration.attributeName != nil {
            let found: Int? = if let attributeName = declaration.attributeName {
                child.attributes.firstIndex { $0.name == attributeName }
            } else {
                declaration.attribute.flatMap(child.attributeIndex(readBy:))
            }
            guard let index = found else {
                throw fail("it does not read an attribute of \(child.name)")
            }
            guard !child.attributes[index].isTransient else {
                throw fail("it reads the transient attribute \(child.name).\(child.attributes[index].name), which no store keeps")
            }
            childAttribute = index
        }
        try checkDerivedType(derived.index, kind: declaration.kind, source: childAttribute.map { child.attributes[$0] }, fail: fail)
        return DerivationDescription(
            id: id, kind: declaration.kind, parentEntityName: name, propertyIndex: derived.index, propertyName: property,
            relationshipIndex: attributes.count + position, inverseIndex: child.attributes.count + inversePosition,
            childEntityName: child.name, childAttributeIndex: childAttribute, declaration: declaration,
            parentAttributeCount: attributes.count, childAttributeCount: child.attributes.count)
    }

    /// A derived attribute has the type its derivation gives, optional
    /// where the value may be missing: a count is an integer, a sum has
    /// its source's type, an average is an optional `Double`, a minimum,
    /// maximum or copy an optional of its source's type. (`@Derived`'s
    /// generic signatures ensure it; a model file's attribute types are
    /// checked here.)
    private func checkDerivedType(_ index: Int, kind: DerivationKind, source: AttributeDescription?,
                                  fail: (String) -> ModelError) throws(ModelError) {
        let attribute = attributes[index]
        switch kind {
        case .count:
            guard [.integer16, .integer32, .integer64].contains(attribute.attributeType) else {
                throw fail("a count is an integer attribute, not \(attribute.attributeType)")
            }
        case .average:
            guard attribute.attributeType == .double, attribute.isOptional else { throw fail("an average is an optional double attribute") }
        case .sum, .min, .max, .copy:
            guard let source else { return }
            guard attribute.attributeType == source.attributeType else {
                throw fail("it has the type of \(source.name), \(source.attributeType), not \(attribute.attributeType)")
            }
            guard kind == .sum || attribute.isOptional else { throw fail("it has no value when there is nothing to derive it from: make it optional") }
        }
    }

    /// The name of the relationship that `keyPath` reads on this entity, if any.
    func relationshipName(readBy keyPath: AnyKeyPath) -> String? {
        relationshipKeyPaths[SendableKeyPath(keyPath)].map { relationships[$0].name }
    }

    func resolve(in declarations: [ObjectIdentifier: EntityDeclaration], hierarchy: EntityLineages, derivations: [DerivationDescription],
                 dependentDerivations: [DerivationDescription], superentity: EntityDescription?,
                 isAbstract: Bool) throws(ModelError) -> EntityDescription {
        var resolved: [RelationshipDescription] = []
        for (position, relationship) in relationships.enumerated() {
            guard let destination = declarations[ObjectIdentifier(relationship.destinationType)] else {
                throw .destinationNotInModel(entity: name, property: relationship.name,
                                             destination: relationship.destinationType.entityName)
            }
            let inverseName = try inverseName(of: relationship, destination: destination, hierarchy: hierarchy)
            guard let inverse = destination.relationships.firstIndex(where: { $0.name == inverseName }) else {
                throw .mismatchedInverse(entity: name, property: relationship.name,
                                         reason: "\(destination.name).\(inverseName) is not a relationship")
            }
            // The inverse may lead to a superclass: a sub-entity inherits it.
            guard hierarchy.isSameOrSubentity(type, of: destination.relationships[inverse].destinationType) else {
                throw .mismatchedInverse(
                    entity: name, property: relationship.name,
                    reason: "\(destination.name).\(inverseName) leads to \(destination.relationships[inverse].destinationType.entityName), not \(name)")
            }
            if relationship.isOrdered, destination.relationships[inverse].isToMany {
                throw .mismatchedInverse(entity: name, property: relationship.name,
                                         reason: "an ordered relationship needs a to-one inverse; Coherence does not keep ordered many-to-many relationships "
                                             + "(\(destination.name).\(inverseName) is to-many)")
            }
            resolved.append(RelationshipDescription(
                name: relationship.name, index: attributes.count + position, valueType: relationship.valueType,
                destinationType: relationship.destinationType, destinationEntityName: destination.name,
                inverseName: inverseName, inverseIndex: destination.attributes.count + inverse,
                inverseAttributeCount: destination.attributes.count,
                isToMany: relationship.isToMany, inverseIsToMany: destination.relationships[inverse].isToMany,
                deleteRule: relationship.deleteRule, userInfo: relationship.userInfo, isOptional: relationship.isOptional,
                minCount: relationship.minCount, maxCount: relationship.maxCount, isOrdered: relationship.isOrdered))
        }
        for index in indexes {
            guard !index.isEmpty else { throw .invalidIndex(entity: name, property: "indexes", reason: "an index names at least one attribute") }
            for property in index where !attributes.contains(where: { $0.name == property && !$0.isTransient }) {
                throw .invalidIndex(entity: name, property: property, reason: "only stored (not transient) attributes of \(name) can be indexed")
            }
        }
        for constraint in uniquenessConstraints {
            guard !constraint.isEmpty else {
                throw .invalidUniquenessConstraint(entity: name, property: "uniquenessConstraints", reason: "a constraint names at least one attribute")
            }
            for property in constraint where !attributes.contains(where: { $0.name == property && !$0.isTransient && !$0.isDerived }) {
                throw .invalidUniquenessConstraint(entity: name, property: property,
                                                   reason: "only stored attributes of \(name) that are not derived can be constrained")
            }
        }
        // "Subentities may extend a superentity's constraint": not drop it
        // (its unique index covers the whole hierarchy).
        if let superentity {
            for constraint in superentity.uniquenessConstraints where !uniquenessConstraints.contains(constraint) {
                throw .invalidUniquenessConstraint(
                    entity: name, property: constraint.joined(separator: ","),
                    reason: "a sub-entity keeps its parent \(superentity.name)'s constraints; return super.uniquenessConstraints plus its own")
            }
        }
        return EntityDescription(name: name, managedObjectClass: type, attributes: attributes,
                                 relationships: resolved, keyPathIndexes: keyPathIndexes,
                                 derivations: derivations, dependentDerivations: dependentDerivations,
                                 indexes: indexes, uniquenessConstraints: uniquenessConstraints,
                                 superentity: superentity, isAbstract: isAbstract, renamingIdentifier: renamingIdentifier,
                                 propertyRenamingIdentifiers: propertyRenamingIdentifiers, userInfo: file?.userInfo ?? [:],
                                 isFromModelFile: file != nil)
    }

    /// The inverse declared on this side, on the destination side, or both (they must agree).
    func inverseName(of relationship: DeclaredRelationship, destination: EntityDeclaration,
                     hierarchy: EntityLineages) throws(ModelError) -> String {
        var declaredHere = relationship.inverseName
        if let keyPath = relationship.inverse {
            guard let name = destination.relationshipName(readBy: keyPath) else {
                throw .mismatchedInverse(entity: name, property: relationship.name,
                                         reason: "the inverse key path is not a relationship of \(destination.name)")
            }
            declaredHere = name
        }
        let pointingBack = destination.relationships.filter { candidate in
            guard hierarchy.isSameOrSubentity(type, of: candidate.destinationType) else { return false }
            if let name = candidate.inverseName { return name == relationship.name }
            guard let keyPath = candidate.inverse else { return false }
            return relationshipName(readBy: keyPath) == relationship.name
        }
        if let declaredHere {
            if let other = pointingBack.first, other.name != declaredHere {
                throw .mismatchedInverse(
                    entity: name, property: relationship.name,
                    reason: "it names \(destination.name).\(declaredHere) but \(destination.name).\(other.name) names it as its inverse")
            }
            return declaredHere
        }
        guard let other = pointingBack.first else {
            throw .missingInverse(entity: name, property: relationship.name)
        }
        guard pointingBack.count == 1 else {
            throw .mismatchedInverse(entity: name, property: relationship.name,
                                     reason: "several relationships of \(destination.name) name it as their inverse")
        }
        return other.name
    }
}
