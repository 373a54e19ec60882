/// The SQL of the per-row statements of one entity, built once per store so
/// that a save of n objects builds no SQL text n times.
struct SQLStatements: Sendable {
    /// `INSERT INTO t (Z_PK, Z_OPT, columns…) VALUES (?, …)`.
    let insert: String
    /// Writes the columns and bumps `Z_OPT` if the row is at the expected
    /// version; returns the new version.
    let update: String
    /// `DELETE FROM t WHERE Z_PK = ? AND Z_OPT = ?`: deletes the row if it
    /// is at the expected version.
    let delete: String
    /// Reads one row by `Z_PK`.
    let selectByKey: String
    /// For an entity in a hierarchy or referring to one: where its values
    /// are in a row of ``selectByKey``'s shape (``SQLSchema/rowLayout(_:)``).
    let layout: (columns: [Int], entityNames: [Int])?
    /// How the entity's snapshots keep their values.
    let snapshotLayout: SnapshotLayout

    init(_ entity: EntityDescription) {
        snapshotLayout = SnapshotLayout(entity)
        let table = SQLSchema.table(entity)
        let key = SQLSchema.quote(SQLSchema.primaryKey)
        let version = SQLSchema.quote(SQLSchema.version)
        let columns = SQLSchema.columns(entity).map(SQLSchema.quote)
        let all = [key, version] + columns
        if entity.isInHierarchy {
            // The entity column holds a constant: the entity's name.
            let placeholders = ["?", "?", SQLSchema.literal(entity.name)] + Array(repeating: "?", count: columns.count)
            insert = "INSERT INTO \(table) (\(([key, version, SQLSchema.quote(SQLSchema.entityColumn)] + columns).joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        } else {
            insert = "INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: all.count).joined(separator: ", ")))"
        }
        layout = entity.isInHierarchy || entity.referencesHierarchy ? SQLSchema.rowLayout(entity) : nil
        let assignments = ["\(version) = \(version) + 1"] + columns.map { "\($0) = ?" }
        update = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(key) = ? AND \(version) = ? RETURNING \(version)"
        delete = "DELETE FROM \(table) WHERE \(key) = ? AND \(version) = ?"
        selectByKey = "SELECT \(SQLSchema.selectList(entity)) FROM \(table) WHERE \(key) = ?"
    }
}
