import Coherence
import Foundation
import Testing

/// Disagreements between SQL and in-memory evaluation that the
/// reliability campaign's differential predicates found (issue 28), kept as
/// regression tests: each predicate must select the same objects when the
/// store evaluates it and when the context evaluates it on the objects.
final class AgreementRow: ManagedObject {
    @Attribute var text = ""
    @Attribute var count: Int64 = 0
    @Attribute var amount = 0.0
}

@Suite("SQL and in-memory evaluation agree")
struct PredicateAgreementTests {
    private static let rows: [(String, Int64, Double)] = [
        ("x\0yz", 9_007_199_254_740_993, 9_007_199_254_740_992),    // 2^53 + 1 and 2^53
        ("xyz", 9_007_199_254_740_992, 9_007_199_254_740_994),
        ("X\0YZ", -9_007_199_254_740_993, -9_007_199_254_740_992),
        ("a*c", Int64.max, 9_223_372_036_854_775_808),               // 2^63
        ("abc", Int64.min, -0.5),
        ("a\\c", 3, 3.5),
    ]

    /// The names selected by the store and in memory, which must agree.
    private func texts(_ format: String, _ arguments: Any?..., in context: ManagedObjectContext,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let predicate = Predicate<AgreementRow>(format: format, argumentArray: arguments)
        let inStore = try context.fetch(FetchRequest(predicate: predicate)).map(\.text).sorted()
        let request = FetchRequest(predicate: predicate)
        request.evaluatesPredicateInMemory = true
        let inMemory = try context.fetch(request).map(\.text).sorted()
        #expect(inStore == inMemory, "\(format)", sourceLocation: sourceLocation)
        return inStore
    }

    @Test(arguments: StoreKind.allCases) func agreement(store: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [AgreementRow.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            for (text, count, amount) in Self.rows {
                let row = AgreementRow(context: context)
                (row.text, row.count, row.amount) = (text, count, amount)
            }
            try context.save()
            context.reset()

            // Text holding a NUL is compared whole by the store's functions.
            #expect(try texts("text LIKE 'x*z'", in: context) == ["x\0yz", "xyz"])
            #expect(try texts("text LIKE 'x?yz'", in: context) == ["x\0yz"])
            #expect(try texts("text ENDSWITH[c] %@", "\0yz", in: context) == ["X\0YZ", "x\0yz"])
            #expect(try texts("text MATCHES %@", "x.yz", in: context) == ["x\0yz"])
            #expect(try texts("text BEGINSWITH %@", "x\0", in: context) == ["x\0yz"])

            // Integers and doubles compare exactly, beyond 2^53 too.
            #expect(try texts("count > %f", 9_007_199_254_740_992.0, in: context) == ["a*c", "x\0yz"],
                    "2^53 + 1 > 2^53, which converting to Double would lose")
            #expect(try texts("count == amount", in: context).isEmpty, "no row's integer equals its double exactly")
            #expect(try texts("count < amount", in: context) == ["X\0YZ", "a*c", "a\\c", "abc", "xyz"])
            #expect(try texts("amount > %d", 9_007_199_254_740_992, in: context) == ["a*c", "xyz"])

            // LIKE: a backslash makes the next character literal.
            #expect(try texts("text LIKE %@", "a\\*c", in: context) == ["a*c"])
            #expect(try texts("text LIKE %@", "a*c", in: context) == ["a*c", "a\\c", "abc"].sorted())
            #expect(try texts("text LIKE %@", "a\\\\c", in: context) == ["a\\c"])
        }
    }
}
