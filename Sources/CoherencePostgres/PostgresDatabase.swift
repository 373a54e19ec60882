import Coherence
import Foundation
import PostgresNIO

/// One PostgreSQL connection inside a transaction of ``PostgresConnections``,
/// as the shared SQL engine uses it. Statements use `?` parameters, which
/// become `$1`, `$2`, … (``PostgresSQLText/numberingParameters(_:)``); values
/// are bound as ``PostgresValues`` describes. Every call is one round trip
/// to the server, except ``executeMany(_:count:row:)`` of an `INSERT`, which sends
/// many rows per statement. Every error is a ``StoreError``.
package struct PostgresDatabase: SQLDatabase {
    let connection: PostgresConnection
    let connections: PostgresConnections

    package var dialect: SQLDialect { .postgres }

    /// PostgreSQL's limit on the parameters of one statement.
    static let maximumParameters = 65_535

    @discardableResult
    package func execute(_ sql: String, _ arguments: [StoreValue]) throws -> Int {
        let numbered = PostgresSQLText.numberingParameters(sql)
        return try run(numbered.sql, arguments, original: sql).metadata.rows ?? 0
    }

    package func executeMany(_ sql: String, count: Int, row: (Int, inout [StoreValue]) throws -> Void) throws {
        var arguments: [StoreValue] = []
        guard count > 1, let insert = PostgresSQLText.singleRowInsert(sql) else {
            for index in 0..<count {
                arguments.removeAll(keepingCapacity: true)
                try row(index, &arguments)
                try execute(sql, arguments)
            }
            return
        }
        // The first row tells how many parameters a row takes.
        try row(0, &arguments)
        let rowsPerStatement = max(1, Self.maximumParameters / max(1, arguments.count))
        // Every full statement has the same text: numbered once.
        var fullStatement: String?
        func statement(rows: Int) -> String {
            if rows == rowsPerStatement, let fullStatement { return fullStatement }
            let text = PostgresSQLText.numberingParameters(
                insert.head + repeatElement(insert.row, count: rows).joined(separator: ", ")).sql
            if rows == rowsPerStatement { fullStatement = text }
            return text
        }
        var next = 1, start = 0
        while start < count {
            let end = min(count, start + rowsPerStatement)
            while next < end {
                try row(next, &arguments)
                next += 1
            }
            try run(statement(rows: end - start), arguments, original: sql)
            arguments.removeAll(keepingCapacity: true)
            start = end
        }
    }

    package func forEachRow(_ sql: String, _ arguments: [StoreValue], _ body: (any SQLRow) throws -> Void) throws {
        let numbered = PostgresSQLText.numberingParameters(sql)
        let result = try run(numbered.sql, arguments, original: sql)
        for row in result.rows {
            try body(PostgresSQLRow(row))
        }
    }

    package func tableExists(_ name: String) throws -> Bool {
        try int64("SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?", [.string(name)]) ?? 0 > 0
    }

    package func tableNames() throws -> [String] {
        try strings("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
    }

    package func columnNames(_ table: String) throws -> [String] {
        try strings("""
            SELECT column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
            """, [.string(table)])
    }

    package func indexNames(startingWith prefixes: [String]) throws -> [String] {
        try strings("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()").filter { name in
            prefixes.contains { name.hasPrefix($0) }
        }
    }

    /// Runs one statement (`$n` parameters) and waits for all of its rows.
    ///
    /// The rows are collected through postgres-nio's per-row callback, not
    /// its `PostgresQueryResult` query: that one (postgres-nio 1.33,
    /// `PSQLRowStream.all()`) copies every row received so far each time more
    /// arrive, which is quadratic in the rows of a large result.
    @discardableResult
    func run(_ sql: String, _ arguments: [StoreValue], original: String) throws -> (metadata: PostgresQueryMetadata, rows: [PostgresRow]) {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            try PostgresValues.bind(argument, to: &bindings, sql: original)
        }
        let collected = CollectedRows()
        let metadata = try connections.wait(on: connection, sql: original) {
            connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: connections.logger) { row in
                collected.rows.append(row)
            }
        }
        return (metadata, collected.rows)
    }
}

/// The rows of one query, appended on the connection's event loop, one
/// after another, and read by the waiting thread once the query's future
/// has completed (which orders the appends before the read).
private final class CollectedRows: @unchecked Sendable {
    var rows: [PostgresRow] = []
}
