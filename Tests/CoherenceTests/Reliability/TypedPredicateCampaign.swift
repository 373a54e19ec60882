import Coherence
import Foundation
import Testing

/// The typed half of the differential campaign (issue 28): `#Predicate`s
/// of every form the stores translate (comparisons of optional
/// attributes with edge constants, `??`, `flatMap`, `contains`,
/// `hasPrefix`, `localizedStandardContains`, membership in a list, `&&`,
/// `||`, `!`), with constants drawn from the same edge values as the
/// format campaign, and random sort descriptors. The store's selection
/// must equal Foundation's own evaluation of the predicate on the same
/// objects (`evaluatesPredicateInMemory`), and its order must equal
/// `sorted(using:)` of those objects (rows equal in every sort key may come
/// in either order). A predicate a store cannot translate throws.
///
/// One departure is counted apart, not failed: rows whose text is not in
/// its composed Unicode form (NFC, "e" + U+0301 rather than "é") compare
/// in a store by their stored form, as SwiftData's stores do, while Swift's
/// `String` compares canonical equivalents as equal (README, "Strings in
/// typed predicates").
///
/// Size: `COHERENCE_CAMPAIGN_SCALE` cases per store, as the format campaign.
@Suite("Reliability campaign: typed predicates and sort descriptors")
struct TypedPredicateCampaign {
    typealias Row = CampaignRow
    typealias Values = DifferentialPredicateCampaign

    /// A random typed predicate, how to print it, and the string constant
    /// it compares text with (`""` for `nil`), if it does.
    static func predicate(using random: inout FormatPredicateFuzzTests.Generator) -> (String, Predicate<Row>, comparesText: String?) {
        let text = Values.texts.randomElement(using: &random)!
        let word = Values.texts.compactMap { $0 }.randomElement(using: &random)!
        let number = Values.numbers.randomElement(using: &random)!
        let plainNumber = number ?? 0
        let real = Values.reals.randomElement(using: &random)!
        let plainReal = real ?? 0
        let stamp = Values.dates.randomElement(using: &random)!
        let plainStamp = stamp ?? .distantPast
        let past = Date.distantPast
        let flag = Bool.random(using: &random)
        let list = (0..<Int.random(in: 0...3, using: &random)).map { _ in Values.numbers.randomElement(using: &random)! ?? 1 }
        switch Int.random(in: 0..<22, using: &random) {
        case 0: return ("text == \(String(reflecting: text))", #Predicate { $0.text == text }, text ?? "")
        case 1: return ("text != \(String(reflecting: text))", #Predicate { $0.text != text }, text ?? "")
        case 2: return ("(text ?? \"\") < \(String(reflecting: word))", #Predicate { ($0.text ?? "") < word }, word)
        case 3: return ("(text ?? \"\") >= \(String(reflecting: word))", #Predicate { ($0.text ?? "") >= word }, word)
        case 4: return ("text.contains \(String(reflecting: word))", #Predicate { $0.text.flatMap { $0.contains(word) } == true }, word)
        case 5: return ("text.starts(with:) \(String(reflecting: word))", #Predicate { $0.text.flatMap { $0.starts(with: word) } == true }, word)
        case 6: return ("text.localizedStandardContains \(String(reflecting: word))",
                        #Predicate { $0.text.flatMap { $0.localizedStandardContains(word) } == true }, word)
        case 7: return ("number == \(String(describing: number))", #Predicate { $0.number == number }, nil)
        case 8: return ("number != \(String(describing: number))", #Predicate { $0.number != number }, nil)
        case 9: return ("(number ?? 0) > \(plainNumber)", #Predicate { ($0.number ?? 0) > plainNumber }, nil)
        case 10: return ("(number ?? 0) <= \(plainNumber)", #Predicate { ($0.number ?? 0) <= plainNumber }, nil)
        case 11: return ("real == \(String(describing: real))", #Predicate { $0.real == real }, nil)
        case 12: return ("(real ?? 0) < \(plainReal)", #Predicate { ($0.real ?? 0) < plainReal }, nil)
        case 13: return ("(real ?? 0) >= \(plainReal)", #Predicate { ($0.real ?? 0) >= plainReal }, nil)
        case 14: return ("flag == \(flag)", #Predicate { $0.flag == flag }, nil)
        case 15: return ("stamp == \(String(describing: stamp))", #Predicate { $0.stamp == stamp }, nil)
        case 16: return ("(stamp ?? distantPast) > \(plainStamp)", #Predicate { ($0.stamp ?? past) > plainStamp }, nil)
        case 17: return ("\(list).contains(number ?? 1)", #Predicate { list.contains($0.number ?? 1) }, nil)
        case 18: return ("(flag ?? false) && (number ?? 0) > \(plainNumber)", #Predicate { ($0.flag ?? false) && ($0.number ?? 0) > plainNumber }, nil)
        case 19: return ("text == \(String(reflecting: text)) || real == nil", #Predicate { $0.text == text || $0.real == nil }, text ?? "")
        case 20: return ("!(number == \(String(describing: number)))", #Predicate { !($0.number == number) }, nil)
        default: return ("text == nil && !(flag ?? true)", #Predicate { $0.text == nil && !($0.flag ?? true) }, nil)
        }
    }

    /// Whether `string` is in composed form (NFC).
    static func isComposed(_ string: String) -> Bool {
        string.unicodeScalars.elementsEqual(string.precomposedStringWithCanonicalMapping.unicodeScalars)
    }

    /// Whether rows can be selected differently only because a store
    /// compares stored forms and Swift canonical equivalence: the
    /// predicate compares text with a constant, and that constant is not
    /// in composed form (it then orders and matches by its own form against
    /// every row) or every differing row's text is not.
    static func differsByNormalizationOnly(_ differing: Set<Row>, comparedWith constant: String?) -> Bool {
        guard let constant else { return false }
        return !isComposed(constant) || differing.allSatisfy { !($0.text.map(isComposed) ?? true) }
    }

    /// One to three random sort descriptors over the row's keys.
    static func sortDescriptors(using random: inout FormatPredicateFuzzTests.Generator) -> [SortDescriptor<Row>] {
        let all: [SortDescriptor<Row>] = [
            SortDescriptor(\.text), SortDescriptor(\.text, order: .reverse), SortDescriptor(\.number),
            SortDescriptor(\.number, order: .reverse), SortDescriptor(\.real), SortDescriptor(\.real, order: .reverse),
            SortDescriptor(\.stamp), SortDescriptor(\.stamp, order: .reverse),
        ]
        return Array(all.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)))
    }

    /// The keys a row sorts by, printed, for comparing orders: equal keys
    /// (as Swift compares them: canonically equivalent strings, ±0) print
    /// alike, since rows that tie may come in either order.
    static func keys(_ row: Row) -> String {
        let text = row.text?.precomposedStringWithCanonicalMapping
        let real = row.real.map { $0 == 0 ? 0 : $0 }
        return "\(String(reflecting: text))|\(String(describing: row.number))|\(String(describing: real))|\(String(describing: row.stamp))"
    }

    /// Found by this campaign: PostgreSQL listed `nil` last in a forward
    /// sort (its NULLs sort as the largest value), and an empty list's
    /// `contains` failed with a bind error on SQLite.
    @Test(arguments: StoreKind.allCases) func nilSortsAsSortDescriptorSortsIt(store: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Row.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            for number in [2, nil, 1] as [Int64?] { Row(context: context).number = number }
            try context.save()
            #expect(try context.fetch(FetchRequest<Row>(sortBy: [SortDescriptor(\.number)])).map(\.number) == [nil, 1, 2])
            #expect(try context.fetch(FetchRequest<Row>(sortBy: [SortDescriptor(\.number, order: .reverse)])).map(\.number) == [2, 1, nil])
            let none: [Int64] = []
            #expect(try context.count(for: FetchRequest<Row>(predicate: #Predicate { none.contains($0.number ?? 1) })) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func storesAgreeWithFoundation(store: StoreKind) throws {
        var random = FormatPredicateFuzzTests.Generator(state: 2_028 &+ UInt64(store.rawValue.count))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Row.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        var tried = 0, wrong = 0, misordered = 0, failed = 0, refused = 0, normalization = 0
        try context.performAndWait {
            DifferentialPredicateCampaign.insertRows(60, in: context, using: &random)
            try context.save()
            context.reset()
            for _ in 0..<DifferentialPredicateCampaign.scale {
                let (text, predicate, constant) = Self.predicate(using: &random)
                let sort = Self.sortDescriptors(using: &random)
                tried += 1
                do {
                    let fromStore = try context.fetch(FetchRequest(predicate: predicate, sortBy: sort))
                    let request = FetchRequest(predicate: predicate)
                    request.evaluatesPredicateInMemory = true
                    let inMemory = try context.fetch(request)
                    let differing = Set(fromStore).symmetricDifference(Set(inMemory))
                    if !differing.isEmpty, Self.differsByNormalizationOnly(differing, comparedWith: constant) {
                        // The documented departure (README, "Strings in
                        // typed predicates").
                        normalization += 1
                    } else if !differing.isEmpty {
                        wrong += 1
                        Issue.record("\(store): \(text): the store selects \(fromStore.count) rows, Foundation \(inMemory.count)")
                    } else if fromStore.map(Self.keys) != inMemory.sorted(using: sort).map(Self.keys) {
                        misordered += 1
                        Issue.record("\(store): \(text) sorted by \(sort.map { String(describing: $0.keyPath!) }): the store's order differs from sorted(using:)")
                    }
                } catch is FetchError {
                    refused += 1 // a construct this store cannot translate: a typed error, never a wrong answer
                } catch {
                    failed += 1
                    Issue.record("\(store): \(text) failed: \(error)")
                }
            }
        }
        print("differential typed predicates and sorts (\(store)): \(tried) tried, \(wrong) wrong, \(misordered) misordered,"
              + " \(failed) failed, \(refused) refused with a typed error; \(normalization) differ only on strings not in"
              + " composed form (NFC), which a store compares by their stored form and Swift by canonical equivalence")
        #expect(wrong == 0 && misordered == 0 && failed == 0)
        #expect(refused < tried / 2, "the campaign reaches the stores")
    }
}
