import Foundation

/// How a hierarchy of entities (sub-entities, Core Data's `superentity`) is
/// stored, as Core Data stores it: one table per root entity, named after
/// it, with an entity column (`Z_ENT`, the concrete entity's name) and the
/// columns of every entity of the hierarchy (their union, by name; a
/// sub-entity's own columns are `NULL` in other entities' rows). Primary
/// keys come from the root's counter or sequence (``SQLKeys``), so that no
/// two objects of a hierarchy share one.
///
/// A row reads back as an object of its concrete entity. A to-one
/// relationship's column holds the destination's key only; when the
/// destination entity has sub-entities, the select list reads the
/// destination's `Z_ENT` with a subquery, so that its ID names the concrete
/// entity. Entities outside hierarchies, which do not refer to one, are
/// stored and read exactly as before.
extension SQLSchema {
    static let entityColumn = "Z_ENT"

    /// One column of a hierarchy's table.
    struct Column {
        let name: String
        /// The attribute type; `nil` for a to-one relationship's key.
        let type: AttributeType?

        func definition(_ dialect: SQLDialect) -> String {
            type.map(dialect.columnType) ?? dialect.keyType
        }
    }

    /// The columns of `root`'s table after `Z_PK` and `Z_OPT` (and `Z_ENT`):
    /// the stored attributes and to-one relationships of every entity of the
    /// hierarchy, the root's first, each name once.
    static func tableColumns(_ root: EntityDescription) -> [Column] {
        var seen: Set<String> = []
        var columns: [Column] = []
        for entity in root.selfAndDescendants {
            for attribute in entity.storedAttributes where seen.insert(attribute.name).inserted {
                columns.append(Column(name: attribute.name, type: attribute.attributeType))
            }
            for relationship in toOne(entity) where seen.insert(relationship.name).inserted {
                columns.append(Column(name: relationship.name, type: nil))
            }
        }
        return columns
    }

    /// The to-one relationships of `root`'s table whose destination has
    /// sub-entities: their destination's `Z_ENT` is selected after the columns.
    static func polymorphicToOne(_ root: EntityDescription) -> [RelationshipDescription] {
        var seen: Set<String> = []
        return root.selfAndDescendants.flatMap(toOne).filter { $0.destinationHasSubentities && seen.insert($0.name).inserted }
    }

    /// `Z_PK, Z_OPT[, Z_ENT], columns…, destination entities…` for an entity
    /// in a hierarchy or with a to-one relationship to one.
    static func hierarchySelectList(_ entity: EntityDescription, alias: String?) -> String {
        let root = entity.rootEntity
        let prefix = alias.map { quote($0) } ?? table(root)
        var items = [primaryKey, version] + (root.isInHierarchy ? [entityColumn] : []) + tableColumns(root).map(\.name)
        items = items.map { prefix + "." + quote($0) }
        for relationship in polymorphicToOne(root) {
            items.append("(SELECT z.\(quote(entityColumn)) FROM \(quote(relationship.destinationRootEntityName)) AS z WHERE z.\(quote(primaryKey)) = \(prefix).\(quote(relationship.name)))")
        }
        return items.joined(separator: ", ")
    }

    /// Where each property of `entity` is in a row read with its select list
    /// (counted from `Z_PK`): its column (-1 for none), and for a to-one
    /// relationship to a hierarchy, its destination's entity name (-1 for none).
    static func rowLayout(_ entity: EntityDescription) -> (columns: [Int], entityNames: [Int]) {
        let root = entity.rootEntity
        let base = root.isInHierarchy ? 3 : 2
        let names = tableColumns(root).map(\.name)
        let polymorphic = polymorphicToOne(root).map(\.name)
        var columns = [Int](repeating: -1, count: entity.propertyCount)
        var entityNames = [Int](repeating: -1, count: entity.propertyCount)
        for attribute in entity.storedAttributes {
            columns[attribute.index] = base + names.firstIndex(of: attribute.name)!
        }
        for relationship in toOne(entity) {
            columns[relationship.index] = base + names.firstIndex(of: relationship.name)!
            if let position = polymorphic.firstIndex(of: relationship.name) {
                entityNames[relationship.index] = base + names.count + position
            }
        }
        return (columns, entityNames)
    }

    /// `alias.Z_ENT IN (…)` restricting rows to `entity` (and, with
    /// `subentities`, its sub-entities), or `nil` when every row of the
    /// table matches. With no `alias`, the column is unqualified.
    static func entityRestriction(_ entity: EntityDescription, subentities: Bool, alias: String? = "t0") -> String? {
        guard entity.isInHierarchy, entity.superentity != nil || !subentities else { return nil }
        let names = (subentities ? entity.selfAndDescendants : [entity]).map { literal($0.name) }
        return "\(alias.map { quote($0) + "." } ?? "")\(quote(entityColumn)) IN (\(names.joined(separator: ", ")))"
    }

    /// A string literal for SQL text: entity names only (Swift identifiers).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The entity of a hierarchy that declares `relationship` (the topmost
    /// one that has it), so that a many-to-many relationship inherited by
    /// sub-entities keeps one join table.
    static func declaringEntity(of relationship: RelationshipDescription, in entity: EntityDescription) -> EntityDescription {
        var declaring = entity
        while let parent = declaring.superentity, parent.relationship(named: relationship.name) != nil {
            declaring = parent
        }
        return declaring
    }

    /// The fetch indexes to create for `entity`: those its parent entity
    /// does not already declare (a class inherits `indexes`), since the
    /// hierarchy shares one table.
    static func ownIndexes(_ entity: EntityDescription) -> [[String]] {
        guard let parent = entity.superentity else { return entity.indexes }
        return entity.indexes.filter { !parent.indexes.contains($0) }
    }

    /// The uniqueness constraints to index for `entity`: those its parent
    /// entity does not already declare (the parent's index covers the
    /// hierarchy).
    static func ownConstraints(_ entity: EntityDescription) -> [[String]] {
        guard let parent = entity.superentity else { return entity.uniquenessConstraints }
        return entity.uniquenessConstraints.filter { !parent.uniquenessConstraints.contains($0) }
    }

    /// Creates `root`'s table for its whole hierarchy, with its indexes,
    /// join tables and key counter, if they do not exist yet.
    static func createHierarchyTable(_ root: EntityDescription, in db: any SQLDatabase) throws {
        let key = db.dialect.keyType
        var definitions = ["\(quote(primaryKey)) \(key) PRIMARY KEY NOT NULL", "\(quote(version)) \(key) NOT NULL",
                           "\(quote(entityColumn)) TEXT NOT NULL"]
        definitions += tableColumns(root).map { "\(quote($0.name)) \($0.definition(db.dialect))" }
        try db.execute("CREATE TABLE IF NOT EXISTS \(table(root)) (\(definitions.joined(separator: ", ")))", [])
        try createEntityIndex(root, in: db)
        for entity in root.selfAndDescendants {
            for relationship in toOne(entity) {
                try createIndex(relationship, of: declaringEntity(of: relationship, in: entity), in: db)
            }
            for relationship in entity.relationships {
                guard let join = joinTable(relationship, of: entity), join.relationshipIsSource else { continue }
                try createJoinTable(join, in: db)
            }
        }
        try db.execute("INSERT INTO \(primaryKeyTable) (entity, max) VALUES (?, 0) ON CONFLICT DO NOTHING", [.string(root.name)])
    }

    static func createEntityIndex(_ root: EntityDescription, in db: any SQLDatabase) throws {
        let index = quote("Z_\(root.name)_\(entityColumn)")
        try db.execute("CREATE INDEX IF NOT EXISTS \(index) ON \(table(root)) (\(quote(entityColumn)))", [])
    }
}

extension SQLSchema {
    /// Lightweight migration of a hierarchy that gained an entity or
    /// properties: adds the entity column (existing rows are of the root
    /// entity, as they were saved before it had sub-entities) and the
    /// columns the root's table lacks, then the hierarchy's indexes and join
    /// tables. Saved rows of an entity that gained an attribute take its
    /// initial value. Columns of removed properties stay, unused.
    static func addMissingHierarchyColumns(_ root: EntityDescription, in db: any SQLDatabase) throws {
        let name = root.name
        let existing = Set(try db.columnNames(name))
        if !existing.contains(entityColumn) {
            try db.execute("ALTER TABLE \(table(root)) ADD COLUMN \(quote(entityColumn)) TEXT NOT NULL DEFAULT \(literal(name))", [])
        }
        for column in tableColumns(root) where !existing.contains(column.name) {
            try db.execute("ALTER TABLE \(table(root)) ADD COLUMN \(quote(column.name)) \(column.definition(db.dialect))", [])
        }
        for entity in root.selfAndDescendants {
            for attribute in entity.storedAttributes where !existing.contains(attribute.name) {
                guard let value = attribute.defaultValue else { continue }
                try db.execute("UPDATE \(table(root)) SET \(quote(attribute.name)) = ? WHERE \(quote(entityColumn)) = ?",
                               [value, .string(entity.name)])
            }
        }
        try createHierarchyTable(root, in: db)
    }
}
