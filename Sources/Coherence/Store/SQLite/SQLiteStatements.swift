/// The SQL of the per-row statements of one entity, built once per store so
/// that a save of n objects builds no SQL text n times.
struct SQLiteStatements: Sendable {
    /// `INSERT INTO t (Z_PK, Z_OPT, columns…) VALUES (?, …)`.
    let insert: String
    /// Writes the columns and bumps `Z_OPT` if the row is at the expected
    /// version; returns the new version.
    let update: String
    /// `DELETE FROM t WHERE Z_PK = ?`.
    let delete: String
    /// Reads one row by `Z_PK`.
    let selectByKey: String
    /// For an entity in a hierarchy or referring to one: where its values
    /// are in a row of ``selectByKey``'s shape (``SQLiteSchema/rowLayout(_:)``).
    let layout: (columns: [CInt], entityNames: [CInt])?

    init(_ entity: EntityDescription) {
        let table = SQLiteSchema.table(entity)
        let key = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let version = SQLiteSchema.quote(SQLiteSchema.version)
        let columns = SQLiteSchema.columns(entity).map(SQLiteSchema.quote)
        let all = [key, version] + columns
        if entity.isInHierarchy {
            // The entity column holds a constant: the entity's name.
            let placeholders = ["?", "?", SQLiteSchema.literal(entity.name)] + Array(repeating: "?", count: columns.count)
            insert = "INSERT INTO \(table) (\(([key, version, SQLiteSchema.quote(SQLiteSchema.entityColumn)] + columns).joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        } else {
            insert = "INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: all.count).joined(separator: ", ")))"
        }
        layout = entity.isInHierarchy || entity.referencesHierarchy ? SQLiteSchema.rowLayout(entity) : nil
        let assignments = ["\(version) = \(version) + 1"] + columns.map { "\($0) = ?" }
        update = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(key) = ? AND \(version) = ? RETURNING \(version)"
        delete = "DELETE FROM \(table) WHERE \(key) = ?"
        selectByKey = "SELECT \(SQLiteSchema.selectList(entity)) FROM \(table) WHERE \(key) = ?"
    }
}
