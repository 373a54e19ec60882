import Coherence
import Foundation
import Testing

/// `NSPredicate(format:)` and `NSPredicate(value:)` as Core Data code
/// writes them: no `try`, the entity inferred from the request, a
/// malformed format raising.
/// <https://developer.apple.com/documentation/foundation/nspredicate/init(format:_:)>
@Suite("Format predicates, Core Data's call shapes")
struct FormatPredicateShapeTests {
    @Test(arguments: StoreKind.allCases) func predicatesWithoutTry(store: StoreKind) throws {
        let context = try TestStack.context(store)
        try context.performAndWait {
            for name in ["a", "b", "c"] { Server(context: context).name = name }
            try context.save()
            let request = Server.fetchRequest()
            request.predicate = Predicate(format: "name != %@", "b")
            request.sortDescriptors = [SortDescriptor(key: "name", ascending: true)]
            #expect(try context.fetch(request).map(\.name) == ["a", "c"])
            request.predicate = Predicate(value: false)
            #expect(try context.fetch(request).isEmpty)
            request.predicate = Predicate(value: true)
            #expect(try context.count(for: request) == 3)
        }
    }

    @Test func aMalformedFormatThrowsWhenValidated() {
        #expect(throws: PredicateFormatError.self) { try Predicate<Server>(validatingFormat: "name ==") }
    }

    /// Core Data raises `NSInvalidArgumentException` for a malformed format;
    /// Coherence stops the program, naming the format and the position.
    @Test func aMalformedFormatStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Predicate<Server>(format: "name == ")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("name == "))
        #expect(message.contains("position"))
    }
}
