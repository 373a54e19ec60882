import Foundation

/// The tables of a model in an SQL store (SQLite or PostgreSQL): one per entity with its primary key
/// (`Z_PK`), its version (`Z_OPT`, incremented by every save of the row, for
/// optimistic locking), a column per attribute and one per to-one
/// relationship (indexed); a join table per many-to-many relationship; the
/// next primary keys (`Z_PRIMARYKEY` on SQLite, sequences on PostgreSQL:
/// ``SQLKeys``) and the store's metadata (`Z_METADATA`: store UUID, model
/// hash and model description).
///
/// A hierarchy of entities (sub-entities) shares its root entity's table, as
/// Core Data stores it: see `SQLSchema+Hierarchy.swift`.
enum SQLSchema {
    static let primaryKey = "Z_PK"
    static let version = "Z_OPT"
    /// The metadata table's name, and the name quoted for SQL text (quoted,
    /// so that PostgreSQL keeps its case).
    static let metadataTableName = "Z_METADATA"
    static let metadataTable = "\"Z_METADATA\""
    /// The key counters' table, quoted for SQL text.
    static let primaryKeyTable = "\"Z_PRIMARYKEY\""

    /// The quoted table name of an entity: its root entity's name.
    static func table(_ entity: EntityDescription) -> String { quote(entity.rootEntity.name) }
    static func table(named name: String) -> String { quote(name) }

    static func quote(_ identifier: String) -> String {
        identifier.contains("\"") ? "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : "\"" + identifier + "\""
    }

    /// The to-one relationships, which have a column.
    static func toOne(_ entity: EntityDescription) -> [RelationshipDescription] {
        entity.relationships.filter { !$0.isToMany }
    }

    /// The columns of an entity's table after `Z_PK` and `Z_OPT`, in snapshot
    /// order: stored (not transient) attributes, then to-one relationships.
    static func columns(_ entity: EntityDescription) -> [String] {
        entity.storedAttributes.map(\.name) + toOne(entity).map(\.name)
    }

    /// `Z_PK, Z_OPT, attribute…, toOne…`, quoted, for SELECT lists.
    static func selectList(_ entity: EntityDescription, alias: String? = nil) -> String {
        if entity.isInHierarchy || entity.referencesHierarchy { return hierarchySelectList(entity, alias: alias) }
        let prefix = alias.map { quote($0) + "." } ?? ""
        return ([primaryKey, version] + columns(entity)).map { prefix + quote($0) }.joined(separator: ", ")
    }

    /// The join table of a many-to-many relationship, named after the side
    /// whose "Entity.relationship" sorts first; `source` holds that side's keys.
    struct JoinTable {
        let name: String
        /// Whether `relationship` is the side whose keys are in `source`.
        let relationshipIsSource: Bool

        var sourceColumn: String { relationshipIsSource ? "source" : "destination" }
        var destinationColumn: String { relationshipIsSource ? "destination" : "source" }
    }

    static func joinTable(_ relationship: RelationshipDescription, of entity: EntityDescription) -> JoinTable? {
        guard relationship.isToMany, relationship.inverseIsToMany else { return nil }
        let mine = "\(declaringEntity(of: relationship, in: entity).name).\(relationship.name)"
        let theirs = "\(relationship.destinationEntityName).\(relationship.inverseName)"
        let canonical = min(mine, theirs)
        return JoinTable(name: quote("Z_" + canonical.replacingOccurrences(of: ".", with: "_")),
                         relationshipIsSource: canonical == mine)
    }

    /// The column of the destination's table that holds each row's position
    /// in an ordered relationship (Core Data's `Z_FOK_` columns), beside
    /// the column of the to-one inverse; `nil` for an unordered one.
    static func orderColumn(_ relationship: RelationshipDescription) -> String? {
        relationship.isOrdered ? "Z_FOK_" + relationship.inverseName : nil
    }

    /// `ORDER BY` for the destinations of `relationship` read from its
    /// destination table (as `alias`): by position, rows without one (saved
    /// by a batch request) last, by key; empty for an unordered one.
    static func orderClause(_ relationship: RelationshipDescription, alias: String) -> String {
        guard let column = orderColumn(relationship) else { return "" }
        let position = "\(alias).\(quote(column))"
        return " ORDER BY (\(position) IS NULL), \(position), \(alias).\(quote(primaryKey))"
    }

    /// The position columns `model`'s ordered relationships need, as
    /// (destination table, column).
    static func orderColumns(_ model: ManagedObjectModel) -> [(table: String, column: String)] {
        var seen = Set<String>()
        return model.entities.flatMap { entity in
            entity.relationships.compactMap { relationship in
                guard let column = orderColumn(relationship), seen.insert(relationship.destinationRootEntityName + "." + column).inserted else { return nil }
                return (relationship.destinationRootEntityName, column)
            }
        }
    }

    /// Adds the position columns of ordered relationships that their tables
    /// lack: a new store's, and on open a store whose model made a
    /// relationship ordered (positions then start empty: the rows read in
    /// key order until the relationship is next saved).
    static func addOrderColumns(_ model: ManagedObjectModel, in db: any SQLDatabase) throws {
        for (table, column) in orderColumns(model) where try !db.columnNames(table).contains(column) {
            try db.execute("ALTER TABLE \(quote(table)) ADD COLUMN \(quote(column)) \(db.dialect.keyType)", [])
        }
    }

    /// Creates every table and index of `model` that does not exist yet.
    static func create(_ model: ManagedObjectModel, in db: any SQLDatabase) throws {
        let key = db.dialect.keyType
        try db.execute("CREATE TABLE IF NOT EXISTS \(metadataTable) (key TEXT PRIMARY KEY NOT NULL, value \(db.dialect.metadataValueType))", [])
        try db.execute("CREATE TABLE IF NOT EXISTS \(primaryKeyTable) (entity TEXT PRIMARY KEY NOT NULL, max \(key) NOT NULL)", [])
        for entity in model.entities where entity.superentity == nil {
            try createTable(entity, in: db)
        }
        try addOrderColumns(model, in: db)
    }

    static func createTable(_ entity: EntityDescription, in db: any SQLDatabase) throws {
        if entity.isInHierarchy { return try createHierarchyTable(entity.rootEntity, in: db) }
        let key = db.dialect.keyType
        var definitions = ["\(quote(primaryKey)) \(key) PRIMARY KEY NOT NULL", "\(quote(version)) \(key) NOT NULL"]
        definitions += entity.storedAttributes.map { "\(quote($0.name)) \(db.dialect.columnType($0.attributeType))" }
        definitions += toOne(entity).map { "\(quote($0.name)) \(key)" }
        try db.execute("CREATE TABLE IF NOT EXISTS \(table(entity)) (\(definitions.joined(separator: ", ")))", [])
        for relationship in toOne(entity) {
            try createIndex(relationship, of: entity, in: db)
        }
        for relationship in entity.relationships {
            guard let join = joinTable(relationship, of: entity), join.relationshipIsSource else { continue }
            try createJoinTable(join, in: db)
        }
        try db.execute("INSERT INTO \(primaryKeyTable) (entity, max) VALUES (?, 0) ON CONFLICT DO NOTHING", [.string(entity.name)])
    }

    static func createJoinTable(_ join: JoinTable, in db: any SQLDatabase) throws {
        let key = db.dialect.keyType
        try db.execute("CREATE TABLE IF NOT EXISTS \(join.name) (source \(key) NOT NULL, destination \(key) NOT NULL, PRIMARY KEY (source, destination))", [])
        try db.execute("CREATE INDEX IF NOT EXISTS \(quote("Z_" + join.name.trimmingCharacters(in: ["\""]) + "_destination")) ON \(join.name) (destination)", [])
    }

    /// An attribute's column as sorts and fetch indexes order it: strings
    /// through the collation of `strings`. One spelling for both, since a
    /// sort can walk an index only if they order alike.
    static func orderedColumn(_ attribute: AttributeDescription, strings: StoreStringOrder, alias: String? = nil,
                              dialect: SQLDialect) -> String {
        let column = (alias.map { quote($0) + "." } ?? "") + quote(attribute.name)
        return attribute.attributeType == .string ? dialect.ordered(column, strings) : column
    }

    /// The name of a fetch index (``ManagedObject/indexes``):
    /// `ZFETCHINDEX Entity(a,b)`. No other name Coherence gives starts so,
    /// and attribute names (Swift identifiers) cannot hold a parenthesis or
    /// a comma, so no two indexes of one entity share a name.
    static func fetchIndexName(_ entity: String, _ attributes: [String], dialect: SQLDialect) -> String {
        // PostgreSQL's indexes order NULL first, as its sorts do (see
        // `SQLDialect.direction(ascending:)`); the suffix replaces the
        // indexes of stores created before, which ordered NULL last and no
        // sort could walk.
        "ZFETCHINDEX \(entity)(\(attributes.joined(separator: ",")))" + (dialect == .postgres ? " nulls first" : "")
    }

    /// The name of a uniqueness constraint's index
    /// (``ManagedObject/uniquenessConstraints``): `ZUNIQUE Entity(a,b)`.
    /// A sub-entity's index covers its own rows and its descendants', which
    /// its name lists, so that a model with more sub-entities gets a new one.
    static func uniqueIndexName(_ entity: EntityDescription, _ attributes: [String]) -> String {
        let covered = entity.superentity == nil ? "" : " [" + entity.selfAndDescendants.map(\.name).joined(separator: ",") + "]"
        return "ZUNIQUE \(entity.name)(\(attributes.joined(separator: ",")))\(covered)"
    }

    /// The fetch and uniqueness indexes in the file.
    private static func fetchIndexNames(in db: any SQLDatabase) throws -> [String] {
        try db.indexNames(startingWith: ["ZFETCHINDEX ", "ZUNIQUE "])
    }

    /// Drops the fetch and uniqueness indexes `model` does not declare:
    /// before a migration, which cannot drop or change a column an index
    /// still uses (and a constraint the model dropped must no longer hold).
    static func dropFetchIndexes(notDeclaredIn model: ManagedObjectModel, in db: any SQLDatabase) throws {
        let declared = Set(model.entities.flatMap { entity in
            ownIndexes(entity).map { fetchIndexName(entity.name, $0, dialect: db.dialect) } + ownConstraints(entity).map { uniqueIndexName(entity, $0) }
        }.map(db.dialect.indexName))
        for name in try fetchIndexNames(in: db) where !declared.contains(name) {
            try db.execute("DROP INDEX \(quote(name))", [])
        }
    }

    /// Creates the fetch indexes `model` declares that do not exist yet.
    /// String columns are indexed in the order the store sorts them by
    /// default (``StoreStringOrder/comparable``), so that such a sort can
    /// walk the index instead of sorting every row.
    static func createFetchIndexes(_ model: ManagedObjectModel, in db: any SQLDatabase) throws {
        // Only the missing ones: even `CREATE INDEX IF NOT EXISTS` locks the
        // table on PostgreSQL, which other processes' saves write meanwhile.
        let existing = Set(try db.indexNames(startingWith: ["ZFETCHINDEX ", "ZUNIQUE "]))
        for entity in model.entities {
            for attributes in ownIndexes(entity) where !existing.contains(db.dialect.indexName(fetchIndexName(entity.name, attributes, dialect: db.dialect))) {
                // The model checked that each name is an attribute.
                let nulls = db.dialect == .postgres ? " NULLS FIRST" : ""
                let columns = attributes.compactMap { entity.attribute(named: $0).map { orderedColumn($0, strings: .comparable, dialect: db.dialect) + nulls } }
                try db.execute("CREATE INDEX IF NOT EXISTS \(quote(db.dialect.indexName(fetchIndexName(entity.name, attributes, dialect: db.dialect)))) ON \(table(entity)) (\(columns.joined(separator: ", ")))", [])
            }
            // Uniqueness constraints: byte-wise equality, as the save's check.
            for constraint in ownConstraints(entity) where !existing.contains(db.dialect.indexName(uniqueIndexName(entity, constraint))) {
                let name = quote(db.dialect.indexName(uniqueIndexName(entity, constraint)))
                // A sub-entity's constraint covers its rows only.
                let partial = entityRestriction(entity, subentities: true, alias: nil).map { " WHERE \($0)" } ?? ""
                do {
                    try db.execute("CREATE UNIQUE INDEX IF NOT EXISTS \(name) ON \(table(entity)) (\(constraint.map(quote).joined(separator: ", ")))\(partial)", [])
                } catch let error as StoreError where error.isUniquenessViolation {
                    throw StoreError.incompatibleModel(
                        reason: "rows of \(entity.name) already share values of the uniqueness constraint \(constraint.joined(separator: ", "))")
                }
            }
        }
        try db.dialect.reindexIfTheOrderChanged(in: db)
    }

    static func createIndex(_ relationship: RelationshipDescription, of entity: EntityDescription, in db: any SQLDatabase) throws {
        let index = quote("Z_\(entity.name)_\(relationship.name)")
        try db.execute("CREATE INDEX IF NOT EXISTS \(index) ON \(table(entity)) (\(quote(relationship.name)))", [])
    }
}
