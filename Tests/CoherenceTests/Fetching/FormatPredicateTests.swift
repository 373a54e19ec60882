import Coherence
import Foundation
import Testing

// Predicates from Core Data's format syntax. Every query runs in SQL, in
// memory on the same rows, on unsaved objects and on the in-memory store
// (`Garage.names`), which must agree.
//
// Syntax: Apple's "Predicate Format String Syntax",
// https://developer.apple.com/library/mac/documentation/Cocoa/Conceptual/Predicates/Articles/pSyntax.html
// and "BNF Definition of Cocoa Predicates",
// https://developer.apple.com/library/ios/documentation/Cocoa/Conceptual/Predicates/Articles/pBNF.html

@Suite("Predicates from format strings")
@MainActor
struct FormatPredicateTests {
    /// Comparison operators, including the alternative spellings `=`, `<>`,
    /// `=<`, `=>` (pSyntax.html, "Basic Comparisons"), and numbers compared
    /// by value across integers and doubles.
    @Test func comparisons() throws {
        let garage = try Garage()
        #expect(try garage.names("doors == 2") == ["Porsche 911", "VW Käfer"])
        #expect(try garage.names("doors = 2") == ["Porsche 911", "VW Käfer"])
        #expect(try garage.names("doors != 4") == ["Porsche 911", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("doors <> 4") == ["Porsche 911", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("price < 25000") == ["VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("price <= 25000") == ["Citroen C4", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("price =< 25000") == ["Citroen C4", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("price > 90000") == ["Porsche 911"])
        #expect(try garage.names("price >= 90000") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("price => 90000") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("doors == 2.0") == ["Porsche 911", "VW Käfer"])
        #expect(try garage.names("price == 90000") == ["porsche Taycan"])
        #expect(try garage.names("-1 < price AND price < 2") == ["Ünïcode ?* car"])
        #expect(try garage.names("name < 'P'") == ["Citroen C4", "Citroën DS"])
        #expect(try garage.names("name >= \"p\"") == ["porsche Taycan", "Ünïcode ?* car"], "strings compare by their bytes, as SQLite does")
    }

    /// `AND`/`OR`/`NOT` and `&&`/`||`/`!`, parentheses, keywords in any
    /// case (pSyntax.html, "Basic Compound Predicates" and "Parser Basics").
    @Test func logic() throws {
        let garage = try Garage()
        #expect(try garage.names("doors == 2 AND price > 10000") == ["Porsche 911"])
        #expect(try garage.names("doors == 2 && price > 10000") == ["Porsche 911"])
        #expect(try garage.names("doors == 3 OR electric == YES") == ["Tesla Model 3", "porsche Taycan", "Ünïcode ?* car"])
        #expect(try garage.names("doors == 3 || electric == YES") == ["Tesla Model 3", "porsche Taycan", "Ünïcode ?* car"])
        #expect(try garage.names("NOT doors == 4") == ["Porsche 911", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("!(doors == 4)") == ["Porsche 911", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("(doors == 2 or doors == 3) and not (price > 100000)") == ["VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("doors == 2 Or doors == 3 aNd price > 100000") == ["Porsche 911", "VW Käfer"], "AND binds tighter than OR")
        #expect(try garage.names("TRUEPREDICATE").count == 7)
        #expect(try garage.names("FALSEPREDICATE").isEmpty)
    }

    /// `nil`/`NULL` and the Boolean literals (pSyntax.html, "Literals").
    /// Ordering comparisons with nil are false; their negation is true, in
    /// SQL as in memory.
    @Test func nilAndBooleans() throws {
        let garage = try Garage()
        #expect(try garage.names("nickname == nil") == ["Citroen C4", "porsche Taycan"])
        #expect(try garage.names("nickname = NULL") == ["Citroen C4", "porsche Taycan"])
        #expect(try garage.names("nickname != nil").count == 5)
        #expect(try garage.names("electric == YES") == ["Tesla Model 3", "porsche Taycan"])
        #expect(try garage.names("electric == true") == ["Tesla Model 3", "porsche Taycan"])
        #expect(try garage.names("electric = NO").count == 5)
        #expect(try garage.names("electric == FALSE").count == 5)
        #expect(try garage.names("nickname < 'F'") == ["Porsche 911", "Tesla Model 3", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("NOT (nickname < 'F')") == ["Citroen C4", "Citroën DS", "porsche Taycan"])
        #expect(try garage.names("dealership == nil") == ["Citroen C4", "Ünïcode ?* car"])
        #expect(try garage.names("dealership != nil").count == 5)
        #expect(try garage.names("nickname == 7").isEmpty, "a number never equals a string")
        #expect(try garage.names("nickname > 7").count == 5, "every string orders after every number, as in SQLite")
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES with `[c]`, `[d]`
    /// and `[cd]` (pSyntax.html, "String Comparisons": "MATCHES: The left
    /// hand expression equals the right hand expression using a regex-style
    /// comparison according to ICU v3"; LIKE: "? and * are allowed as
    /// wildcard characters").
    @Test func stringOperators() throws {
        let garage = try Garage()
        #expect(try garage.names("name BEGINSWITH 'Porsche'") == ["Porsche 911"])
        #expect(try garage.names("name BEGINSWITH[c] 'porsche'") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("name ENDSWITH 'DS'") == ["Citroën DS"])
        #expect(try garage.names("name endswith[c] 'ds'") == ["Citroën DS"])
        #expect(try garage.names("name CONTAINS 'Citroen'") == ["Citroen C4"])
        #expect(try garage.names("name CONTAINS[d] 'Citroen'") == ["Citroen C4", "Citroën DS"])
        #expect(try garage.names("name CONTAINS[cd] 'CITROEN'") == ["Citroen C4", "Citroën DS"])
        #expect(try garage.names("name CONTAINS[c] 'CITROEN'") == ["Citroen C4"])
        #expect(try garage.names("name BEGINSWITH[cd] 'unicode'") == ["Ünïcode ?* car"])
        #expect(try garage.names("name LIKE '*Model ?'") == ["Tesla Model 3"])
        #expect(try garage.names("name LIKE[c] 'p*'") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("name LIKE 'p*'") == ["porsche Taycan"])
        #expect(try garage.names("name LIKE 'VW K?fer'") == ["VW Käfer"])
        #expect(try garage.names("name MATCHES 'Porsche [0-9]+'") == ["Porsche 911"])
        #expect(try garage.names("name MATCHES 'Porsche'").isEmpty, "MATCHES matches the whole string")
        #expect(try garage.names("name MATCHES[c] 'porsche.*'") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("name MATCHES[cd] 'citroen .*'") == ["Citroen C4", "Citroën DS"])
        // [c] makes the expression ignore case; it does not lowercase the
        // pattern, whose `\D` (not a digit) would become `\d`.
        #expect(try garage.names(Predicate<FormatCar>(format: "name MATCHES[c] %@", "PORSCHE\\s\\D+")) == ["porsche Taycan"])
        #expect(try garage.names("nickname CONTAINS 'e'") == ["Citroën DS", "Porsche 911", "VW Käfer"])
        #expect(try garage.names("NOT nickname CONTAINS 'e'").count == 4, "nil matches no string operator")
        #expect(try garage.names("price CONTAINS '1'").isEmpty, "numbers are not strings")
    }

    /// `IN` with a literal aggregate or an array argument, and `BETWEEN`
    /// (pSyntax.html, "Basic Comparisons": BETWEEN {lower, upper}, IN).
    @Test func inAndBetween() throws {
        let garage = try Garage()
        #expect(try garage.names("doors IN {2, 3}") == ["Porsche 911", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("name IN %@", ["VW Käfer", "Tesla Model 3", "Trabant"]) == ["Tesla Model 3", "VW Käfer"])
        #expect(try garage.names("doors IN {}").isEmpty)
        #expect(try garage.names("NOT doors IN {4}").count == 3)
        #expect(try garage.names("price BETWEEN {20000, 45000}") == ["Citroen C4", "Citroën DS", "Tesla Model 3"])
        #expect(try garage.names("price BETWEEN %@", [1, 5_000]) == ["VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("nickname IN {nil, 'Elfer'}") == ["Citroen C4", "Porsche 911", "porsche Taycan"])
    }

    /// Key paths through a to-one relationship; ANY/SOME, ALL, NONE on a
    /// to-many relationship; @count (pSyntax.html, "Aggregate Operations"
    /// and "Relationships and Key Paths").
    @Test func keyPathsAndToManyRelationships() throws {
        let garage = try Garage()
        #expect(try garage.names("dealership.name == 'Zuffenhausen'") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("dealership.city == nil") == ["Citroen C4", "Citroën DS", "Tesla Model 3", "Ünïcode ?* car"])
        #expect(try garage.names("dealership.name BEGINSWITH[c] 'w'") == ["VW Käfer"])
        #expect(try garage.names("ANY accessories.label == 'spoiler'") == ["Citroen C4", "Porsche 911"])
        #expect(try garage.names("SOME accessories.label == 'spoiler'") == ["Citroen C4", "Porsche 911"])
        #expect(try garage.names("accessories.label == 'charger'") == ["Tesla Model 3", "porsche Taycan"], "a to-many key path means ANY")
        #expect(try garage.names("ALL accessories.price > 100") == [
            "Citroën DS", "Tesla Model 3", "VW Käfer", "porsche Taycan", "Ünïcode ?* car",
        ], "ALL holds for no accessories")
        #expect(try garage.names("NONE accessories.label CONTAINS 'mat'") == [
            "Citroën DS", "Tesla Model 3", "VW Käfer", "porsche Taycan", "Ünïcode ?* car",
        ])
        #expect(try garage.names("ANY accessories.price BETWEEN {250, 450}") == ["Citroen C4"])
        #expect(try garage.names("ANY accessories.label IN {'mats', 'charger'}").count == 4)
        #expect(try garage.names("accessories.@count > 1") == ["Citroen C4", "Porsche 911"])
        #expect(try garage.names("accessories.@count == 0") == ["Citroën DS", "VW Käfer", "Ünïcode ?* car"])
        #expect(try garage.names("dealership.automobiles.@count == 2") == [
            "Citroën DS", "Porsche 911", "Tesla Model 3", "porsche Taycan",
        ])
    }

    /// `%@`, `%K`, `%d`/`%i`/`%ld`, `%f`/`%lf` (pSyntax.html, "Format
    /// String Summary": "%@ is a var arg substitution for an object value",
    /// "%K is a var arg substitution for a key path").
    @Test func substitutions() throws {
        let garage = try Garage()
        #expect(try garage.names("%K BEGINSWITH[c] %@", "name", "por") == ["Porsche 911", "porsche Taycan"])
        #expect(try garage.names("doors == %d", 3) == ["Ünïcode ?* car"])
        #expect(try garage.names("doors == %i", 3) == ["Ünïcode ?* car"])
        #expect(try garage.names("doors == %ld", 3) == ["Ünïcode ?* car"])
        #expect(try garage.names("%K > %f", "price", 90_000.0) == ["Porsche 911"])
        #expect(try garage.names("price > %lf", 90_000.0) == ["Porsche 911"])
        #expect(try garage.names("builtAt < %@", Garage.date(1980)) == ["Citroën DS", "VW Käfer"])
        #expect(try garage.names("nickname == %@", nil) == ["Citroen C4", "porsche Taycan"])
        let missing: String? = nil
        #expect(try garage.names("nickname == %@", missing) == ["Citroen C4", "porsche Taycan"])
        #expect(try garage.names("%K == %@", "dealership.name", "Wolfsburg") == ["VW Käfer"])
        #expect(try garage.names("electric == %@", true) == ["Tesla Model 3", "porsche Taycan"])
        #expect(try garage.names("name == '%@'").isEmpty, "a quoted %@ is a literal string")
    }

    /// Values only ever reach SQL as bound parameters: a hostile string
    /// selects what it equals and leaves the table alone.
    @Test func valuesAreBoundNeverSpliced() throws {
        let garage = try Garage()
        #expect(try garage.names("nickname == %@", Garage.hostile) == ["Tesla Model 3"])
        #expect(try garage.names("nickname == \"'; DROP TABLE FormatCar; --\"") == ["Tesla Model 3"])
        #expect(try garage.names("nickname LIKE %@", "*DROP TABLE*") == ["Tesla Model 3"])
        #expect(try garage.names("name == 'Ünïcode ?* car'") == ["Ünïcode ?* car"])
        let injectedKey = FetchRequest(predicate: Predicate<FormatCar>(format: "%K == 1", "name\" = 1; DROP TABLE FormatCar; --"))
        #expect(throws: PredicateFormatError.unknownKey(entity: "FormatCar", key: "name\" = 1; DROP TABLE FormatCar; --")) {
            try garage.saved.fetch(injectedKey)
        }
        #expect(try garage.saved.count(for: FetchRequest<FormatCar>()) == 7)
    }

    /// Quoted strings: single or double quotes, backslash escapes
    /// (pSyntax.html, "String Constants, Variables, and Wildcards").
    @Test func quotedStrings() throws {
        let garage = try Garage()
        #expect(try garage.names(#"name == 'Porsche 911'"#) == ["Porsche 911"])
        #expect(try garage.names(#"nickname == "Elfer""#) == ["Porsche 911"])
        #expect(try garage.names(#"nickname == 'Elf\er'"#) == ["Porsche 911"])
        #expect(try garage.names(#"nickname CONTAINS "\"" OR nickname CONTAINS '\''"#) == ["Tesla Model 3"])
        #expect(try garage.names("nickname == ''") == ["Ünïcode ?* car"])
    }

    /// A format predicate is a Foundation `Predicate`: it filters objects in
    /// memory with `evaluate(_:)`, unsaved changes included.
    @Test func evaluatesUnsavedChanges() throws {
        let garage = try Garage()
        let context = garage.saved
        let beetle = try #require(try context.fetch(FetchRequest(predicate: Predicate<FormatCar>(format: "nickname == 'Beetle'"))).first)
        beetle.doors = 5
        let fiveDoors = Predicate<FormatCar>(format: "doors == 5")
        #expect(try fiveDoors.evaluate(beetle))
        #expect(try context.fetch(FetchRequest(predicate: fiveDoors)).map(\.name) == ["VW Käfer"], "includesPendingChanges")
        let committed = FetchRequest(predicate: fiveDoors)
        committed.includesPendingChanges = false
        #expect(try context.fetch(committed).isEmpty)
        try context.save()
        #expect(try context.fetch(committed).map(\.name) == ["VW Käfer"])
    }

    /// A to-one relationship compared with an object or its ID, as ported
    /// code does (`"dealership == %@", dealer`): in SQL, in memory, on unsaved
    /// objects and on the in-memory store.
    @Test func relationshipsComparedWithObjects() throws {
        let garage = try Garage()
        for context in [garage.saved, garage.pending, garage.inMemory] {
            let dealers = try context.fetch(FetchRequest<Dealership>(sortBy: [SortDescriptor(\.name)]))
            let wolfsburg = dealers[1]
            #expect(wolfsburg.name == "Wolfsburg")
            func names(_ format: String, _ arguments: Any?...) throws -> [String] {
                let predicate = Predicate<FormatCar>(format: format, argumentArray: arguments)
                let fetched = try context.fetch(FetchRequest(predicate: predicate)).map(\.name).sorted()
                let inMemory = FetchRequest(predicate: predicate)
                inMemory.evaluatesPredicateInMemory = true
                #expect(try context.fetch(inMemory).map(\.name).sorted() == fetched)
                return fetched
            }
            #expect(try names("dealership == %@", wolfsburg) == ["VW Käfer"])
            #expect(try names("dealership == %@", wolfsburg.objectID) == ["VW Käfer"])
            #expect(try names("dealership != %@", wolfsburg).count == 6)
            #expect(try names("dealership IN %@", [wolfsburg, dealers[0]]) == ["Citroën DS", "Tesla Model 3", "VW Käfer"])
            #expect(try names("dealership IN {nil, %@}", wolfsburg) == ["Citroen C4", "VW Käfer", "Ünïcode ?* car"])
            let spoilers = try context.fetch(FetchRequest(predicate: Predicate<Accessory>(format: "label == 'spoiler'")))
            let mats = try #require(try context.fetch(FetchRequest(predicate: Predicate<Accessory>(format: "label == 'mats'"))).first)
            #expect(try names("accessories CONTAINS %@", spoilers[0]) == [try #require(spoilers[0].automobile).name])
            #expect(try names("%@ IN accessories", mats.objectID) == [try #require(mats.automobile).name])
            #expect(try names("ANY accessories IN %@", spoilers) == ["Citroen C4", "Porsche 911"])
            #expect(try names("NONE accessories == %@", mats).count == 6)
            #expect(try names("ALL accessories != %@", mats).count == 6)
            let misuse = FetchRequest(predicate: Predicate<FormatCar>(format: "name == %@", wolfsburg))
            #expect(performing: { try context.fetch(misuse) }, throws: { error in
                if case .unsupportedKeyPath(_, "name", _)? = error as? PredicateFormatError { true } else { false }
            })
        }
    }

    /// Batch requests take format predicates too, run in the store.
    @Test func batchRequests() throws {
        let garage = try Garage()
        for context in [garage.saved, garage.inMemory] {
            let updated = (try context.execute(BatchUpdateRequest(
                predicate: Predicate<FormatCar>(format: "name BEGINSWITH[c] %@", "porsche"), propertiesToUpdate: ["doors": 5])) as! BatchUpdateResult)
            #expect(updated.count == 2)
            let deleted = (try context.execute(BatchDeleteRequest(predicate: Predicate<FormatCar>(format: "price < %d", 10_000))) as! BatchDeleteResult)
            #expect(deleted.count == 2)
            context.reset()
            #expect(try context.fetch(FetchRequest(predicate: Predicate<FormatCar>(format: "doors == 5"))).count == 2)
            #expect(try context.count(for: FetchRequest<FormatCar>()) == 5)
        }
    }

    /// The README's example, on the README's model (Core Data's
    /// `NSPredicate(format:_:)` spelled as `Predicate(format:_:)`,
    /// https://developer.apple.com/documentation/foundation/nspredicate/init(format:argumentarray:)).
    @Test func readmeExample() throws {
        let context = try TestStack.context(.sqlite)
        try context.performAndWait {
            let server = Server(context: context)
            server.name = "swift.org"
            for title in ["Swift 6.3 released", "Rust 2", "swift-format 600"] {
                let item = FeedItem(context: context)
                item.title = title
                item.server = server
            }
            try context.save()

            let request = FetchRequest<FeedItem>(sortBy: [SortDescriptor(\.title)])
            request.predicate = Predicate<FeedItem>(format: "title BEGINSWITH[c] %@ AND server.name == %@", "swift", "swift.org")
            let items = try context.fetch(request)
            #expect(items.map(\.title) == ["Swift 6.3 released", "swift-format 600"])
        }
    }

    /// A fetched results controller with a format predicate follows changes.
    @Test func fetchedResultsController() throws {
        let garage = try Garage()
        let context = garage.saved
        let request = FetchRequest(predicate: Predicate<FormatCar>(format: "electric == YES"), sortBy: [SortDescriptor(\.name)])
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        try controller.performFetch()
        #expect(controller.fetchedObjects?.map(\.name) == ["Tesla Model 3", "porsche Taycan"])
        let car = FormatCar(context: context)
        car.name = "Zoe"
        car.electric = true
        context.processPendingChanges()
        #expect(controller.fetchedObjects?.map(\.name) == ["Tesla Model 3", "Zoe", "porsche Taycan"])
    }
}
