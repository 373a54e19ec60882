import Foundation

/// Where the primary keys of new rows come from.
///
/// - **SQLite**: each root entity's counter in `Z_PRIMARYKEY`, raised by
///   one `UPDATE … RETURNING` inside the saving transaction. SQLite runs one
///   writer at a time, so the counter's row never makes a writer wait, and
///   a save that rolls back gives its keys back.
/// - **PostgreSQL**: a sequence per root entity, `"<table>_Z_PK_seq"` (as
///   PostgreSQL names a `serial` column's), read with `SELECT nextval(…)`
///   (n keys: n `nextval`s on the server, in one statement). Writers run beside
///   each other there, and a counter's row would hold every other saving
///   transaction until commit; `nextval` never waits for another
///   transaction. Its keys are never given back: a save that rolls back
///   leaves a gap, as a `serial` column does. The keys of one save are
///   increasing but need not be consecutive when other processes take keys
///   at the same moment. Each sequence is created when the store is opened
///   (under the exclusive lock), starting after the entity's
///   `Z_PRIMARYKEY` counter and its table's largest key, so that a store
///   saved before the sequences existed never reuses a key; the counter's
///   row is then deleted, so that a process still running an older
///   Coherence fails to save instead of reusing keys (every process of a
///   deployment moves to the new version together).
///
/// **Complexity:** one statement per entity of a save; on PostgreSQL, n
/// `nextval`s on the server for n keys, and one result row.
enum SQLKeys {
    /// The name of `root`'s key sequence (PostgreSQL), unquoted. Names past
    /// PostgreSQL's 63 bytes keep a prefix and a hash of the whole name.
    static func sequenceName(root: String) -> String {
        let name = root + "_Z_PK_seq"
        guard name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in root.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let suffix = "_" + String(hash, radix: 16) + "_Z_PK_seq"
        var prefix = ""
        for character in root {
            guard (prefix + String(character)).utf8.count + suffix.utf8.count <= 63 else { break }
            prefix.append(character)
        }
        return prefix + suffix
    }

    /// `count` (at least 1) new keys of `entity`, increasing.
    /// - Throws: ``StoreError/invalidStoredValue(entity:property:reason:)``
    ///   when the counter or sequence has no key left for them.
    static func take(_ count: Int, for entity: EntityDescription, in db: any SQLDatabase) throws -> [Int64] {
        let root = entity.rootEntity.name
        switch db.dialect {
        case .sqlite: return Array(try takeFromCounter(count, root: root, in: db))
        case .postgres: return try takeFromSequence(count, root: root, in: db)
        }
    }

    private static func takeFromCounter(_ count: Int, root: String, in db: any SQLDatabase) throws -> ClosedRange<Int64> {
        // Never past Int64.max: SQLite would turn the counter into a REAL.
        let last = try db.int64("UPDATE \(SQLSchema.primaryKeyTable) SET max = max + ? WHERE entity = ? AND max <= ? RETURNING max",
                                [.integer(Int64(count)), .string(root), .integer(Int64.max - Int64(count))])
        guard let last else {
            guard let current = try db.int64("SELECT max FROM \(SQLSchema.primaryKeyTable) WHERE entity = ?", [.string(root)]) else {
                throw StoreError.unknownEntity(root)
            }
            throw StoreError.invalidStoredValue(entity: root, property: "Z_PRIMARYKEY.max",
                                                reason: "no primary key is left for \(count) new object(s): the counter is at \(current)")
        }
        return last - Int64(count) + 1 ... last
    }

    /// `count` numbers of the sequence of `root` (an entity, or a history
    /// table), increasing, in one statement. One number is one `nextval`.
    /// More are taken on the server, which sends back only the first and
    /// the last when they are consecutive (the usual case: no other process
    /// took numbers meanwhile), and every number otherwise.
    static func takeFromSequence(_ count: Int, root: String, in db: any SQLDatabase) throws -> [Int64] {
        let sequence = sequenceName(root: root)
        let nextval = "nextval(\(SQLSchema.literal(SQLSchema.quote(sequence))))"
        do {
            if count == 1 {
                guard let key = try db.int64("SELECT \(nextval)") else { throw StoreError.unknownEntity(root) }
                return [key]
            }
            var first: Int64 = 0, last: Int64 = 0, taken = 0
            var listed: String?
            try db.forEachRow("""
                SELECT MIN(v), MAX(v), COUNT(*), CASE WHEN MAX(v) - MIN(v) + 1 = COUNT(*) THEN NULL \
                ELSE string_agg(CAST(v AS TEXT), ',' ORDER BY v) END FROM (SELECT \(nextval) AS v FROM generate_series(1, ?)) AS taken
                """, [.integer(Int64(count))]) { row in
                first = row.int64(0)
                last = row.int64(1)
                taken = Int(row.int64(2))
                listed = row.columnType(3) == .null ? nil : row.string(3)
            }
            guard taken == count else { throw StoreError.unknownEntity(root) }
            guard let listed else { return Array(first...last) }
            return listed.split(separator: ",").compactMap { Int64($0) }
        } catch StoreError.postgres(code: "2200H", _, _) {
            // sequence_generator_limit_exceeded
            throw StoreError.invalidStoredValue(entity: root, property: sequence,
                                                reason: "no primary key is left for \(count) new object(s): the sequence reached \(Int64.max)")
        }
    }

    /// Creates the key sequence of each root entity of `model` that has
    /// none (PostgreSQL; nothing on SQLite), started after the entity's
    /// `Z_PRIMARYKEY` counter and its table's largest key. Run at open,
    /// after the migration, under the exclusive lock: a sequence is set
    /// only when it is created, before any writer can use it.
    static func createSequences(_ model: ManagedObjectModel, in db: any SQLDatabase) throws {
        guard db.dialect == .postgres else { return }
        let existing = Set(try db.strings("SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()"))
        let roots = model.entities.filter { $0.superentity == nil }.map(\.name)
        for root in roots where !existing.contains(sequenceName(root: root)) {
            try createSequence(root: root, in: db)
        }
        // A migration may have written a root's counter again (a hierarchy
        // table rebuilt): keys come from the sequences only.
        try db.execute("DELETE FROM \(SQLSchema.primaryKeyTable) WHERE entity IN (\(placeholders(roots.count)))", roots.map { .string($0) })
    }

    /// Creates the sequence of `root` (an entity, or a history table whose
    /// `Z_PRIMARYKEY` counter has the same name), started after its counter
    /// and its table's largest key (PostgreSQL, under the exclusive lock).
    static func createSequence(root: String, in db: any SQLDatabase) throws {
        let sequence = sequenceName(root: root)
        try db.execute("CREATE SEQUENCE \(SQLSchema.quote(sequence)) AS BIGINT", [])
        try db.execute("""
            SELECT setval(\(SQLSchema.literal(SQLSchema.quote(sequence))), GREATEST(1, start), start > 0) FROM (SELECT GREATEST(\
            COALESCE((SELECT max FROM \(SQLSchema.primaryKeyTable) WHERE entity = ?), 0), \
            COALESCE((SELECT MAX(\(SQLSchema.quote(SQLSchema.primaryKey))) FROM \(SQLSchema.table(named: root))), 0)) AS start) AS counters
            """, [.string(root)])
        // The counter is not used any more: a process of an older Coherence
        // (which took keys from it) now fails loudly instead of reusing keys.
        try db.execute("DELETE FROM \(SQLSchema.primaryKeyTable) WHERE entity = ?", [.string(root)])
    }

    /// The statements that follow a root entity's table when a migration
    /// renames it (PostgreSQL; none on SQLite).
    static func renameSequence(from old: String, to new: String, in db: any SQLDatabase) throws {
        guard db.dialect == .postgres else { return }
        try db.execute("ALTER SEQUENCE IF EXISTS \(SQLSchema.quote(sequenceName(root: old))) RENAME TO \(SQLSchema.quote(sequenceName(root: new)))", [])
    }

    /// Drops a removed root entity's sequence (PostgreSQL; nothing on SQLite).
    static func dropSequence(root: String, in db: any SQLDatabase) throws {
        guard db.dialect == .postgres else { return }
        try db.execute("DROP SEQUENCE IF EXISTS \(SQLSchema.quote(sequenceName(root: root)))", [])
    }
}
