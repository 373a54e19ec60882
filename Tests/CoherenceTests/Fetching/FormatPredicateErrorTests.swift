import Coherence
import Foundation
import Testing

// What a wrong format string, argument or key throws. Core Data raises an
// exception for these ("Unable to parse the format string", "keypath … not
// found in entity"); Coherence throws a typed error instead, with the
// character offset for syntax errors.
// https://developer.apple.com/library/mac/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html

@Suite("Predicate format errors")
@MainActor
struct FormatPredicateErrorTests {
    private func error(_ format: String, _ arguments: Any?...) -> PredicateFormatError? {
        do {
            _ = try Predicate<FormatCar>(validatingFormat: format, argumentArray: arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func syntaxErrorsGiveThePositionAndWhatWasExpected() {
        #expect(error("doors ==") == .syntax(position: 8, expected: "a key or a value", found: "the end of the format string"))
        #expect(error("doors = = 2") == .syntax(position: 8, expected: "a key or a value", found: "'='"))
        #expect(error("name == 'abc") == .syntax(position: 8, expected: "a closing '", found: "the end of the format string"))
        #expect(error("name BEGINSWITH 5") == .syntax(position: 16, expected: "a quoted string or %@", found: "the number 5"))
        #expect(error("name ~ 'x'") == .syntax(position: 5, expected: "a key, a value or an operator", found: "'~'"))
        #expect(error("(doors == 2") == .syntax(position: 11, expected: "')'", found: "the end of the format string"))
        #expect(error("doors == 2 doors") == .syntax(position: 11, expected: "AND, OR or the end of the predicate", found: "'doors'"))
        #expect(error("name BEGINSWITH[x] 'a'") == .syntax(position: 16, expected: "the options c, d or cd", found: "'x'"))
        #expect(error("price BETWEEN {1}") == .syntax(position: 14, expected: "two bounds {low, high}", found: "1 values"))
        #expect(error("doors == 99999999999999999999999e999") == .syntax(position: 9, expected: "a number in range", found: "'99999999999999999999999e999'"))
        #expect(error("") == .syntax(position: 0, expected: "a key or a value", found: "the end of the format string"))
        #expect(error("accessories.@sum > 1") == .syntax(position: 12, expected: "@count", found: "'@sum'"))
    }

    @Test func substitutionErrors() {
        #expect(error("name == %@") == .missingArgument(position: 8))
        #expect(error("name == %@", "a", "b") == .unusedArguments(expected: 1, given: 2))
        #expect(error("doors == %d", "two") == .argumentType(position: 9, expected: "an integer", found: "String"))
        #expect(error("price == %f", 2) == .argumentType(position: 9, expected: "a floating-point number", found: "Int"))
        #expect(error("%K == 1", 5) == .argumentType(position: 0, expected: "a key path String", found: "Int"))
        #expect(error("doors IN %@", 5) == .argumentType(position: 9, expected: "an array", found: "Int"))
        #expect(error("name CONTAINS %@", 5) == .argumentType(position: 14, expected: "a String", found: "Int"))
        #expect(error("name == %@", NSObject()) == .argumentType(
            position: 8, expected: "a number, Bool, String, Date, UUID, URL, Data, Decimal, managed object, object ID or nil",
            found: "NSObject"))
        #expect(error("name MATCHES '('") == .invalidRegularExpression(position: 13, pattern: "("))
        #expect(error("name == %x") == .syntax(position: 8, expected: "a substitution (%@, %K, %d, %i, %ld, %f, %lf)", found: "'%'"))
    }

    /// A key the entity does not have throws when the predicate is used,
    /// naming the entity and the key, on every store and in memory.
    @Test func unknownKeysNameTheEntityAndTheKey() throws {
        let garage = try Garage()
        for context in [garage.saved, garage.pending, garage.inMemory] {
            let colour = FetchRequest(predicate: Predicate<FormatCar>(format: "colour == 'red'"))
            #expect(throws: PredicateFormatError.unknownKey(entity: "FormatCar", key: "colour")) { try context.fetch(colour) }
            #expect(throws: PredicateFormatError.unknownKey(entity: "FormatCar", key: "colour")) { try context.count(for: colour) }
            let nested = FetchRequest(predicate: Predicate<FormatCar>(format: "%K == 'x'", "dealership.nmae"))
            #expect(throws: PredicateFormatError.unknownKey(entity: "Dealership", key: "nmae")) { try context.fetch(nested) }
            let toMany = FetchRequest(predicate: Predicate<FormatCar>(format: "ANY accessories.colour == 'red'"))
            #expect(throws: PredicateFormatError.unknownKey(entity: "Accessory", key: "colour")) { try context.fetch(toMany) }
        }
    }

    /// Unknown keys throw even when no object is there to evaluate.
    @Test func unknownKeysThrowWithoutObjects() throws {
        for description in [PersistentStoreDescription.inMemory, .sqlite(TestFiles.newURL("Empty.sqlite"))] {
            let container = PersistentContainer(
                name: "Empty", managedObjectModel: try ManagedObjectModel(entities: [FormatCar.self, Dealership.self, Accessory.self]))
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let request = FetchRequest(predicate: Predicate<FormatCar>(format: "ANY accessories.colour == 'red'"))
            #expect(throws: PredicateFormatError.unknownKey(entity: "Accessory", key: "colour")) {
                try container.viewContext.fetch(request)
            }
        }
    }

    /// Key paths that do not make sense for their property: a to-many
    /// relationship compared as a value, `@count` of an attribute, a to-one
    /// relationship compared with anything but nil, a path through an attribute.
    @Test func misusedKeyPaths() throws {
        let garage = try Garage()
        for format in ["accessories == 2", "accessories BEGINSWITH 'a'", "ANY accessories BETWEEN {1, 2}", "name.@count > 1", "dealership == 'x'", "name.length == 1", "dealership BEGINSWITH 'a'",
                       "dealership.@count == 1", "name == accessories.label"] {
            for context in [garage.saved, garage.pending, garage.inMemory] {
                let request = FetchRequest(predicate: Predicate<FormatCar>(format: format))
                do {
                    _ = try context.fetch(request)
                    Issue.record("\(format) fetched")
                } catch let error as PredicateFormatError {
                    guard case .unsupportedKeyPath(let entity, _, _) = error else {
                        Issue.record("\(format): \(error)")
                        continue
                    }
                    #expect(entity == "FormatCar" || entity == "Dealership", "\(format)")
                }
            }
        }
    }

    /// Hostile sizes are bounded: deep nesting throws instead of exhausting
    /// the stack, and long chains and lists stay within SQLite's limits.
    @Test func sizeLimits() throws {
        let deep = String(repeating: "(", count: 100_000) + "doors == 2" + String(repeating: ")", count: 100_000)
        #expect(error(deep) == .syntax(position: 100, expected: "at most 100 nested parentheses and NOTs", found: "more"))
        #expect(error(String(repeating: "NOT ", count: 50_000) + "doors == 2")
            == .syntax(position: 400, expected: "at most 100 nested parentheses and NOTs", found: "more"))
        let tooMany = (0..<10_001).map { "doors == \($0)" }.joined(separator: " OR ")
        #expect(error(tooMany).map { if case .syntax(_, "at most 10000 terms", "more") = $0 { true } else { false } } == true)

        let garage = try Garage()
        let chain = (0..<3_000).map { "doors == \($0 + 3)" }.joined(separator: " OR ")
        #expect(try garage.names(chain).count == 5)
        let ids = (0..<5_000).map { "Model \($0)" } + ["VW Käfer"]
        #expect(try garage.names("name IN %@", ids) == ["VW Käfer"])
        #expect(try garage.names("NOT name IN %@", ids).count == 6)
        #expect(try garage.names("doors IN {'2', 2.0, nil}") == ["Porsche 911", "VW Käfer"], "a string never equals a number")
    }

    @Test func errorsDescribeThemselves() {
        #expect("\(PredicateFormatError.unknownKey(entity: "FormatCar", key: "colour"))" == "predicate format: FormatCar has no property named colour")
        #expect("\(PredicateFormatError.syntax(position: 3, expected: "a value", found: "'='"))"
            == "predicate format: at position 3, expected a value but found '='")
    }
}

@Suite("Predicate format misuse")
struct FormatPredicateMisuseTests {
    /// A format predicate reads managed objects by key; over any other input
    /// type it is a programming error, which stops the program with a
    /// message, as the rest of Coherence's misuse does.
    @Test func aPredicateOverSomethingOtherThanAManagedObjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Predicate<String>(format: "length == 1")
        }
        #expect(result.standardError.contains("one ManagedObject subclass"))
    }
}
