import Coherence
import Foundation
import Testing

/// Hostile and extreme values saved through a context and read back by
/// another coordinator (another launch of the app): exactly what was saved,
/// on SQLite and PostgreSQL alike. The values are those of the PostgreSQL
/// connection tests (`PostgresConnectionTests.values`), here through objects.
@Suite("Extreme values through objects")
struct DatabaseValueRoundTripTests {
    static let strings = [
        "", "'\";--", "'); DROP TABLE \"Sample\"; --", "Robert'); \"x\" ? $1 %s \\ \\\\",
        "a\u{0}b", "\u{0}", "x\u{FFFF}\u{FFFE}y\u{0}", "emoji 👩‍👩‍👧 and é e\u{301} 中文",
        String(repeating: "abcdefghij", count: 100_000),
    ]
    static let dates: [Date] = [
        .distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSinceReferenceDate: -1e10 + 0.123),
    ]
    static let decimals: [Decimal] = [
        Decimal(string: "12345678901234567890123456789012345678")!,
        Decimal(string: "-1234567890.1234567890123456789012345678")!,
        Decimal(string: "0.00000000000000000000000000000000000001")!,
        Decimal(0),
    ]
    static let datas: [Data] = [Data(), Data([0, 1, 2, 255, 0]), Data(repeating: 7, count: 1 << 20)]
    static let doubles: [Double] = [-0.0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
    static let integers: [Int64] = [.min, .max, -1]

    @Test(arguments: StoreKind.databases)
    func hostileAndExtremeValuesRoundTripThroughObjects(store kind: StoreKind) throws {
        let database = try TestDatabase.new(kind)
        let writer = try database.context()
        try writer.performAndWait {
            for (n, string) in Self.strings.enumerated() {
                let sample = Sample(context: writer)
                sample.code = "case \(n)"
                sample.string = string
                sample.optionalString = string
                sample.date = Self.dates[n % Self.dates.count]
                sample.decimal = Self.decimals[n % Self.decimals.count]
                sample.data = Self.datas[n % Self.datas.count]
                sample.double = Self.doubles[n % Self.doubles.count]
                sample.int64 = Self.integers[n % Self.integers.count]
                sample.url = URL(string: "https://example.com/a?b=c&d='e'#f\(n)")!
            }
            try writer.save()
        }
        let reader = try database.context()
        try reader.performAndWait {
            let samples = try reader.fetch(FetchRequest<Sample>())
            #expect(samples.count == Self.strings.count)
            let byCode = Dictionary(uniqueKeysWithValues: samples.map { ($0.code, $0) })
            for (n, string) in Self.strings.enumerated() {
                let sample = try #require(byCode["case \(n)"], "case \(n)")
                #expect(sample.string == string, "string \(n): \(sample.string.unicodeScalars.prefix(20).map(\.value))")
                #expect(sample.string.unicodeScalars.elementsEqual(string.unicodeScalars), "string \(n) scalar for scalar")
                #expect(sample.optionalString == string)
                #expect(sample.date == Self.dates[n % Self.dates.count], "date \(n)")
                #expect(sample.decimal == Self.decimals[n % Self.decimals.count], "decimal \(n)")
                #expect(sample.data == Self.datas[n % Self.datas.count], "data \(n)")
                let double = Self.doubles[n % Self.doubles.count]
                #expect(sample.double == double, "double \(n)")
                // SQLite reads a -0.0 it was given back as 0.0 (see AttributeStorageTests); PostgreSQL keeps the sign.
                if kind == .postgres { #expect(sample.double.sign == double.sign, "the sign of double \(n)") }
                #expect(sample.int64 == Self.integers[n % Self.integers.count], "integer \(n)")
                #expect(sample.url == URL(string: "https://example.com/a?b=c&d='e'#f\(n)")!)
            }
            // Each string finds its own object, and only it, in a fetch predicate.
            for (n, string) in Self.strings.enumerated() {
                let found = try reader.fetch(FetchRequest<Sample>(predicate: #Predicate { $0.string == string }))
                #expect(found.map(\.code) == ["case \(n)"], "a fetch for string \(n)")
            }
        }
    }
}
