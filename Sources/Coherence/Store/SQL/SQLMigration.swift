import Foundation

/// What a store remembers of the model it was saved with, to tell whether
/// the current model can open it and how to migrate it.
struct StoredModel: Codable, Equatable {
    struct Attribute: Codable, Equatable {
        var name: String
        var type: String
        var isOptional: Bool
        /// How a derived attribute is derived; `nil` for a plain one.
        var derivation: String?
    }

    struct Relationship: Codable, Equatable {
        var name: String
        var destination: String
        var isToMany: Bool
        var inverseIsToMany: Bool
        var inverse: String?
        /// `true` for an ordered relationship; `nil` (absent from the JSON,
        /// so that models without one keep their hash) otherwise.
        var isOrdered: Bool?
    }

    struct Entity: Codable, Equatable {
        var name: String
        var attributes: [Attribute]
        var relationships: [Relationship]
        /// The parent entity's name; `nil` (and absent from the JSON, so
        /// that models without sub-entities keep their hash) for none.
        var superentity: String?
    }

    var entities: [Entity]

    init(_ model: ManagedObjectModel) {
        entities = model.entities.map { Entity($0, model: model) }
    }

    /// The description kept in a store's metadata, checked so that the
    /// rest of Coherence may rely on it: readable JSON, each entity named
    /// once, each property named once in its entity.
    /// - Throws: ``StoreError/damagedStore(path:reason:)`` naming what is wrong.
    static func decoded(from json: Data, location: String) throws(StoreError) -> StoredModel {
        let model: StoredModel
        do {
            model = try JSONDecoder().decode(StoredModel.self, from: json)
        } catch {
            throw .damagedStore(path: location, reason: "its model description cannot be read (\(error))")
        }
        var entityNames = Set<String>()
        for entity in model.entities {
            guard entityNames.insert(entity.name).inserted else {
                throw .damagedStore(path: location, reason: "its model description names the entity \(entity.name) twice")
            }
            var propertyNames = Set<String>()
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) where !propertyNames.insert(name).inserted {
                throw .damagedStore(path: location, reason: "its model description names the property \(entity.name).\(name) twice")
            }
        }
        return model
    }
}

extension StoredModel.Entity {
    /// What the store remembers of `entity`, an entity of `model`.
    init(_ entity: EntityDescription, model: ManagedObjectModel) {
        self.init(
            name: entity.name,
            attributes: entity.storedAttributes.map { attribute in
                let derivation = entity.derivations.first { $0.propertyIndex == attribute.index }.map {
                    "\($0.kind) \($0.relationship(in: entity)?.name ?? "-") \($0.childAttributeIndex.map(String.init) ?? "-") \(Self.condition(of: $0, in: model))"
                }
                return StoredModel.Attribute(name: attribute.name, type: "\(attribute.attributeType)", isOptional: attribute.isOptional, derivation: derivation)
            },
            relationships: entity.relationships.map {
                StoredModel.Relationship(name: $0.name, destination: $0.destinationEntityName, isToMany: $0.isToMany,
                                         inverseIsToMany: $0.inverseIsToMany, inverse: $0.inverseName, isOrdered: $0.isOrdered ? true : nil)
            },
            superentity: entity.superentity?.name)
    }

    /// A derivation's predicate as text that is the same for the same
    /// predicate in every process: its SQL condition and arguments. (A
    /// predicate's own description is not: it numbers its variables from a
    /// process-wide counter, and shows key paths by their address.) "-" for
    /// none; a predicate SQL cannot express keeps its description.
    private static func condition(of derivation: DerivationDescription, in model: ManagedObjectModel) -> String {
        guard let expression = derivation.declaration.expression, let variable = derivation.declaration.variable else { return "-" }
        guard let child = model.entitiesByName[derivation.childEntityName] else { return "\(expression)" }
        var compiler = SQLPredicateCompiler(model: model, storeNumber: 0, dialect: .sqlite, entity: child)
        guard let condition = try? compiler.condition(for: expression, variable: variable) else { return "\(expression)" }
        return "\(condition) \(compiler.arguments)"
    }
}

extension StoredModel {
    /// The canonical JSON form, stored in the metadata.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// A stable 64-bit FNV-1a hash of the canonical form, as hex.
    var hash: String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (try? encoded()) ?? Data() {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        return String(value, radix: 16)
    }
}

/// The SQL steps that bring a store saved with one model to another, or the
/// reason it cannot be done. Lightweight migration covers added and removed
/// entities, attributes and relationships, new attributes that are optional or
/// have an initial value, and renames declared with `renamingIdentifier` /
/// `propertyRenamingIdentifiers`.
struct SQLMigration {
    private(set) var steps: [(any SQLDatabase) throws -> Void] = []
    private var renamedEntities: [String: String] = [:]
    /// Join tables already handled, by their new name.
    private var joinTablesDone: Set<String> = []

    var isEmpty: Bool { steps.isEmpty }

    init(from old: StoredModel, to model: ManagedObjectModel) throws(StoreError) {
        try Self.checkHierarchies(from: old, to: model)
        var remaining = Dictionary(uniqueKeysWithValues: old.entities.map { ($0.name, $0) })
        // The new name of each old entity, to tell renamed destinations from changed ones.
        var renamedEntities: [String: String] = [:]
        for entity in model.entities {
            if remaining[entity.name] != nil { renamedEntities[entity.name] = entity.name }
            else if let old = entity.renamingIdentifier, remaining[old] != nil { renamedEntities[old] = entity.name }
        }
        self.renamedEntities = renamedEntities
        let oldEntities = remaining
        for entity in model.entities {
            let previousName = remaining[entity.name] != nil ? entity.name : entity.renamingIdentifier.flatMap { remaining[$0] != nil ? $0 : nil }
            if entity.superentity != nil {
                // A sub-entity's columns are in its root's table: added below.
                if let previousName, let previous = remaining.removeValue(forKey: previousName),
                   previous.superentity != entity.superentity?.name {
                    throw .incompatibleModel(reason: "\(entity.name) changed its parent entity from \(previous.superentity ?? "none") to \(entity.superentity!.name)")
                }
                continue
            }
            guard let previousName, let previous = remaining.removeValue(forKey: previousName) else {
                steps.append { db in try SQLSchema.createTable(entity, in: db) }
                continue
            }
            if previousName != entity.name {
                steps.append { db in
                    try db.execute("ALTER TABLE \(SQLSchema.table(named: previousName)) RENAME TO \(SQLSchema.table(entity))", [])
                    try db.execute("UPDATE \(SQLSchema.primaryKeyTable) SET entity = ? WHERE entity = ?",
                                   [.string(entity.name), .string(previousName)])
                    try SQLKeys.renameSequence(from: previousName, to: entity.name, in: db)
                    // History names the entity too.
                    if try db.tableExists(SQLHistorySchema.changeCounter) {
                        try db.execute("UPDATE \(SQLHistorySchema.changeTable) SET \"ZENTITY\" = ? WHERE \"ZENTITY\" = ?",
                                       [.string(entity.name), .string(previousName)])
                    }
                }
            }
            try migrateProperties(of: entity, from: previous)
        }
        // Hierarchies that gained an entity, a property or their entity
        // column: the root's table gets the missing columns.
        for root in model.entities where root.superentity == nil && root.isInHierarchy {
            let changed = root.selfAndDescendants.contains { entity in
                guard let old = oldEntities[entity.name] else { return true }
                return old != StoredModel.Entity(entity, model: model) || (entity === root && !oldEntities.values.contains { $0.superentity == root.name })
            }
            if changed { steps.append { db in try SQLSchema.addMissingHierarchyColumns(root, in: db) } }
        }
        migratePositions(from: oldEntities, to: model)
        for (name, entity) in remaining {
            if let parent = entity.superentity {
                // A sub-entity removed: its rows go (its root's table stays).
                var root = parent
                while let next = oldEntities[root]?.superentity { root = next }
                let rootName = model.entitiesByName[root]?.rootEntity.name ?? root
                steps.append { db in
                    if try db.tableExists(rootName), try db.columnNames(rootName).contains(SQLSchema.entityColumn) {
                        try db.execute("DELETE FROM \(SQLSchema.table(named: rootName)) WHERE \(SQLSchema.quote(SQLSchema.entityColumn)) = ?", [.string(name)])
                    }
                }
                continue
            }
            steps.append { db in
                try db.execute("DROP TABLE IF EXISTS \(SQLSchema.table(named: name))", [])
                try db.execute("DELETE FROM \(SQLSchema.primaryKeyTable) WHERE entity = ?", [.string(name)])
                try SQLKeys.dropSequence(root: name, in: db)
                for relationship in entity.relationships where relationship.isToMany && relationship.inverseIsToMany {
                    try db.execute("DROP TABLE IF EXISTS \(SQLSchema.quote("Z_\(name)_\(relationship.name)"))", [])
                }
            }
        }
    }

    private mutating func migrateProperties(of entity: EntityDescription, from previous: StoredModel.Entity) throws(StoreError) {
        let renames = entity.propertyRenamingIdentifiers
        let table = SQLSchema.table(entity)
        var oldAttributes = Dictionary(uniqueKeysWithValues: previous.attributes.map { ($0.name, $0) })
        for attribute in entity.storedAttributes {
            let oldName = oldAttributes[attribute.name] != nil ? attribute.name : renames[attribute.name]
            if let oldName, let old = oldAttributes.removeValue(forKey: oldName) {
                guard old.type == "\(attribute.attributeType)" else {
                    throw .incompatibleModel(reason: "\(entity.name).\(attribute.name) changed type from \(old.type) to \(attribute.attributeType)")
                }
                if old.isOptional, !attribute.isOptional {
                    throw .incompatibleModel(reason: "\(entity.name).\(attribute.name) became required; saved objects may have no value")
                }
                if oldName != attribute.name {
                    steps.append { db in
                        try db.execute("ALTER TABLE \(table) RENAME COLUMN \(SQLSchema.quote(oldName)) TO \(SQLSchema.quote(attribute.name))", [])
                    }
                }
            } else {
                guard let defaultValue = attribute.defaultValue else {
                    throw .incompatibleModel(reason: "\(entity.name).\(attribute.name) is new, required and has no initial value for saved objects")
                }
                steps.append { db in
                    try db.execute("ALTER TABLE \(table) ADD COLUMN \(SQLSchema.quote(attribute.name)) \(db.dialect.columnType(attribute.attributeType))", [])
                    try db.execute("UPDATE \(table) SET \(SQLSchema.quote(attribute.name)) = ?", [defaultValue])
                }
            }
        }
        for name in oldAttributes.keys.sorted() {
            steps.append { db in try db.execute("ALTER TABLE \(table) DROP COLUMN \(SQLSchema.quote(name))", []) }
        }

        var oldRelationships = Dictionary(uniqueKeysWithValues: previous.relationships.map { ($0.name, $0) })
        for relationship in entity.relationships {
            let oldName = oldRelationships[relationship.name] != nil ? relationship.name : renames[relationship.name]
            if let oldName, let old = oldRelationships.removeValue(forKey: oldName) {
                guard old.isToMany == relationship.isToMany, old.inverseIsToMany == relationship.inverseIsToMany else {
                    throw .incompatibleModel(reason: "\(entity.name).\(relationship.name) changed between to-one and to-many")
                }
                guard renamedEntities[old.destination] == relationship.destinationEntityName else {
                    throw .incompatibleModel(reason: "\(entity.name).\(relationship.name) changed its destination from \(old.destination) to \(relationship.destinationEntityName)")
                }
                if let join = SQLSchema.joinTable(relationship, of: entity), let inverse = old.inverse {
                    // Join tables are named after the first "Entity.relationship"
                    // of the pair; a renamed entity or relationship renames it.
                    let oldPair = ["\(previous.name).\(oldName)", "\(old.destination).\(inverse)"]
                    let oldCanonical = oldPair.min()!
                    let oldTable = SQLSchema.quote("Z_" + oldCanonical.replacingOccurrences(of: ".", with: "_"))
                    let oldSourceIsThisSide = oldCanonical == oldPair[0]
                    if !joinTablesDone.contains(join.name) {
                        joinTablesDone.insert(join.name)
                        if oldTable != join.name || oldSourceIsThisSide != join.relationshipIsSource {
                            let swap = oldSourceIsThisSide != join.relationshipIsSource
                            steps.append { db in
                                try SQLSchema.createJoinTable(join, in: db)
                                try db.execute(swap
                                    ? "INSERT INTO \(join.name) (source, destination) SELECT destination, source FROM \(oldTable) WHERE TRUE ON CONFLICT DO NOTHING"
                                    : "INSERT INTO \(join.name) (source, destination) SELECT source, destination FROM \(oldTable) WHERE TRUE ON CONFLICT DO NOTHING", [])
                                try db.execute("DROP TABLE \(oldTable)", [])
                            }
                        }
                    }
                }
                if oldName != relationship.name, !relationship.isToMany {
                    steps.append { db in
                        try db.execute("DROP INDEX IF EXISTS \(SQLSchema.quote("Z_\(entity.name)_\(oldName)"))", [])
                        try db.execute("ALTER TABLE \(table) RENAME COLUMN \(SQLSchema.quote(oldName)) TO \(SQLSchema.quote(relationship.name))", [])
                        try SQLSchema.createIndex(relationship, of: entity, in: db)
                    }
                }
            } else if !relationship.isToMany {
                steps.append { db in
                    try db.execute("ALTER TABLE \(table) ADD COLUMN \(SQLSchema.quote(relationship.name)) \(db.dialect.keyType)", [])
                    try SQLSchema.createIndex(relationship, of: entity, in: db)
                }
            } else if let join = SQLSchema.joinTable(relationship, of: entity), !joinTablesDone.contains(join.name) {
                joinTablesDone.insert(join.name)
                steps.append { db in try SQLSchema.createJoinTable(join, in: db) }
            }
        }
        for (name, old) in oldRelationships.sorted(by: { $0.key < $1.key }) {
            if !old.isToMany {
                steps.append { db in
                    try db.execute("DROP INDEX IF EXISTS \(SQLSchema.quote("Z_\(entity.name)_\(name)"))", [])
                    try db.execute("ALTER TABLE \(table) DROP COLUMN \(SQLSchema.quote(name))", [])
                }
            } else if old.inverseIsToMany {
                steps.append { db in try db.execute("DROP TABLE IF EXISTS \(SQLSchema.quote("Z_\(entity.name)_\(name)"))", []) }
            }
        }
    }

    /// The position columns of relationships that were ordered, for every
    /// entity (sub-entities too), after every table has its new name.
    private mutating func migratePositions(from oldEntities: [String: StoredModel.Entity], to model: ManagedObjectModel) {
        var done = Set<String>()
        for entity in model.entities {
            let previousName = oldEntities[entity.name] != nil ? entity.name : entity.renamingIdentifier
            guard let previous = previousName.flatMap({ oldEntities[$0] }) else { continue }
            let renames = entity.propertyRenamingIdentifiers
            for relationship in entity.relationships where relationship.isToMany && !relationship.inverseIsToMany {
                let oldName = previous.relationships.contains { $0.name == relationship.name } ? relationship.name : renames[relationship.name]
                guard let old = previous.relationships.first(where: { $0.name == oldName }), old.isOrdered == true,
                      let oldInverse = old.inverse, done.insert(relationship.destinationRootEntityName + "." + oldInverse).inserted else { continue }
                migratePositions(of: relationship, oldColumn: "Z_FOK_" + oldInverse)
            }
        }
    }

    /// Keeps the positions of a relationship that was ordered (in
    /// `oldColumn` of its destination's table): renamed with its inverse,
    /// dropped when it is no longer ordered, so that stale positions never
    /// come back if it is ordered again. A relationship that becomes
    /// ordered gets its column from ``SQLSchema/addOrderColumns(_:in:)``.
    private mutating func migratePositions(of relationship: RelationshipDescription, oldColumn: String) {
        let tableName = relationship.destinationRootEntityName
        let column = SQLSchema.orderColumn(relationship)
        guard column != oldColumn else { return }
        steps.append { db in
            guard try db.columnNames(tableName).contains(oldColumn) else { return }
            if let column {
                try db.execute("ALTER TABLE \(SQLSchema.table(named: tableName)) RENAME COLUMN \(SQLSchema.quote(oldColumn)) TO \(SQLSchema.quote(column))", [])
            } else {
                try db.execute("ALTER TABLE \(SQLSchema.table(named: tableName)) DROP COLUMN \(SQLSchema.quote(oldColumn))", [])
            }
        }
    }

    func apply(in db: any SQLDatabase) throws {
        for step in steps { try step(db) }
    }
}
