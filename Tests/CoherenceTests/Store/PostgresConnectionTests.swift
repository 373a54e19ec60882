@testable import Coherence
@testable import CoherencePostgres
import Foundation
import Testing

/// The PostgreSQL connections the PostgreSQL store is built on, against a
/// real server (`.ci/with-postgres swift test`).
@Suite("PostgreSQL connections")
struct PostgresConnectionTests {
    /// Connections on a new, empty schema.
    func connections(maximum: Int = 4) throws -> PostgresConnections {
        try PostgresConnections(configuration: try PostgresTestServer.newSchemaConfiguration(), maximumConnections: maximum)
    }

    /// The values the SQLite store's round-trip tests use, each with the
    /// column type the shared engine gives its kind.
    private static let values: [StoreValue] = [
        .null,
        .bool(true), .bool(false),
        .integer(0), .integer(.min), .integer(.max), .integer(-1),
        .double(0), .double(-0.0), .double(.infinity), .double(-.infinity), .double(.pi),
        .double(.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude), .double(-1e-300),
        .string(""), .string("'\";--"), .string("'); DROP TABLE v; --"), .string("Robert'); \"x\" ? $1"),
        .string("emoji 👩‍👩‍👧 and é e\u{301} 中文"), .string(String(repeating: "abcdefghij", count: 100_000)),
        .date(.distantPast), .date(.distantFuture), .date(Date(timeIntervalSinceReferenceDate: 0)),
        .date(Date(timeIntervalSinceReferenceDate: -1e10 + 0.123)),
        .data(Data()), .data(Data([0, 1, 2, 255, 0])), .data(Data(repeating: 7, count: 1 << 20)),
        .uuid(UUID()), .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        .url(URL(string: "https://example.com/a?b=c&d='e'#f")!), .url(URL(fileURLWithPath: "/tmp/x y")),
        .decimal(Decimal(string: "12345678901234567890123456789012345678")!),
        .decimal(Decimal(string: "-1234567890.1234567890123456789012345678")!),
        .decimal(Decimal(string: "0.00000000000000000000000000000000000001")!), .decimal(0),
        .objectID(ManagedObjectID(objectClass: Server.self, storeNumber: 1, key: 42)),
        .objectID(ManagedObjectID(objectClass: Server.self, storeNumber: 1, key: .max)),
    ]

    private static func column(_ value: StoreValue) -> String {
        switch value {
        case .bool: "b"
        case .integer, .objectID: "i"
        case .double, .date: "d"
        case .string, .url, .decimal: "s"
        case .data, .uuid: "x"
        case .null, .objectIDs, .orderedObjectIDs, .toManyFault: "s"
        }
    }

    /// `value` read back from `row`'s column 0, as the engine reads its kind.
    private static func read(_ row: any SQLRow, as value: StoreValue) -> StoreValue {
        if row.columnType(0) == .null { return .null }
        return switch value {
        case .null, .objectIDs, .orderedObjectIDs, .toManyFault: .string(row.string(0))
        case .bool: .bool(row.int64(0) != 0)
        case .integer: .integer(row.int64(0))
        case .double: .double(row.double(0))
        case .string: .string(row.string(0))
        case .date: .date(Date(timeIntervalSinceReferenceDate: row.double(0)))
        case .data: .data(row.data(0))
        case .uuid: .uuid(row.data(0).withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case .url: .url(URL(string: row.string(0))!)
        case .decimal: .decimal(Decimal(string: row.string(0))!)
        case .objectID(let id):
            .objectID(ManagedObjectID(objectClass: Server.self, storeNumber: id.storeNumber, key: row.int64(0)))
        }
    }

    @Test("Every kind of store value round-trips exactly, SQL metacharacters, 1 MB strings, emoji and extremes included",
          .enabled(if: PostgresTestServer.shouldRun))
    func valuesRoundTrip() throws {
        let connections = try connections()
        try connections.write { database in
            try database.execute(
                "CREATE TABLE v (n BIGINT PRIMARY KEY, b BOOLEAN, i BIGINT, d DOUBLE PRECISION, s TEXT, x BYTEA)", []
            )
            for (n, value) in Self.values.enumerated() {
                try database.execute("INSERT INTO v (n, \(Self.column(value))) VALUES (?, ?)", [.integer(Int64(n)), value])
            }
        }
        try connections.read { database in
            for (n, value) in Self.values.enumerated() {
                var readBack: [StoreValue] = []
                try database.forEachRow("SELECT \(Self.column(value)) FROM v WHERE n = ?", [.integer(Int64(n))]) { row in
                    readBack.append(Self.read(row, as: value))
                }
                #expect(readBack == [value], "value \(n) (\(value.kindName))")
                if case .double(let double) = value, case .double(let back)? = readBack.first {
                    #expect(back.sign == double.sign, "the sign of \(double)")
                }
            }
        }
        // Booleans read as integers 0 and 1, as in every dialect.
        let booleans = try connections.read { try $0.int64s("SELECT b FROM v WHERE b IS NOT NULL ORDER BY n") }
        #expect(booleans == [1, 0])
    }

    /// PostgreSQL text cannot hold U+0000; the store escapes it (and the
    /// escape character U+0001), so such strings round-trip exactly, compare
    /// equal to themselves in SQL, and sort in the order of their UTF-8
    /// bytes, as in SQLite and in memory.
    @Test("Strings holding NUL and U+0001 round-trip, compare equal and sort by bytes", .enabled(if: PostgresTestServer.shouldRun))
    func nulRoundTrips() throws {
        let connections = try connections()
        let strings = ["a\u{0}b", "\u{0}", "\u{FFFF}", "x\u{FFFF}\u{FFFE}y\u{0}", "\u{FFFE}", "plain", "\u{1}", "a\u{1}\u{2}b", "\u{2}", "", "a", "a\u{0}"]
        try connections.write { database in
            try database.execute("CREATE TABLE t (n BIGINT PRIMARY KEY, s TEXT)", [])
            for (n, string) in strings.enumerated() {
                try database.execute("INSERT INTO t (n, s) VALUES (?, ?)", [.integer(Int64(n)), .string(string)])
            }
        }
        try connections.read { database throws in
            #expect(try database.strings("SELECT s FROM t ORDER BY n") == strings)
            for (n, string) in strings.enumerated() {
                #expect(try database.int64s("SELECT n FROM t WHERE s = ?", [.string(string)]) == [Int64(n)], "\(string.unicodeScalars.map(\.value))")
            }
            let byBytes = strings.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(try database.strings("SELECT s FROM t ORDER BY s COLLATE \"C\", n") == byBytes)
            #expect(try database.int64s("SELECT count(*) FROM t WHERE s < ? COLLATE \"C\"", [.string("a\u{0}")])
                    == [Int64(strings.filter { Array($0.utf8).lexicographicallyPrecedes(Array("a\u{0}".utf8)) }.count)])
        }
    }

    @Test("Query results read by type: integers, reals, text, blobs and NULL", .enabled(if: PostgresTestServer.shouldRun))
    func resultTypes() throws {
        let connections = try connections()
        try connections.read { database in
            try database.forEachRow(
                "SELECT 1::smallint, 2::integer, 3::bigint, 1.5::real, 2.5::double precision, 7.25::numeric, "
                    + "'t'::text, 'v'::varchar, 'n'::name, '\\x0102'::bytea, NULL, true, (SELECT count(*) FROM (VALUES (1)) AS one (x)), 9.99::numeric", []
            ) { row in
                #expect((0..<3).map(row.columnType) == [.integer, .integer, .integer])
                #expect((0..<3).map(row.int64) == [1, 2, 3])
                #expect((3..<6).map(row.columnType) == [.real, .real, .real])
                #expect((3..<6).map(row.double) == [1.5, 2.5, 7.25])
                #expect(row.int64(5) == 7, "a real read as an integer truncates")
                #expect(row.double(2) == 3, "an integer read as a double converts")
                #expect((6..<9).map(row.columnType) == [.text, .text, .text])
                #expect((6..<9).map(row.string) == ["t", "v", "n"])
                #expect(row.columnType(9) == .blob)
                #expect(row.data(9) == Data([1, 2]))
                #expect(row.columnType(10) == .null)
                #expect(row.int64(10) == 0 && row.string(10) == "")
                #expect(row.columnType(11) == .integer && row.int64(11) == 1)
                #expect(row.int64(12) == 1)
                #expect(row.int64(13) == 9)
            }
        }
    }

    @Test("? parameters become $1…$n, except inside string literals, quoted identifiers and comments")
    func parameterNumbering() {
        #expect(PostgresSQLText.numberingParameters("SELECT ?") == ("SELECT $1", 1))
        #expect(PostgresSQLText.numberingParameters("INSERT INTO t (a, b) VALUES (?,?)")
            == ("INSERT INTO t (a, b) VALUES ($1,$2)", 2))
        #expect(PostgresSQLText.numberingParameters("SELECT '?', 'it''s ?', \"a?\" FROM t WHERE x = ? AND y = '?'")
            == ("SELECT '?', 'it''s ?', \"a?\" FROM t WHERE x = $1 AND y = '?'", 1))
        #expect(PostgresSQLText.numberingParameters("SELECT ? -- why?\n, ? /* what? */ , ?")
            == ("SELECT $1 -- why?\n, $2 /* what? */ , $3", 3))
        #expect(PostgresSQLText.numberingParameters("SELECT \"x\"\"?\", ?") == ("SELECT \"x\"\"?\", $1", 1))
        #expect(PostgresSQLText.numberingParameters("SELECT 1") == ("SELECT 1", 0))
        // Numbers of every width, as a large multi-row insert has them.
        let many = PostgresSQLText.numberingParameters(Array(repeating: "?", count: 10_001).joined(separator: ","))
        #expect(many.count == 10_001)
        #expect(many.sql == (1...10_001).map { "$\($0)" }.joined(separator: ","))
    }

    @Test("A single-row INSERT is recognized for multi-row batching; other statements are not")
    func singleRowInserts() {
        #expect(PostgresSQLText.singleRowInsert("INSERT INTO t (a, b) VALUES (?, ?)")! == ("INSERT INTO t (a, b) VALUES ", "(?, ?)"))
        #expect(PostgresSQLText.singleRowInsert("insert into \"t\" VALUES(?, 0, ?);")! == ("insert into \"t\" VALUES ", "(?, 0, ?)"))
        #expect(PostgresSQLText.singleRowInsert("INSERT INTO t (a) VALUES (?) ON CONFLICT DO NOTHING") == nil)
        #expect(PostgresSQLText.singleRowInsert("INSERT INTO t (a) VALUES (?), (?)") == nil)
        #expect(PostgresSQLText.singleRowInsert("INSERT INTO t (a) VALUES (lower(?))") == nil)
        #expect(PostgresSQLText.singleRowInsert("INSERT INTO t (a) SELECT ?") == nil)
        #expect(PostgresSQLText.singleRowInsert("UPDATE t SET a = ?") == nil)
    }
}
