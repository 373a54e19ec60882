import Foundation

// A model file's schema with derived attributes declared in Swift: the
// class of a file's entity may add `@Derived` attributes by name
// (`Derived+Names.swift`), which a model file cannot express (a count
// with a filter). Every other property comes from the file.
extension ModelFile {
    /// The `@Derived` attributes `type`, the listed class of the entity
    /// `entity`, declares in Swift (with its base classes that are not the
    /// classes of `ancestors`): base classes first, in declaration order.
    ///
    /// They come first among the entity's attributes: a declaration has one
    /// position in every model (see ``PropertyDeclaration``), which must
    /// not move when another version of the file adds an attribute; so only
    /// the class of a root entity (one without a parent entity) may declare
    /// them, and its sub-entities inherit them.
    func swiftDerivedAttributes(of type: ManagedObject.Type, element: Element, entity: String, ancestors: [ManagedObject.Type],
                                fileNames: Set<String>) throws(ModelError) -> [(declaring: any PropertyDeclaring.Type, attribute: any AttributeDescribing)] {
        let excluded = Set(ancestors.map(ObjectIdentifier.init))
        var levels: [[any PropertyDeclaring.Type]] = []
        var mirror: Mirror? = Mirror(reflecting: type.init())
        while let level = mirror, let levelType = level.subjectType as? AnyClass, levelType != ManagedObject.self,
              !excluded.contains(ObjectIdentifier(levelType)) {
            levels.append(level.children.compactMap { (Swift.type(of: $0.value) as? any ReflectedPropertyField.Type)?.declaring })
            mirror = level.superclassMirror
        }
        var attributes: [(declaring: any PropertyDeclaring.Type, attribute: any AttributeDescribing)] = []
        for declaring in levels.reversed().joined() {
            let declaration = declaring.anyDeclaration
            let name = declaration.name
            func fail(_ reason: String) -> ModelError { error(element, entity: entity, property: name, reason) }
            guard let derived = declaration as? any DerivedDescribing, let attribute = declaration as? any AttributeDescribing else {
                throw fail("\(type) declares \(name) in Swift; an entity read from a model file takes its properties from the file "
                           + "(a class may add only @Derived attributes)")
            }
            guard derived.derivation.relationshipName != nil else {
                throw fail("\(type) declares @Derived \(name) with key paths; for a model file's entity name the relationship and attribute, "
                           + "as @Derived(count: \"items\", where: \"done == NO\") does: Swift cannot name a @Managed property from its key path")
            }
            guard ancestors.isEmpty else {
                throw fail("\(type), the class of a sub-entity, declares @Derived \(name); declare it on the class of the topmost parent entity "
                           + "(listing a class for that entity if it has none)")
            }
            guard !fileNames.contains(name) else {
                throw fail("\(type) declares @Derived \(name), and the file has a property of that name")
            }
            attributes.append((declaring, attribute))
        }
        return attributes
    }
}
