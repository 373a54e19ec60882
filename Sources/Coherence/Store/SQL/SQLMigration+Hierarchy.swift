// What lightweight migration supports for sub-entities (a hierarchy shares
// its root's table): adding sub-entities, and adding attributes and
// relationships that need no values for saved rows. Anything that would
// move, rename or retype a column a hierarchy shares is refused with a typed
// error before the file is touched, rather than risk losing values.
extension SQLMigration {
    static func checkHierarchies(from old: StoredModel, to model: ManagedObjectModel) throws(StoreError) {
        let oldEntities = Dictionary(uniqueKeysWithValues: old.entities.map { ($0.name, $0) })
        func oldHierarchy(_ name: String) -> Bool {
            oldEntities[name]?.superentity != nil || old.entities.contains { $0.superentity == name }
        }
        func refuse(_ reason: String) -> StoreError { .incompatibleModel(reason: reason) }
        for entity in model.entities where entity.isInHierarchy || oldHierarchy(entity.name) {
            let renamed = entity.renamingIdentifier.flatMap { oldEntities[$0] != nil && oldEntities[entity.name] == nil ? $0 : nil }
            if let renamed {
                throw refuse("\(entity.name) (formerly \(renamed)) is part of an entity hierarchy; renaming such entities is not supported by lightweight migration")
            }
            guard let previous = oldEntities[entity.name] else { continue }
            // Only renames that take effect now (identifiers left from an
            // earlier migration, or inherited from a parent, do not).
            let oldNames = Set(previous.attributes.map(\.name) + previous.relationships.map(\.name))
            let renames = entity.propertyRenamingIdentifiers.filter { new, old in
                oldNames.contains(old) && !oldNames.contains(new)
            }
            if !renames.isEmpty {
                throw refuse("\(entity.name) renames properties (\(renames.keys.sorted().joined(separator: ", "))) in an entity hierarchy; not supported by lightweight migration")
            }
            for attribute in previous.attributes {
                guard let now = entity.attribute(named: attribute.name) else {
                    throw refuse("\(entity.name).\(attribute.name) was removed from an entity hierarchy; not supported by lightweight migration")
                }
                if attribute.type != "\(now.attributeType)" || (attribute.isOptional && !now.isOptional) {
                    throw refuse("\(entity.name).\(attribute.name) changed its type or became required in an entity hierarchy")
                }
            }
            for relationship in previous.relationships where entity.relationship(named: relationship.name) == nil {
                throw refuse("\(entity.name).\(relationship.name) was removed from an entity hierarchy; not supported by lightweight migration")
            }
            for attribute in entity.storedAttributes where !previous.attributes.contains(where: { $0.name == attribute.name }) {
                if !attribute.isOptional && attribute.defaultValue == nil {
                    throw refuse("\(entity.name).\(attribute.name) is new, required and has no initial value: saved objects would have none")
                }
            }
        }
        // A property may not move between a root and its sub-entities: the
        // column would be dropped by one and re-added empty by the other.
        for root in model.entities where root.superentity == nil && root.isInHierarchy {
            guard let previous = oldEntities[root.name] else { continue }
            let oldDescendants = old.entities.filter { entity in
                var parent = entity.superentity
                while let name = parent { if name == root.name { return true }; parent = oldEntities[name]?.superentity }
                return false
            }
            let descendantNames = Set(oldDescendants.flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) })
            let rootNames = Set(previous.attributes.map(\.name) + previous.relationships.map(\.name))
            for name in root.propertyNames where descendantNames.contains(name) && !rootNames.contains(name) {
                throw refuse("\(root.name).\(name) moved from a sub-entity to \(root.name); not supported by lightweight migration")
            }
        }
    }
}
