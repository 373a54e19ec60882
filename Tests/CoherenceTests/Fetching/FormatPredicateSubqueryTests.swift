import Coherence
import Foundation
import Testing

// `SELF` and `SUBQUERY` in format predicates, as ported Core Data code
// writes them. Apple's "Predicate Format String Syntax" lists `SELF` ("the
// object being evaluated") among the reserved words and `SUBQUERY` among the
// expressions:
// https://developer.apple.com/library/mac/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html
// NSExpression's subquery "filters a collection by storing elements in the
// collection in a specified variable and keeping the elements that the
// qualifier returns as true":
// https://developer.apple.com/documentation/foundation/nsexpression/init(forsubquery:usingiteratorvariable:predicate:)

@Suite("Format predicates: SELF and SUBQUERY")
@MainActor
struct FormatPredicateSubqueryTests {
    /// `SELF == %@`, `SELF IN %@` with objects or their IDs, and `SELF.key`:
    /// in SQL, in memory, on unsaved objects and on the in-memory store.
    @Test func selfComparedWithObjects() throws {
        let garage = try Garage()
        #expect(try garage.names("SELF.name BEGINSWITH 'VW'") == ["VW Käfer"])
        #expect(try garage.names("SELF == nil").isEmpty)
        #expect(try garage.names("SELF != nil").count == 7)
        for context in [garage.saved, garage.pending, garage.inMemory] {
            let cars = try context.fetch(FetchRequest<FormatCar>(sortBy: [SortDescriptor(\.name)]))
            func names(_ format: String, _ arguments: Any?...) throws -> [String] {
                let predicate = Predicate<FormatCar>(format: format, argumentArray: arguments)
                let fetched = try context.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted()
                let inMemory = FetchRequest(predicate: predicate)
                inMemory.evaluatesPredicateInMemory = true
                #expect(try context.fetch(inMemory).map(\.name).sorted() == fetched)
                #expect(try cars.filter { try predicate.evaluate($0) }.map(\.name).sorted() == fetched)
                return fetched
            }
            #expect(try names("SELF == %@", cars[2]) == [cars[2].name])
            #expect(try names("SELF == %@", cars[2].objectID) == [cars[2].name])
            #expect(try names("SELF != %@", cars[2]).count == 6)
            #expect(try names("SELF IN %@", [cars[0], cars[4]]) == [cars[0].name, cars[4].name])
            #expect(try names("NOT (SELF IN %@)", cars.dropFirst(2).map(\.objectID)) == [cars[0].name, cars[1].name])
            let dealer = try #require(try context.fetch(FetchRequest<Dealership>()).first)
            #expect(try names("SELF == %@", dealer).isEmpty, "an object of another entity is no car")
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count`: `$x.key` and bare keys
    /// read on each destination, `$x` the destination itself, a collection
    /// reached through a to-one relationship.
    @Test func subqueryCounts() throws {
        let garage = try Garage()
        #expect(try garage.names("SUBQUERY(accessories, $a, $a.price > 350).@count > 0") == [
            "Citroen C4", "Porsche 911", "Tesla Model 3", "porsche Taycan",
        ])
        #expect(try garage.names("SUBQUERY(accessories, $a, $a.label == 'spoiler' OR $a.label == 'mats').@count == 2") == [
            "Citroen C4", "Porsche 911",
        ])
        #expect(try garage.names("SUBQUERY(accessories, $a, label BEGINSWITH 'ch').@count >= 1") == ["Tesla Model 3", "porsche Taycan"],
                "a bare key is read on the destination")
        #expect(try garage.names("subquery(accessories, $a, $a.automobile.doors == 2).@count > 0") == ["Porsche 911"])
        #expect(try garage.names("SUBQUERY(accessories, $a, $a.price < 1000).@count == accessories.@count") == [
            "Citroen C4", "Citroën DS", "Porsche 911", "VW Käfer", "porsche Taycan", "Ünïcode ?* car",
        ].sorted())
        #expect(try garage.names("SUBQUERY(dealership.automobiles, $c, $c.electric == YES).@count > 0") == [
            "Citroën DS", "Porsche 911", "Tesla Model 3", "porsche Taycan",
        ], "a collection reached through a to-one relationship; none without a dealership")
        #expect(try garage.names("SUBQUERY(%K, $a, $a.price > %d).@count == 0", "accessories", 450) == [
            "Citroen C4", "Citroën DS", "VW Käfer", "Ünïcode ?* car",
        ])
        for context in [garage.saved, garage.pending, garage.inMemory] {
            let mats = try context.fetch(FetchRequest(predicate: Predicate<Accessory>(format: "label == 'mats'")))
            let predicate = Predicate<FormatCar>(format: "SUBQUERY(accessories, $a, $a IN %@).@count > 0", mats)
            #expect(try context.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted() == ["Citroen C4", "Porsche 911"])
        }
    }

    /// Malformed subqueries: a syntax error at the position, as Core Data
    /// raises for a bad format; a collection that is not a to-many
    /// relationship throws when the fetch runs, naming the entity and key.
    @Test func malformedSubqueries() throws {
        func syntaxError(_ format: String) -> Bool {
            do {
                _ = try Predicate<FormatCar>(validatingFormat: format)
                return false
            } catch {
                if case .syntax = error { return true }
                return false
            }
        }
        #expect(syntaxError("SUBQUERY(accessories, $a, $b.price > 1).@count > 0"), "an unknown variable")
        #expect(syntaxError("SUBQUERY(accessories, $a, $a.price > 1) > 0"), "no @count")
        #expect(syntaxError("SUBQUERY(accessories, a, a.price > 1).@count > 0"), "the variable needs a $")
        #expect(syntaxError("$a.price > 1"), "a variable outside SUBQUERY")
        #expect(syntaxError("SUBQUERY(accessories, $a, SUBQUERY(accessories, $b, $b.price > 1).@count > 0).@count > 0"))
        let garage = try Garage()
        for context in [garage.saved, garage.inMemory] {
            for format in ["SUBQUERY(name, $a, $a == 'x').@count > 0", "SUBQUERY(dealership, $d, $d.name == 'x').@count > 0"] {
                #expect(performing: { try context.fetch(FetchRequest(predicate: Predicate<FormatCar>(format: format))) }, throws: { error in
                    if case .unsupportedKeyPath("FormatCar", _, _)? = error as? PredicateFormatError { true } else { false }
                })
            }
            #expect(performing: {
                try context.fetch(FetchRequest(predicate: Predicate<FormatCar>(format: "SUBQUERY(accessories, $a, $a.colour == 'red').@count > 0")))
            }, throws: { error in
                if case .unknownKey("Accessory", "colour")? = error as? PredicateFormatError { true } else { false }
            })
        }
    }
}
