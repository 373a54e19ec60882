import Foundation
import GRDB

/// One way of damaging a Coherence SQLite store file, chosen from a seed,
/// for the corrupt-file campaign: flipped bytes, a truncated file, a page
/// overwritten, or a hostile edit through SQL (values of the wrong type or
/// out of range, rows deleted under their relationships, tables, columns and
/// indexes dropped or renamed, metadata and key counters rewritten, schema
/// text edited, triggers that refuse writes).
enum StoreFileMutation {
    typealias Generator = FormatPredicateFuzzTests.Generator

    /// Damages the file at `path` in one way chosen by `random`, and says
    /// how (for the report and to reproduce a case by hand).
    static func apply(to path: String, using random: inout Generator) throws -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: return try flipBytes(path, using: &random)
        case 2: return try flipHeaderBytes(path, using: &random)
        case 3: return try truncate(path, using: &random)
        case 4: return try overwritePage(path, using: &random)
        default:
            let edit = sqlEdit(path, using: &random)
            do {
                let queue = try DatabaseQueue(path: path)
                try queue.writeWithoutTransaction { db in try db.execute(sql: edit) }
                try queue.close()
                return "SQL: \(edit)"
            } catch {
                // An edit SQLite itself refuses (a column an index needs, …):
                // flip bytes instead, so that every case damages the file.
                return try flipBytes(path, using: &random) + " (SQL edit refused: \(edit))"
            }
        }
    }

    private static func flipBytes(_ path: String, using random: inout Generator) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let count = Int.random(in: 1...16, using: &random)
        var offsets: [Int] = []
        for _ in 0..<count {
            let offset = Int.random(in: 0..<bytes.count, using: &random)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
            offsets.append(offset)
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        return "flipped bytes at \(offsets)"
    }

    private static func flipHeaderBytes(_ path: String, using random: inout Generator) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let offset = Int.random(in: 0..<100, using: &random)
        bytes[offset] = UInt8.random(in: 0...255, using: &random)
        try bytes.write(to: URL(fileURLWithPath: path))
        return "header byte \(offset) set to \(bytes[offset])"
    }

    private static func truncate(_ path: String, using random: inout Generator) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let length = Bool.random(using: &random)
            ? Int.random(in: 0..<bytes.count, using: &random)
            : 4096 * Int.random(in: 0..<max(1, bytes.count / 4096), using: &random)
        try bytes.prefix(length).write(to: URL(fileURLWithPath: path))
        return "truncated to \(length) of \(bytes.count) bytes"
    }

    private static func overwritePage(_ path: String, using random: inout Generator) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pages = max(1, bytes.count / 4096)
        let page = Int.random(in: 0..<pages, using: &random)
        let zeros = Bool.random(using: &random)
        for offset in (page * 4096)..<min(bytes.count, (page + 1) * 4096) {
            bytes[offset] = zeros ? 0 : UInt8.random(in: 0...255, using: &random)
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        return "page \(page) of \(pages) overwritten with \(zeros ? "zeros" : "random bytes")"
    }

    /// Values of every storage class and extreme, for columns of any type.
    static let hostileValues = [
        "NULL", "''", "'garbage'", "X'00FF00'", "CAST(X'FFFE41' AS TEXT)", "CAST(X'610062' AS TEXT)", "-1", "0",
        "9223372036854775807", "-9223372036854775808", "1e308", "-1e308", "2.5", "'1e999'", "'NaN'", "32768", "-32769",
        "2147483648", "'{}'", "'[1,'", "zeroblob(70000)", "printf('%.*c', 70000, 'x')",
    ]

    /// One hostile SQL edit of the store at `path`, on its own tables.
    private static func sqlEdit(_ path: String, using random: inout Generator) -> String {
        let (tables, columns) = (try? schema(path)) ?? ([], [:])
        guard let table = tables.randomElement(using: &random) else { return "SELECT 1" }
        let column = columns[table]?.randomElement(using: &random) ?? "Z_PK"
        let value = hostileValues.randomElement(using: &random)!
        let row = Int.random(in: 1...8, using: &random)
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1, 2:
            return "UPDATE \"\(table)\" SET \"\(column)\" = \(value) WHERE rowid IN (SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(row % 3))"
        case 3:
            return "DELETE FROM \"\(table)\" WHERE rowid IN (SELECT rowid FROM \"\(table)\" LIMIT 1 OFFSET \(row % 3))"
        case 4:
            return "DROP TABLE \"\(table)\""
        case 5:
            return "ALTER TABLE \"\(table)\" DROP COLUMN \"\(column)\""
        case 6:
            return "ALTER TABLE \"\(table)\" RENAME COLUMN \"\(column)\" TO \"renamed\""
        case 7:
            let damage = [
                "substr(value, 1, length(value) / 2)", "replace(value, '\"', '')", "replace(value, 'string', 'integer16')",
                "replace(value, 'Server', 'Sample')", "replace(value, 'true', 'false')", "value || value", "'[]'", "'{}'", "'null'",
                "replace(value, '\"name\"', '\"title\"')", "replace(value, ':1', ':99')",
            ].randomElement(using: &random)!
            return "UPDATE \"Z_METADATA\" SET value = \(damage) WHERE key = 'model'"
        case 8:
            return "UPDATE \"Z_PRIMARYKEY\" SET max = \(["0", "1", "-5", "9223372036854775807", "NULL", "'x'"].randomElement(using: &random)!)"
                + " WHERE rowid = \(row % 4 + 1)"
        case 9:
            return "CREATE TRIGGER hostile BEFORE INSERT ON \"\(table)\" BEGIN SELECT RAISE(ABORT, 'hostile trigger'); END"
        case 10:
            return "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '\(column)', 'x\(row)') WHERE name = '\(table)'"
        default:
            return "DROP TABLE \"\(table)\"; CREATE VIEW \"\(table)\" AS SELECT 1 AS \"Z_PK\""
        }
    }

    /// The store's tables (SQLite's own excepted) and their columns.
    private static func schema(_ path: String) throws -> ([String], [String: [String]]) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            var columns: [String: [String]] = [:]
            for table in tables {
                columns[table] = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
            }
            return (tables, columns)
        }
    }
}
