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

    init(_ entity: EntityDescription) {
        let table = SQLiteSchema.table(entity)
        let key = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let version = SQLiteSchema.quote(SQLiteSchema.version)
        let columns = SQLiteSchema.columns(entity).map(SQLiteSchema.quote)
        let all = [key, version] + columns
        insert = "INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: all.count).joined(separator: ", ")))"
        let assignments = ["\(version) = \(version) + 1"] + columns.map { "\($0) = ?" }
        update = "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE \(key) = ? AND \(version) = ? RETURNING \(version)"
        delete = "DELETE FROM \(table) WHERE \(key) = ?"
        selectByKey = "SELECT \(SQLiteSchema.selectList(entity)) FROM \(table) WHERE \(key) = ?"
    }
}
