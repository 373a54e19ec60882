import Coherence
import Foundation
import Testing

/// One row of the differential campaign: every attribute optional, so
/// that `nil` meets every operator.
final class CampaignRow: ManagedObject {
    @Attribute var text: String?
    @Attribute var number: Int64?
    @Attribute var real: Double?
    @Attribute var flag: Bool?
    @Attribute var stamp: Date?
}

/// The differential predicate campaign of issue 28: random format
/// predicates over random rows full of edge values (nil, empty strings, NUL
/// characters, accents and case, ±0, ±infinity, 2^53 ± 1, the extremes of
/// Int64 and Double), evaluated by each store (SQL for SQLite and
/// PostgreSQL) and by the context on the same objects, which must select
/// the same rows. A predicate a store cannot translate must throw or be
/// evaluated by the context, never answer wrongly.
///
/// Size: `COHERENCE_CAMPAIGN_SCALE` cases per store (300 by default, so
/// that CI runs it in seconds; `Reliability/report` runs 10,000). Each run
/// prints `N tried, M wrong, K failed` per store; reproducible from the seed.
@Suite("Reliability campaign: differential predicates")
struct DifferentialPredicateCampaign {
    static var scale: Int { ProcessInfo.processInfo.environment["COHERENCE_CAMPAIGN_SCALE"].flatMap(Int.init) ?? 300 }

    static let texts: [String?] = [nil, "", "a", "A", "ab", "x\0yz", "\0", "é", "e\u{301}", "É", "Ünïcode", "a*c", "a\\c", "100", "z", "%", "_", "'"]
    static let numbers: [Int64?] = [nil, 0, 1, -1, 2, 9_007_199_254_740_992, 9_007_199_254_740_993, -9_007_199_254_740_993, Int64.max, Int64.min, 100]
    static let reals: [Double?] = [nil, 0, -0.0, 0.5, -0.5, 1, 2, 9_007_199_254_740_992, 9_007_199_254_740_994, .infinity, -.infinity,
                                   .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 100]
    static let dates: [Date?] = [nil, Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1e9),
                                 Date(timeIntervalSinceReferenceDate: 1e9), Date(timeIntervalSinceReferenceDate: 0.5)]

    /// A random predicate over the row's keys, with its arguments.
    static func predicate(depth: Int, using random: inout FormatPredicateFuzzTests.Generator) -> (String, [Any?]) {
        func constant() -> (String, Any?) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return ("%@", texts.randomElement(using: &random)!)
            case 1: return ("%@", numbers.randomElement(using: &random)!)
            case 2: return ("%@", reals.randomElement(using: &random)!)
            case 3: return ("%@", dates.randomElement(using: &random)!)
            default: return ("%@", Bool.random(using: &random))
            }
        }
        let keys = ["text", "number", "real", "flag", "stamp"]
        let key = keys.randomElement(using: &random)!
        switch Int.random(in: 0..<(depth > 2 ? 6 : 8), using: &random) {
        case 0, 1:
            let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
            if Bool.random(using: &random) {
                return ("\(key) \(op) \(keys.randomElement(using: &random)!)", [])
            }
            let (placeholder, value) = constant()
            return ("\(key) \(op) \(placeholder)", [value])
        case 2:
            let op = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"].randomElement(using: &random)!
            let options = ["", "[c]", "[d]", "[cd]"].randomElement(using: &random)!
            var pattern = texts.randomElement(using: &random)! ?? "a"
            if op == "LIKE" { pattern = ["a*", "*c", "?", "a\\*c", "*\0*", "É*", "*"].randomElement(using: &random)! }
            if op == "MATCHES" { pattern = ["a.*", ".*\0.*", "[a-z]+", ".", "É|é", "(a|b)c?"].randomElement(using: &random)! }
            return ("text \(op)\(options) %@", [pattern])
        case 3:
            let list = (0..<Int.random(in: 0...3, using: &random)).map { _ in constant().1 }
            return ("\(key) IN %@", [list])
        case 4:
            let (_, low) = constant(), (_, high) = constant()
            return ("\(key) BETWEEN %@", [[low, high]])
        case 5:
            return (["TRUEPREDICATE", "FALSEPREDICATE", "\(key) == nil", "\(key) != nil"].randomElement(using: &random)!, [])
        case 6:
            let (inner, arguments) = predicate(depth: depth + 1, using: &random)
            return ("NOT (\(inner))", arguments)
        default:
            let (lhs, lhsArguments) = predicate(depth: depth + 1, using: &random)
            let (rhs, rhsArguments) = predicate(depth: depth + 1, using: &random)
            return ("(\(lhs)) \(["AND", "OR"].randomElement(using: &random)!) (\(rhs))", lhsArguments + rhsArguments)
        }
    }

    /// `count` rows of random edge values.
    static func insertRows(_ count: Int, in context: ManagedObjectContext, using random: inout FormatPredicateFuzzTests.Generator) {
        for _ in 0..<count {
            let row = CampaignRow(context: context)
            row.text = texts.randomElement(using: &random)!
            row.number = numbers.randomElement(using: &random)!
            row.real = reals.randomElement(using: &random)!
            row.flag = [nil, true, false].randomElement(using: &random)!
            row.stamp = dates.randomElement(using: &random)!
        }
    }

    @Test(arguments: StoreKind.allCases) func storesAndMemoryAgree(store: StoreKind) throws {
        let seed: UInt64 = 28
        var random = FormatPredicateFuzzTests.Generator(state: seed &+ UInt64(store.rawValue.count))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [CampaignRow.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        var tried = 0, wrong = 0, failed = 0, typed = 0
        try context.performAndWait {
            Self.insertRows(60, in: context, using: &random)
            try context.save()
            context.reset()
            for _ in 0..<Self.scale {
                let (format, arguments) = Self.predicate(depth: 0, using: &random)
                let predicate: Predicate<CampaignRow>
                do {
                    predicate = try Predicate<CampaignRow>(validatingFormat: format, argumentArray: arguments)
                } catch {
                    typed += 1
                    continue
                }
                tried += 1
                do {
                    let inStore = Set(try context.fetch(FetchRequest(predicate: predicate)).map(\.objectID))
                    let request = FetchRequest(predicate: predicate)
                    request.evaluatesPredicateInMemory = true
                    let inMemory = Set(try context.fetch(request).map(\.objectID))
                    let counted = try context.count(for: FetchRequest(predicate: predicate))
                    if inStore != inMemory || counted != inMemory.count {
                        wrong += 1
                        Issue.record("\(store): \(format) with \(arguments): the store selects \(inStore.count) rows, memory \(inMemory.count), count \(counted)")
                    }
                } catch is PredicateFormatError {
                    typed += 1 // a typed error for a predicate the entity cannot take
                } catch {
                    failed += 1
                    Issue.record("\(store): \(format) with \(arguments) failed: \(error)")
                }
            }
        }
        print("differential predicates (\(store)): \(tried) tried, \(wrong) wrong, \(failed) failed, \(typed) refused with a typed error")
        #expect(tried > Self.scale / 2, "the campaign reaches the stores")
    }
}
