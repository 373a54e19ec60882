import Coherence
import Foundation
import Testing

/// Predicates composed at run time, as Core Data users compose
/// `NSCompoundPredicate`s: "An AND predicate with no subpredicates
/// evaluates to TRUE", "An OR predicate with no subpredicates evaluates to
/// FALSE"
/// (https://developer.apple.com/documentation/foundation/nscompoundpredicate,
/// https://developer.apple.com/documentation/foundation/nscompoundpredicate/init(andpredicatewithsubpredicates:),
/// https://developer.apple.com/documentation/foundation/nscompoundpredicate/init(orpredicatewithsubpredicates:)).
@Suite("Compound predicates")
struct CompoundPredicateTests {
    static let electric = #Predicate<Automobile> { $0.isElectric }
    static let recent = #Predicate<Automobile> { $0.year >= 2021 }
    static let volvo = #Predicate<Automobile> { $0.make == "Volvo" }

    private func makes(_ predicate: Predicate<Automobile>, _ context: ManagedObjectContext) throws -> [String] {
        try context.fetch(FetchRequest<Automobile>(predicate: predicate, sortBy: [SortDescriptor(\.price)])).map(\.make)
    }

    @Test(arguments: StoreKind.allCases) func andOrNot(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            #expect(try makes(CompoundPredicate.and([Self.electric, Self.recent]), context) == ["Volvo", "Tesla", "Tesla"])
            #expect(try makes(CompoundPredicate.or([Self.volvo, Self.recent]), context) == ["fiat", "Volvo", "Volvo", "Tesla", "Tesla"])
            #expect(try makes(CompoundPredicate.not(Self.electric), context) == ["Fiat", "fiat", "Volvo"])
            // Nested, and with a subpredicate on a to-one relationship.
            let north = #Predicate<Automobile> { $0.dealer?.name == "North" }
            let nested = CompoundPredicate.and([north, CompoundPredicate.not(CompoundPredicate.or([Self.volvo, Self.electric]))])
            #expect(try makes(nested, context) == ["fiat"])
            #expect(try context.count(for: FetchRequest(predicate: nested)) == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func emptyAndMatchesEverythingEmptyOrNothing(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            #expect(try context.count(for: FetchRequest(predicate: CompoundPredicate.and([Predicate<Automobile>]()))) == 7)
            #expect(try context.count(for: FetchRequest(predicate: CompoundPredicate.or([Predicate<Automobile>]()))) == 0)
            #expect(try context.count(for: FetchRequest(predicate: CompoundPredicate.not(CompoundPredicate.or([Predicate<Automobile>]())))) == 7)
        }
    }

    /// Unsaved changes are matched by evaluating the compound predicate in
    /// memory, saved rows by the store: both agree.
    @Test(arguments: StoreKind.allCases) func pendingChangesAreMatchedInMemory(store: StoreKind) throws {
        let context = try RunTimeQueryStack.seeded(store)
        try context.performAndWait { () throws in
            let fiat = try #require(try context.fetch(FetchRequest<Automobile>(predicate: #Predicate { $0.make == "Fiat" })).first)
            fiat.isElectric = true
            fiat.year = 2022
            let new = Automobile(context: context)
            new.make = "Kia"
            new.year = 2024
            new.isElectric = true
            new.price = 1
            #expect(try makes(CompoundPredicate.and([Self.electric, Self.recent]), context) == ["Kia", "Fiat", "Volvo", "Tesla", "Tesla"])
        }
    }

    /// The SQLite store translates a compound predicate by translating its
    /// parts: a part it cannot translate is reported, as for `#Predicate`,
    /// and `evaluatesPredicateInMemory` evaluates it instead.
    @Test func sqliteTranslatesEachPart() throws {
        let context = try RunTimeQueryStack.seeded(.sqlite)
        try context.performAndWait { () throws in
            let untranslatable = #Predicate<Automobile> { $0.make.count == 4 }
            let request = FetchRequest<Automobile>(predicate: CompoundPredicate.or([Self.volvo, untranslatable]))
            #expect(throws: FetchError.self) { try context.fetch(request) }
            request.evaluatesPredicateInMemory = true
            #expect(try context.fetch(request).map(\.make).sorted() == ["Fiat", "Volvo", "Volvo", "fiat"])
            #expect(try context.count(for: request) == 4)
        }
    }

    @Test func evaluatesOutsideFetches() throws {
        let context = try RunTimeQueryStack.seeded(.inMemory)
        try context.performAndWait { () throws in
            let cars = try context.fetch(FetchRequest<Automobile>())
            let predicate = CompoundPredicate.and([Self.volvo, CompoundPredicate.not(Self.electric)])
            #expect(try cars.filter { try predicate.evaluate($0) }.map(\.model) == ["XC40"])
        }
    }
}
