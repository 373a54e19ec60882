import Foundation

/// The persistent history tables, in the store's schema, created when a
/// store is opened with history tracking (an existing store gains them then):
///
/// - `Z_HISTORY_TRANSACTION`: one row per save or batch request; `Z_PK` is
///   the transaction number (the token), taken from the `Z_PRIMARYKEY`
///   counter named `Z_HISTORY_TRANSACTION` as the writing transaction's last
///   step. Its `UPDATE` holds the counter's row until the transaction
///   commits or rolls back, so a PostgreSQL writer that takes the next
///   number waits until the one before is visible: numbers follow commit
///   order with no gap, and a reader of "every transaction after n" never
///   misses one that commits later with a smaller number. Numbers are never
///   reused, even after pruning;
///   `ZTIMESTAMP` (seconds since 2001), `ZAUTHOR`, `ZCONTEXTNAME`.
/// - `Z_HISTORY_CHANGE`: one row per run of changed objects; `Z_PK` (the
///   first change's number: from the `Z_HISTORY_CHANGE` counter on SQLite,
///   from the sequence `"Z_HISTORY_CHANGE_Z_PK_seq"` on PostgreSQL, taken
///   before the transaction number so that it never waits: change numbers
///   are unique and increase within a transaction, but on PostgreSQL a later
///   transaction may hold smaller ones; order by transaction, then change),
///   `ZTRANSACTION`, `ZENTITY` (the
///   concrete entity's name), `ZKEY` (the first row's primary key),
///   `ZCOUNT` (how many changes the run holds: rows `ZKEY`, `ZKEY + 1`, …,
///   numbered `Z_PK`, `Z_PK + 1`, …; a run also ends where the numbers
///   taken are not consecutive), `ZCHANGETYPE` (0 insert, 1 update,
///   2 delete), `ZUPDATED` (updated property names, comma-separated),
///   `ZTOMBSTONE` (preserved values of a deleted object, JSON; a change with
///   a tombstone is a run of its own). The objects a save inserts get
///   consecutive keys, so a save of n new objects of one entity writes one
///   change row, not n.
///
/// The metadata key `historyPrunedBefore` holds the number of the oldest
/// transaction that deletions kept; a fetch after an older token throws
/// ``PersistentHistoryError/tokenExpired(_:)``.
package enum SQLHistorySchema {
    static let transactionTable = "\"Z_HISTORY_TRANSACTION\""
    static let changeTable = "\"Z_HISTORY_CHANGE\""
    static let changeTableName = "Z_HISTORY_CHANGE"
    static let transactionCounter = "Z_HISTORY_TRANSACTION"
    static let changeCounter = "Z_HISTORY_CHANGE"
    static let prunedKey = "historyPrunedBefore"

    /// The PostgreSQL notification channel of a store's saves: every write
    /// that records history sends `NOTIFY` on it, inside its transaction.
    package static func channel(storeIdentifier: String) -> String {
        "coherence_" + storeIdentifier
    }

    static func create(in db: any SQLDatabase) throws {
        let key = db.dialect.keyType
        let double = db.dialect.columnType(.double)
        try db.execute("""
            CREATE TABLE IF NOT EXISTS \(transactionTable) ("Z_PK" \(key) PRIMARY KEY NOT NULL, "ZTIMESTAMP" \(double) NOT NULL, \
            "ZAUTHOR" TEXT, "ZCONTEXTNAME" TEXT)
            """, [])
        try db.execute("""
            CREATE TABLE IF NOT EXISTS \(changeTable) ("Z_PK" \(key) PRIMARY KEY NOT NULL, "ZTRANSACTION" \(key) NOT NULL, \
            "ZENTITY" TEXT NOT NULL, "ZKEY" \(key) NOT NULL, "ZCHANGETYPE" \(key) NOT NULL, "ZUPDATED" TEXT, "ZTOMBSTONE" TEXT, \
            "ZCOUNT" \(key) NOT NULL DEFAULT 1)
            """, [])
        // History written before runs existed: one change per row.
        if try !db.columnNames(changeTableName).contains("ZCOUNT") {
            try db.execute("ALTER TABLE \(changeTable) ADD COLUMN \"ZCOUNT\" \(key) NOT NULL DEFAULT 1", [])
        }
        // Only what is missing: even `IF NOT EXISTS` locks the table, and
        // other processes' saves write these tables meanwhile.
        let indexes = Set(try db.indexNames(startingWith: ["Z_HISTORY_"]))
        if !indexes.contains("Z_HISTORY_CHANGE_ZTRANSACTION") {
            try db.execute("CREATE INDEX IF NOT EXISTS \"Z_HISTORY_CHANGE_ZTRANSACTION\" ON \(changeTable) (\"ZTRANSACTION\")", [])
        }
        if !indexes.contains("Z_HISTORY_TRANSACTION_ZTIMESTAMP") {
            try db.execute("CREATE INDEX IF NOT EXISTS \"Z_HISTORY_TRANSACTION_ZTIMESTAMP\" ON \(transactionTable) (\"ZTIMESTAMP\")", [])
        }
        if try db.int64("SELECT COUNT(*) FROM \(SQLSchema.primaryKeyTable) WHERE entity = ?", [.string(transactionCounter)]) == 0 {
            try db.execute("INSERT INTO \(SQLSchema.primaryKeyTable) (entity, max) VALUES (?, 0) ON CONFLICT DO NOTHING", [.string(transactionCounter)])
        }
        // Change numbers: a counter on SQLite, a sequence on PostgreSQL
        // (started after the counter an older store kept).
        if db.dialect == .sqlite {
            try db.execute("INSERT INTO \(SQLSchema.primaryKeyTable) (entity, max) VALUES (?, 0) ON CONFLICT DO NOTHING", [.string(changeCounter)])
        } else if try db.int64("SELECT COUNT(*) FROM pg_sequences WHERE schemaname = current_schema() AND sequencename = ?",
                               [.string(SQLKeys.sequenceName(root: changeCounter))]) == 0 {
            try SQLKeys.createSequence(root: changeCounter, in: db)
        }
    }
}

/// One object's change, as a save or batch request records it.
struct SQLHistoryChange {
    let objectID: ManagedObjectID
    let type: PersistentHistoryChangeType
    var updated: [String]? = nil
    var tombstone: [String: StoreValue]? = nil
}

extension SQLStore {
    // MARK: Writing history

    /// Writes one history transaction with `changes`, inside the caller's
    /// write transaction (so it commits or rolls back with the data), and
    /// returns its token; `nil` when nothing was recorded. Must be the
    /// transaction's last step: from taking the number until commit, other
    /// writers' history waits (see ``SQLHistorySchema``).
    @discardableResult
    func writeHistory(_ changes: [SQLHistoryChange], author: String?, contextName: String?,
                      in db: any SQLDatabase) throws -> PersistentHistoryToken? {
        // A batch request that changed nothing records nothing.
        guard tracksPersistentHistory, !changes.isEmpty else { return nil }
        // PostgreSQL: the changes' numbers first, from a sequence, which
        // never waits; then the transaction's number, which holds the
        // counter's row until commit (see `SQLHistorySchema`).
        let sequenced = dialect == .postgres ? try SQLKeys.takeFromSequence(changes.count, root: SQLHistorySchema.changeCounter, in: db) : nil
        let number = try takeTransactionNumber(author: author, contextName: contextName, in: db)
        remoteChangeWatcher.withLock { $0 }?.noteOwn(number)
        let numbers: [Int64]
        if let sequenced {
            numbers = sequenced
        } else {
            let last = try takeNumbers(changes.count, from: SQLHistorySchema.changeCounter, in: db)
            numbers = Array(last - Int64(changes.count) + 1 ... last)
        }
        var rows: [[StoreValue]] = []
        var start = 0
        while start < changes.count {
            let change = changes[start]
            var end = start + 1
            if change.tombstone == nil {
                while end < changes.count, Self.continuesRun(changes[end], of: change, at: end - start),
                      numbers[end] == numbers[start] + Int64(end - start) { end += 1 }
            }
            rows.append([.integer(numbers[start]), .integer(number), .string(change.objectID.entityName), .integer(change.objectID.key),
                         .integer(Int64(change.type.rawValue)), change.updated.map { .string($0.joined(separator: ",")) } ?? .null,
                         try change.tombstone.map { .string(try TombstoneCoding.encode($0)) } ?? .null, .integer(Int64(end - start))])
            start = end
        }
        try db.executeMany("""
            INSERT INTO \(SQLHistorySchema.changeTable) ("Z_PK", "ZTRANSACTION", "ZENTITY", "ZKEY", "ZCHANGETYPE", "ZUPDATED", "ZTOMBSTONE", "ZCOUNT") \
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, rows)
        return PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }

    /// Takes the next transaction number and writes the transaction's row
    /// (and on PostgreSQL its `NOTIFY`, delivered only if it commits): one
    /// statement on PostgreSQL, two on SQLite. The timestamp is taken once
    /// the number is: a later number never has an earlier time (on
    /// PostgreSQL, the server's clock, one for every machine).
    private func takeTransactionNumber(author: String?, contextName: String?, in db: any SQLDatabase) throws -> Int64 {
        let author = author.map { .string($0) } ?? StoreValue.null, contextName = contextName.map { .string($0) } ?? StoreValue.null
        guard dialect == .postgres else {
            let number = try takeNumbers(1, from: SQLHistorySchema.transactionCounter, in: db)
            try db.execute("INSERT INTO \(SQLHistorySchema.transactionTable) (\"Z_PK\", \"ZTIMESTAMP\", \"ZAUTHOR\", \"ZCONTEXTNAME\") VALUES (?, ?, ?, ?)",
                           [.integer(number), .double(Date().timeIntervalSinceReferenceDate), author, contextName])
            return number
        }
        let number = try db.int64("""
            WITH n AS (UPDATE \(SQLSchema.primaryKeyTable) SET max = max + 1 WHERE entity = ? RETURNING max), \
            t AS (INSERT INTO \(SQLHistorySchema.transactionTable) ("Z_PK", "ZTIMESTAMP", "ZAUTHOR", "ZCONTEXTNAME") \
            SELECT max, EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION - 978307200, CAST(? AS TEXT), CAST(? AS TEXT) FROM n) \
            SELECT max, pg_notify(CAST(? AS TEXT), CAST(max AS TEXT)) FROM n
            """, [.string(SQLHistorySchema.transactionCounter), author, contextName,
                  .string(SQLHistorySchema.channel(storeIdentifier: identifier))])
        guard let number else {
            throw StoreError.invalidStoredValue(entity: SQLHistorySchema.transactionCounter, property: "max",
                                                reason: "the history counter is missing from \(SQLSchema.primaryKeyTable)")
        }
        return number
    }

    /// Whether `change` is the object `offset` places after `first` in a
    /// run: same entity, kind and updated properties, the next key, no tombstone.
    private static func continuesRun(_ change: SQLHistoryChange, of first: SQLHistoryChange, at offset: Int) -> Bool {
        change.objectID.key == first.objectID.key + Int64(offset) && change.type == first.type && change.tombstone == nil
            && change.objectID.objectClass == first.objectID.objectClass && change.updated == first.updated
    }

    /// Takes `count` numbers of a `Z_PRIMARYKEY` counter; returns the last.
    /// A missing counter (a store whose tables were changed by hand) throws,
    /// so that the save rolls back rather than commit without its history.
    private func takeNumbers(_ count: Int, from counter: String, in db: any SQLDatabase) throws -> Int64 {
        guard let last = try db.int64("UPDATE \(SQLSchema.primaryKeyTable) SET max = max + ? WHERE entity = ? RETURNING max",
                                      [.integer(Int64(count)), .string(counter)]) else {
            throw StoreError.invalidStoredValue(entity: counter, property: "max",
                                                reason: "the history counter is missing from \(SQLSchema.primaryKeyTable)")
        }
        return last
    }

    /// The values of `entity`'s attributes preserved on deletion, from the
    /// row's snapshot; `nil` when it has none.
    func tombstone(of snapshot: Snapshot, entity: EntityDescription) -> [String: StoreValue]? {
        let preserved = entity.attributes.filter(\.preservesValueInHistoryOnDeletion)
        guard !preserved.isEmpty else { return nil }
        return Dictionary(uniqueKeysWithValues: preserved.map { ($0.name, snapshot.values[$0.index]) })
    }

    /// The tombstones of rows about to be deleted by a batch request.
    func tombstones(_ keys: ArraySlice<Int64>, of entity: EntityDescription, in db: any SQLDatabase) throws -> [SQLHistoryChange] {
        guard tracksPersistentHistory, entity.attributes.contains(where: \.preservesValueInHistoryOnDeletion) else { return [] }
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let sql = "SELECT \(SQLSchema.selectList(entity, alias: "t0")) FROM \(SQLSchema.table(entity)) AS t0 WHERE t0.\(pk) IN (\(placeholders(keys.count)))"
        return try snapshots(db, sql, keys.map { .integer($0) }, entity: entity).map {
            SQLHistoryChange(objectID: $0.objectID, type: .delete, tombstone: tombstone(of: $0, entity: entity))
        }
    }

    // MARK: Reading history

    package func executeHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard tracksPersistentHistory else { throw PersistentHistoryError.trackingNotEnabled(storeIdentifier: identifier) }
        if request.isDeletion { return try deleteHistory(request) }
        return try read { db in
            var conditions: [String] = []
            var arguments: [StoreValue] = []
            switch request.kind {
            case .fetchAfterToken:
                let after = request.token?.transactionNumber ?? 0
                let pruned = try db.string("SELECT value FROM \(SQLSchema.metadataTable) WHERE key = ?", [.string(SQLHistorySchema.prunedKey)])
                    .flatMap { Int64($0) } ?? 0
                // Transactions after `after` were deleted: the caller would miss them.
                if let token = request.token, after < pruned - 1 { throw PersistentHistoryError.tokenExpired(token) }
                conditions.append("t.\"Z_PK\" > ?")
                arguments.append(.integer(after))
            case .fetchAfterDate(let date):
                conditions.append("t.\"ZTIMESTAMP\" > ?")
                arguments.append(.double(date.timeIntervalSinceReferenceDate))
            case .deleteBeforeToken, .deleteBeforeDate:
                break
            }
            if let filter = request.transactionFilter {
                conditions.append(condition(for: filter, arguments: &arguments))
            }
            let whereClause = " WHERE " + conditions.joined(separator: " AND ")
            let result = try transactions(in: db, whereClause: whereClause, arguments, withChanges: request.resultType.needsChanges)
            let kept = request.resultType == .transactionsOnly || request.resultType.needsChanges
            return PersistentHistoryResult(resultType: request.resultType, transactions: kept ? result : [], count: result.count)
        }
    }

    /// The transactions `whereClause` (over alias `t`) selects, in commit
    /// order, with their changes when `withChanges`.
    private func transactions(in db: any SQLDatabase, whereClause: String, _ arguments: [StoreValue],
                              withChanges: Bool) throws -> [PersistentHistoryTransaction] {
        var transactions: [(number: Int64, timestamp: Date, author: String?, contextName: String?)] = []
        try db.forEachRow("SELECT t.\"Z_PK\", t.\"ZTIMESTAMP\", t.\"ZAUTHOR\", t.\"ZCONTEXTNAME\" FROM \(SQLHistorySchema.transactionTable) AS t\(whereClause) ORDER BY t.\"Z_PK\"",
                          arguments) { row in
            transactions.append((row.int64(0), Date(timeIntervalSinceReferenceDate: row.double(1)),
                                 row.columnType(2) == .null ? nil : row.string(2), row.columnType(3) == .null ? nil : row.string(3)))
        }
        var changes: [Int64: [PersistentHistoryChange]] = [:]
        if withChanges, !transactions.isEmpty {
            let sql = """
                SELECT c."ZTRANSACTION", c."Z_PK", c."ZENTITY", c."ZKEY", c."ZCHANGETYPE", c."ZUPDATED", c."ZTOMBSTONE", c."ZCOUNT" \
                FROM \(SQLHistorySchema.changeTable) AS c WHERE c."ZTRANSACTION" IN (SELECT t."Z_PK" FROM \(SQLHistorySchema.transactionTable) AS t\(whereClause)) \
                ORDER BY c."Z_PK"
                """
            try db.forEachRow(sql, arguments) { row in
                // Rows of entities the model no longer has are left out.
                guard let entity = model.entitiesByName[row.string(2)],
                      let type = PersistentHistoryChangeType(rawValue: Int(row.int64(4))) else { return }
                let updated = row.columnType(5) == .null ? nil : Set(row.string(5).split(separator: ",").map(String.init))
                let tombstone = row.columnType(6) == .null ? nil : try TombstoneCoding.decode(row.string(6))
                let (number, key) = (row.int64(1), row.int64(3))
                for offset in 0..<max(1, row.int64(7)) {
                    changes[row.int64(0), default: []].append(PersistentHistoryChange(
                        changeID: number + offset, changedObjectID: makeObjectID(entity.managedObjectClass, key: key + offset),
                        changeType: type, updatedProperties: type == .update ? updated : nil, tombstone: tombstone))
                }
            }
        }
        return transactions.map {
            PersistentHistoryTransaction(timestamp: $0.timestamp, author: $0.author, contextName: $0.contextName, transactionNumber: $0.number,
                                         storeID: identifier,
                                         changes: withChanges ? changes[$0.number] ?? [] : nil)
        }
    }

    /// The transactions numbered `numbers` that still exist, with their
    /// changes, in commit order (for the remote-change watcher).
    func transactions(numbered numbers: [Int64]) throws -> [PersistentHistoryTransaction] {
        try read { db in
            try chunked(numbers).flatMap { chunk in
                try transactions(in: db, whereClause: " WHERE t.\"Z_PK\" IN (\(placeholders(chunk.count)))",
                                 chunk.map { .integer($0) }, withChanges: true)
            }
        }
    }

    /// The SQL of a transaction filter over alias `t`.
    private func condition(for filter: PersistentHistoryTransactionFilter, arguments: inout [StoreValue]) -> String {
        switch filter {
        case .author(let author):
            arguments.append(.string(author))
            return "t.\"ZAUTHOR\" = ?"
        case .authorIsNot(let author):
            arguments.append(.string(author))
            return dialect.isNotSame("t.\"ZAUTHOR\"", "?")
        case .contextName(let name):
            arguments.append(.string(name))
            return "t.\"ZCONTEXTNAME\" = ?"
        case .contextNameIsNot(let name):
            arguments.append(.string(name))
            return dialect.isNotSame("t.\"ZCONTEXTNAME\"", "?")
        case .all(let filters):
            guard !filters.isEmpty else { return "1 = 1" }
            return "(" + filters.map { condition(for: $0, arguments: &arguments) }.joined(separator: " AND ") + ")"
        }
    }

    /// Deletes old transactions and remembers where history now starts.
    private func deleteHistory(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        try write { db in
            let condition: String
            let argument: StoreValue
            switch request.kind {
            case .deleteBeforeDate(let date):
                condition = "\"ZTIMESTAMP\" < ?"
                argument = .double(date.timeIntervalSinceReferenceDate)
            default:
                guard let token = request.token else { return PersistentHistoryResult(resultType: request.resultType, transactions: [], count: 0) }
                condition = "\"Z_PK\" < ?"
                argument = .integer(token.transactionNumber)
            }
            let last = try db.int64("SELECT MAX(\"Z_PK\") FROM \(SQLHistorySchema.transactionTable) WHERE \(condition)", [argument])
            guard let last else { return PersistentHistoryResult(resultType: request.resultType, transactions: [], count: 0) }
            try db.execute("DELETE FROM \(SQLHistorySchema.changeTable) WHERE \"ZTRANSACTION\" <= ?", [.integer(last)])
            let count = try db.execute("DELETE FROM \(SQLHistorySchema.transactionTable) WHERE \"Z_PK\" <= ?", [.integer(last)])
            try db.execute("""
                INSERT INTO \(SQLSchema.metadataTable) (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, [.string(SQLHistorySchema.prunedKey), .string(String(last + 1))])
            return PersistentHistoryResult(resultType: request.resultType, transactions: [], count: count)
        }
    }

    package func currentPersistentHistoryToken() throws -> PersistentHistoryToken {
        guard tracksPersistentHistory else { throw PersistentHistoryError.trackingNotEnabled(storeIdentifier: identifier) }
        let number = try read { db in
            try db.int64("SELECT max FROM \(SQLSchema.primaryKeyTable) WHERE entity = ?", [.string(SQLHistorySchema.transactionCounter)])
        }
        return PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: number ?? 0)
    }
}

/// Tombstones as JSON: each value with its kind, so that it reads back as
/// the same ``StoreValue``.
enum TombstoneCoding {
    private struct Value: Codable {
        let kind: String
        let value: String?
    }

    static func encode(_ tombstone: [String: StoreValue]) throws -> String {
        let values = tombstone.mapValues { value -> Value in
            switch value {
            case .bool(let bool): Value(kind: "bool", value: bool ? "1" : "0")
            case .integer(let integer): Value(kind: "integer", value: String(integer))
            case .double(let double): Value(kind: "double", value: "\(double)")
            case .string(let string): Value(kind: "string", value: string)
            case .date(let date): Value(kind: "date", value: "\(date.timeIntervalSinceReferenceDate)")
            case .data(let data): Value(kind: "data", value: data.base64EncodedString())
            case .uuid(let uuid): Value(kind: "uuid", value: uuid.uuidString)
            case .url(let url): Value(kind: "url", value: url.absoluteString)
            case .decimal(let decimal): Value(kind: "decimal", value: "\(decimal)")
            case .null, .objectID, .objectIDs, .orderedObjectIDs, .toManyFault: Value(kind: "null", value: nil)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(values), as: UTF8.self)
    }

    static func decode(_ json: String) throws -> [String: StoreValue] {
        let values = try JSONDecoder().decode([String: Value].self, from: Data(json.utf8))
        return values.mapValues { value in
            let text = value.value ?? ""
            return switch value.kind {
            case "bool": .bool(text == "1")
            case "integer": Int64(text).map(StoreValue.integer) ?? .null
            case "double": Double(text).map(StoreValue.double) ?? .null
            case "string": .string(text)
            case "date": Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
            case "data": Data(base64Encoded: text).map(StoreValue.data) ?? .null
            case "uuid": UUID(uuidString: text).map(StoreValue.uuid) ?? .null
            case "url": URL(string: text).map(StoreValue.url) ?? .null
            case "decimal": Decimal(string: text).map(StoreValue.decimal) ?? .null
            default: .null
            }
        }
    }
}
