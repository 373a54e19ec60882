import Coherence
import Foundation
import Testing

/// Hostile and random format strings: each either throws
/// ``PredicateFormatError`` or gives a predicate whose fetch succeeds, in SQL
/// and in memory with the same objects; nothing reaches the SQL text (the
/// table survives every attempt) and nothing traps.
@Suite("Predicate format fuzzing")
@MainActor
struct FormatPredicateFuzzTests {
    /// SplitMix64: a fixed seed gives the same strings on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let pieces = [
        "name", "doors", "price", "electric", "nickname", "builtAt", "dealership", "dealership.name", "dealership.city",
        "accessories", "accessories.label", "accessories.price", "accessories.@count", "dealership.automobiles.@count",
        "colour", "@count", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "AND", "OR", "NOT", "&&", "||", "!",
        "(", ")", "{", "}", ",", ".", "[c]", "[d]", "[cd]", "[", "]", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "IN", "BETWEEN", "ANY", "ALL", "NONE", "SOME", "nil", "NULL", "YES", "NO", "TRUE", "FALSE", "TRUEPREDICATE",
        "FALSEPREDICATE", "SELF", "%@", "%K", "%d", "%f", "%i", "%ld", "%lf", "%%", "%", "0", "1", "-3", "2.5", "1e3",
        "'a'", "\"b\"", "'P*'", "'[a-z]+'", "'('", "'\\''", "\"\\\"\"", "'", "\"", "\\", "'; DROP TABLE FormatCar; --",
        "\"FormatCar\"", "--", "/*", ";", "Ü", "é", "\u{0}", "#name", "$x", "~", "`",
    ]

    static let valid = [
        "name BEGINSWITH[c] 'por' AND doors >= 2", "ANY accessories.label CONTAINS[cd] 'MAT'", "price BETWEEN {1, 50000}",
        "doors IN {2, 3} OR nickname == nil", "accessories.@count > 1 && NOT electric == YES", "name MATCHES '[A-Z].*'",
        "dealership.name LIKE[c] '*burg'", "ALL accessories.price > 100", "NONE accessories.label == 'spoiler'",
    ]

    static let argumentPool: [Any?] = [
        "name", "dealership.name", "accessories.label", "colour", "", "'; DROP TABLE FormatCar; --", 2, 3.5, -1, true,
        nil, ["a", "b"], [1, 2], Date(timeIntervalSinceReferenceDate: 0), UUID(), Data([0, 1]), Double.nan,
    ]

    static let keys = ["dealership", "accessories", "name", "nickname", "doors", "price", "electric", "builtAt", "dealership.name", "dealership.city",
                       "accessories.label", "accessories.price", "accessories.@count", "dealership.automobiles.@count"]
    static let values = ["'Porsche 911'", "'p'", "\"Ü\"", "''", "nil", "YES", "NO", "0", "2", "4", "-1", "2.5", "90000", "1e4", "%@", "%d"]

    /// A random predicate that follows the grammar, over the garage's keys.
    static func grammatical(depth: Int, using random: inout Generator) -> String {
        let choice = Int.random(in: 0..<(depth > 2 ? 6 : 9), using: &random)
        let key = keys.randomElement(using: &random)!
        let value = values.randomElement(using: &random)!
        let quantifier = ["", "", "ANY ", "ALL ", "NONE ", "SOME "].randomElement(using: &random)!
        switch choice {
        case 0, 1:
            let op = ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>"].randomElement(using: &random)!
            return Bool.random(using: &random) ? "\(quantifier)\(key) \(op) \(value)" : "\(value) \(op) \(key)"
        case 2:
            let op = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"].randomElement(using: &random)!
            let options = ["", "[c]", "[d]", "[cd]"].randomElement(using: &random)!
            let pattern = ["'p'", "'P*'", "'*a?'", "'[A-Z].*'", "'.*'", "'ü'", "''", "%@"].randomElement(using: &random)!
            return "\(quantifier)\(key) \(op)\(options) \(pattern)"
        case 3:
            let list = (0..<Int.random(in: 0...3, using: &random)).map { _ in values.randomElement(using: &random)! }
            return Bool.random(using: &random) ? "\(quantifier)\(key) IN {\(list.joined(separator: ", "))}" : "\(key) IN %@"
        case 4:
            return "\(quantifier)\(key) BETWEEN {\(value), \(values.randomElement(using: &random)!)}"
        case 5:
            return ["TRUEPREDICATE", "FALSEPREDICATE", "dealership == nil", "dealership != nil"].randomElement(using: &random)!
        case 6:
            return "NOT (\(grammatical(depth: depth + 1, using: &random)))"
        default:
            let op = ["AND", "OR", "&&", "||", "and", "or"].randomElement(using: &random)!
            return "(\(grammatical(depth: depth + 1, using: &random))) \(op) \(grammatical(depth: depth + 1, using: &random))"
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomAndMutatedFormatStrings(seed: UInt64) throws {
        let garage = try Garage()
        var random = Generator(state: seed)
        let objects: [Any?] = [
            try garage.saved.fetch(FetchRequest<Dealership>()).first, try garage.saved.fetch(FetchRequest<Accessory>()).first?.objectID,
        ]
        var parsed = 0, fetched = 0
        for iteration in 0..<600 {
            let format: String
            if iteration % 3 == 2 {
                format = Self.grammatical(depth: 0, using: &random)
            } else if iteration % 3 == 0 {
                let count = Int.random(in: 1...9, using: &random)
                format = (0..<count).map { _ in Self.pieces.randomElement(using: &random)! }.joined(separator: Bool.random(using: &random) ? " " : "")
            } else {
                var characters = Array(Self.valid.randomElement(using: &random)!)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let position = Int.random(in: 0...characters.count, using: &random)
                    let piece = Array(Self.pieces.randomElement(using: &random)!)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: characters.insert(contentsOf: piece, at: position)
                    case 1 where position < characters.count: characters.remove(at: position)
                    default: characters.replaceSubrange(position..<min(position + piece.count, characters.count), with: piece)
                    }
                }
                format = String(characters)
            }
            // Mostly one argument per substitution, sometimes one too many or too few.
            let substitutions = format.filter { $0 == "%" }.count
            let count = max(0, substitutions + (Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: -1...1, using: &random) : 0))
            let pool = Self.argumentPool + objects
            let arguments = (0..<count).map { _ in pool.randomElement(using: &random)! }
            let passesObjects = arguments.contains { $0 is ManagedObject || $0 is ManagedObjectID }
            let predicate: Predicate<FormatCar>
            do {
                predicate = try Predicate<FormatCar>(validatingFormat: format, argumentArray: arguments)
            } catch {
                continue // a typed PredicateFormatError: the initializer throws nothing else
            }
            parsed += 1
            do {
                let inSQL = try garage.saved.fetch(FetchRequest(predicate: predicate)).map(\.objectID)
                let request = FetchRequest(predicate: predicate)
                request.evaluatesPredicateInMemory = true
                let inMemory = try garage.saved.fetch(request).map(\.objectID)
                #expect(Set(inSQL) == Set(inMemory), "\(format) with \(arguments)")
                let names = try garage.saved.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted()
                let unsaved = try garage.pending.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted()
                // The unsaved objects are other objects than the saved ones an argument names.
                if !passesObjects { #expect(names == unsaved, "\(format) with \(arguments) on unsaved objects") }
                fetched += 1
            } catch let error as PredicateFormatError {
                switch error {
                case .unknownKey, .unsupportedKeyPath: break
                default: Issue.record("\(format): \(error) at fetch time")
                }
            }
        }
        #expect(try garage.saved.count(for: FetchRequest<FormatCar>()) == 7, "the table survived")
        #expect(parsed > 150 && fetched > 100, "the fuzzer reaches the store (parsed \(parsed), fetched \(fetched))")
    }
}
