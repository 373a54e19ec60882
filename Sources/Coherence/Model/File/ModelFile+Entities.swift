import Foundation

/// What a model file says of an entity beyond its properties.
struct FileEntityFacts {
    /// The `parentEntity`.
    let parentName: String?
    let isAbstract: Bool
    let userInfo: [String: String]
}

extension ManagedObjectModel {
    /// Reads an Xcode model file, as Core Data's
    /// `NSManagedObjectModel(contentsOf:)` reads the model Xcode compiles
    /// from it.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(
    ///     contentsOf: URL(filePath: "Model.xcdatamodeld"), classes: [Car.self, Person.self])
    /// ```
    ///
    /// `url` names a versioned model (`.xcdatamodeld`: the version its
    /// `.xccurrentversion` names is read), one version (`.xcdatamodel`), or
    /// a `contents` file. A store saved with another version migrates
    /// lightweight when it opens, as with any model change.
    ///
    /// Each entity's objects are of the class among `classes` whose name is
    /// the entity's `representedClassName` (without a module prefix):
    /// Linux has no Objective-C runtime to find a class by name, so list
    /// the classes you ported. An entity whose class is not listed (or that
    /// names `NSManagedObject`) has plain ``ManagedObject``s, read and
    /// written with ``ManagedObject/value(forKey:)`` and
    /// ``ManagedObject/setValue(_:forKey:)``, created with
    /// ``ManagedObject/init(entity:insertInto:)`` or
    /// ``EntityDescription/insertNewObject(forEntityName:into:)``. A listed
    /// class takes its properties from the file; it must not declare any
    /// with `@Attribute` or `@Relationship`. The class of an entity without
    /// a parent entity may add derived attributes the file cannot express
    /// (a count with a filter) with `@Derived` by name:
    /// `@Derived(count: "items", where: "done == NO") var openCount: Int`.
    ///
    /// The entity hierarchy is the file's (`parentEntity`): a class's
    /// superclass need not be an entity. When an entity and its parent
    /// both have classes, the entity's class must subclass the parent's.
    ///
    /// Attribute types map to Swift types as Core Data's Swift code
    /// generation maps them (`Integer 16` → `Int16`, `Decimal` → `Decimal`,
    /// `Binary` → `Data`, `URI` → `URL`, …; optional attributes to
    /// optionals). Derived attributes whose expression `@Derived` can
    /// compute (`items.@count`, `items.@sum.price`, `@min`, `@max`,
    /// `@avg`, `owner.name`) are derived. Transformable attributes hold
    /// `Data`, a keyed archive that `@Managed` reads and writes as its
    /// declared type (``Managed()``). Anything in the file Coherence
    /// does not support (composite attributes, other
    /// derivation expressions, ordered relationships, fetched
    /// properties, fetch request templates, configurations, validation
    /// ranges, …) throws, never silently dropped.
    ///
    /// - Throws: ``ModelError/modelFile(file:line:entity:property:reason:)``
    ///   naming the XML line, entity and property at fault, or any other
    ///   ``ModelError`` the model's checks find.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectmodel/init(contentsof:)>
    public convenience init(contentsOf url: URL, classes: [ManagedObject.Type] = []) throws(ModelError) {
        let file = try ModelFile(contentsOf: url)
        try self.init(declarations: file.entityDeclarations(classes: classes), locating: file.locate)
    }
}

extension ModelFile {
    /// The model's children Coherence reads or may ignore (`<elements>` is
    /// the diagram's layout).
    static let modelChildren: Set<String> = ["entity", "elements"]
    /// The XML attributes of an `<entity>` Coherence reads or may ignore.
    static let entityKeys: Set<String> = [
        "name", "representedClassName", "parentEntity", "isAbstract", "elementID", "syncable", "codeGenerationType",
        "versionHashModifier",
    ]

    /// The entities' declarations, in file order.
    func entityDeclarations(classes listed: [ManagedObject.Type]) throws(ModelError) -> [EntityDeclaration] {
        // Phase 1: every entity, its class and its own properties' elements.
        if let other = root.children.first(where: { !Self.modelChildren.contains($0.name) }) {
            throw error(other, entity: "", "<\(other.name)> is not supported by Coherence")
        }
        let elements = root.children(named: "entity")
        var byName: [String: Element] = [:]
        var classes: [String: ManagedObject.Type] = [:]
        var listedClasses: [String: ManagedObject.Type] = [:]
        for type in listed {
            guard listedClasses.updateValue(type, forKey: String(describing: type)) == nil else {
                throw error(root, entity: "", "two classes in classes: are named \(type); an entity's representedClassName names one")
            }
        }
        var usedClasses: [ObjectIdentifier: String] = [:]
        for element in elements {
            guard let name = element.attributes["name"], !name.isEmpty else { throw error(element, entity: "", "an entity has no name") }
            guard byName[name] == nil else { throw error(element, entity: name, "the model has two entities named \(name)") }
            byName[name] = element
            let className = element.attributes["representedClassName"].map { String($0.split(separator: ".").last ?? "") }
            if let className, let type = listedClasses[className] {
                if let other = usedClasses[ObjectIdentifier(type)] {
                    throw error(element, entity: name, "its class \(className) is the class of \(other) too")
                }
                guard type.entityName == name else {
                    throw error(element, entity: name, "its class \(className) names the entity \(type.entityName); override its entityName to return \"\(name)\"")
                }
                usedClasses[ObjectIdentifier(type)] = name
                classes[name] = type
            } else {
                classes[name] = ModeledClasses.objectClass(forEntityNamed: name)
            }
        }
        if let unused = listed.first(where: { usedClasses[ObjectIdentifier($0)] == nil }) {
            throw error(root, entity: "", "the class \(unused) in classes: is the class of no entity: no representedClassName names it")
        }
        // Phase 2: the hierarchy.
        for element in elements {
            let name = element.attributes["name"]!
            try checkKnown(entity: element, name: name)
            guard let parentName = element.attributes["parentEntity"] else { continue }
            guard byName[parentName] != nil else { throw error(element, entity: name, "the parent entity \(parentName) is not in the model") }
            var ancestor: String? = parentName
            var seen: Set<String> = [name]
            while let next = ancestor {
                guard seen.insert(next).inserted else { throw error(element, entity: name, "its parent entities form a cycle") }
                ancestor = byName[next]?.attributes["parentEntity"]
            }
            try checkClasses(of: name, parent: parentName, classes: classes, element: element)
        }
        func lineage(_ name: String) -> [String] {
            (byName[name]?.attributes["parentEntity"].map(lineage) ?? []) + [name]
        }
        // Phase 3: each entity's properties, its ancestors' first: the
        // @Derived attributes its class adds, then the file's.
        var declared: [String: (attributes: [any AttributeDescribing], relationships: [DeclaredRelationship])] = [:]
        var swiftDerived: [ObjectIdentifier: any PropertyDeclaring.Type] = [:]
        for element in elements {
            let name = element.attributes["name"]!
            var attributes: [any AttributeDescribing] = []
            if let type = listedClasses.values.first(where: { usedClasses[ObjectIdentifier($0)] == name }) {
                let ancestors = lineage(name).dropLast().map { classes[$0]! }
                let hierarchy = elements.filter { lineage($0.attributes["name"]!).first == name }
                let fileNames = Set(hierarchy.flatMap(\.children).filter { $0.name == "attribute" || $0.name == "relationship" }
                    .compactMap { $0.attributes["name"] })
                for (declaring, attribute) in try swiftDerivedAttributes(of: type, element: element, entity: name, ancestors: ancestors,
                                                                         fileNames: fileNames) {
                    attributes.append(attribute)
                    if let declaration = attribute as? PropertyDeclaration { swiftDerived[ObjectIdentifier(declaration)] = declaring }
                }
            }
            var relationships: [DeclaredRelationship] = []
            try checkPropertyNames(of: element, entity: name, lineage: byName)
            for child in element.children {
                switch child.name {
                case "attribute": attributes.append(try attribute(child, entity: name))
                case "relationship": relationships.append(try relationship(child, entity: name, classes: classes))
                default: break
                }
            }
            declared[name] = (attributes, relationships)
        }
        // Phase 4: the declarations.
        return try elements.map { element throws(ModelError) in
            let name = element.attributes["name"]!
            let names = lineage(name)
            var attributes: [AttributeDescription] = []
            var derived: [(index: Int, declaration: DerivationDeclaration)] = []
            var keyPaths: [SendableKeyPath: Int] = [:]
            for attribute in names.flatMap({ declared[$0]!.attributes }) {
                if let derivation = (attribute as? any DerivedDescribing)?.derivation { derived.append((attributes.count, derivation)) }
                if let declaration = attribute as? PropertyDeclaration, let declaring = swiftDerived[ObjectIdentifier(declaration)] {
                    declaration.bind(position: attributes.count, entity: name)
                    // Declared in Swift: known by key path too (observers, predicates, sorts).
                    if let keyPath = declaring.keyPath(rootedAt: classes[name]!) { keyPaths[SendableKeyPath(keyPath)] = attributes.count }
                }
                attributes.append(try attribute.describe(entity: name, index: attributes.count))
            }
            let relationships = names.flatMap { declared[$0]!.relationships }
            return EntityDeclaration(
                fileEntity: name, type: classes[name]!, attributes: attributes, relationships: relationships, derived: derived,
                attributeKeyPaths: keyPaths,
                facts: FileEntityFacts(parentName: element.attributes["parentEntity"], isAbstract: Self.flag(element, "isAbstract"),
                                       userInfo: Self.userInfo(of: element)),
                indexes: try indexes(of: element, entity: name, attributes: attributes),
                uniquenessConstraints: inheritedConstraints(names.compactMap { byName[$0] }),
                renamingIdentifier: element.attributes["elementID"],
                propertyRenamingIdentifiers: renamingIdentifiers(names.compactMap { byName[$0] }))
        }
    }

    /// Every property of an entity has a name, none twice among the
    /// entity and its ancestors.
    private func checkPropertyNames(of element: Element, entity: String, lineage byName: [String: Element]) throws(ModelError) {
        var inherited: Set<String> = []
        var ancestor = element.attributes["parentEntity"].flatMap { byName[$0] }
        while let next = ancestor {
            for child in next.children where child.name == "attribute" || child.name == "relationship" {
                inherited.insert(child.attributes["name"] ?? "")
            }
            ancestor = next.attributes["parentEntity"].flatMap { byName[$0] }
        }
        var own: Set<String> = []
        for child in element.children where child.name == "attribute" || child.name == "relationship" {
            guard let name = child.attributes["name"], !name.isEmpty else { throw error(child, entity: entity, "a property has no name") }
            guard !inherited.contains(name) else { throw error(child, entity: entity, property: name, "a parent entity has a property of the same name") }
            guard own.insert(name).inserted else { throw error(child, entity: entity, property: name, "the entity has two properties named \(name)") }
        }
    }

    /// `error`, found by the model's checks after the file was read, at the
    /// line of the entity and property it names.
    func locate(_ error: ModelError) -> ModelError {
        guard let (entity, property) = error.place else { return error }
        let entityElement = root.children(named: "entity").first { $0.attributes["name"] == entity }
        let propertyElement = entityElement?.children.first { $0.attributes["name"] == property && !property.isEmpty }
        var reason = error.description
        let prefix = "\(entity).\(property): "
        if reason.hasPrefix(prefix) { reason.removeFirst(prefix.count) }
        return .modelFile(file: path, line: propertyElement?.line ?? entityElement?.line ?? root.line,
                          entity: entity, property: property, reason: reason)
    }

    /// Refuses an entity's unknown XML attributes and children.
    private func checkKnown(entity element: Element, name: String) throws(ModelError) {
        if let unknown = element.attributes.keys.sorted().first(where: { !Self.entityKeys.contains($0) }) {
            throw error(element, entity: name, "\(unknown)=\"\(element.attributes[unknown] ?? "")\" is not supported by Coherence")
        }
        let known: Set<String> = ["attribute", "relationship", "fetchIndex", "compoundIndexes", "uniquenessConstraints", "userInfo"]
        if let child = element.children.first(where: { !known.contains($0.name) }) {
            let what = child.name == "fetchedProperty" ? "fetched properties are" : "<\(child.name)> is"
            throw error(child, entity: name, property: child.attributes["name"] ?? "", "\(what) not supported by Coherence")
        }
    }

    /// An entity whose parent has a class must have a subclass of it: a
    /// fetch of the parent returns the entity's objects as the parent's.
    private func checkClasses(of name: String, parent: String, classes: [String: ManagedObject.Type],
                              element: Element) throws(ModelError) {
        let type = classes[name]!, parentType = classes[parent]!
        guard ModeledClasses.isModeled(parentType) || isSameOrSubclass(type, of: parentType) else {
            throw error(element, entity: name, "its parent entity \(parent) has the class \(parentType), so its class must subclass \(parentType)"
                        + (ModeledClasses.isModeled(type) ? "; list a class for it" : ", and \(type) does not"))
        }
    }

    /// The entity's fetch indexes (`<fetchIndex>`, the older
    /// `<compoundIndexes>`) and attributes marked `indexed`.
    private func indexes(of element: Element, entity: String, attributes: [AttributeDescription]) throws(ModelError) -> [[String]] {
        var indexes: [[String]] = []
        for index in element.children(named: "fetchIndex") {
            var names: [String] = []
            for part in index.children {
                guard part.name == "fetchIndexElement", let property = part.attributes["property"] else {
                    throw error(part, entity: entity, property: index.attributes["name"] ?? "",
                                "an index element other than an attribute (an expression) is not supported by Coherence")
                }
                guard (part.attributes["type"] ?? "Binary") == "Binary", (part.attributes["order"] ?? "ascending") == "ascending" else {
                    throw error(part, entity: entity, property: property, "only ascending binary indexes are supported by Coherence")
                }
                names.append(property)
            }
            indexes.append(names)
        }
        for compound in element.children(named: "compoundIndexes").flatMap({ $0.children(named: "compoundIndex") }) {
            indexes.append(compound.children(named: "index").compactMap { $0.attributes["value"] })
        }
        for attribute in element.children(named: "attribute") where Self.flag(attribute, "indexed") {
            indexes.append([attribute.attributes["name"] ?? ""])
        }
        return indexes
    }

    /// The `<uniquenessConstraints>` of `entities` (an entity and its
    /// ancestors): a sub-entity keeps its parent's constraints and may add
    /// its own, as in Core Data.
    private func inheritedConstraints(_ entities: [Element]) -> [[String]] {
        var constraints: [[String]] = []
        for entity in entities {
            for constraint in entity.children(named: "uniquenessConstraints").flatMap({ $0.children(named: "uniquenessConstraint") }) {
                let names = constraint.children(named: "constraint").compactMap { $0.attributes["value"] }
                if !constraints.contains(names) { constraints.append(names) }
            }
        }
        return constraints
    }

    /// The renaming IDs (`elementID`) of the properties of `entities`.
    private func renamingIdentifiers(_ entities: [Element]) -> [String: String] {
        var renames: [String: String] = [:]
        for property in entities.flatMap(\.children) where property.name == "attribute" || property.name == "relationship" {
            if let name = property.attributes["name"], let previous = property.attributes["elementID"] { renames[name] = previous }
        }
        return renames
    }
}

extension EntityDeclaration {
    /// An entity read from a model file.
    init(fileEntity name: String, type: ManagedObject.Type, attributes: [AttributeDescription], relationships: [DeclaredRelationship],
         derived: [(index: Int, declaration: DerivationDeclaration)], attributeKeyPaths: [SendableKeyPath: Int], facts: FileEntityFacts, indexes: [[String]], uniquenessConstraints: [[String]], renamingIdentifier: String?,
         propertyRenamingIdentifiers: [String: String]) {
        self.type = type
        self.name = name
        file = facts
        self.attributes = attributes
        self.relationships = relationships
        self.derived = derived
        self.attributeKeyPaths = attributeKeyPaths
        relationshipKeyPaths = [:]
        self.indexes = indexes
        self.uniquenessConstraints = uniquenessConstraints
        self.renamingIdentifier = renamingIdentifier
        self.propertyRenamingIdentifiers = propertyRenamingIdentifiers
        isAbstract = facts.isAbstract
    }
}
