import Coherence
import Foundation
import Testing

/// Each predicate runs twice on the same SQLite store: translated to SQL, and
/// evaluated on objects in memory. Both must return the same objects.
@Suite("Predicates in SQL")
struct PredicateTranslationTests {
    /// Three servers and ten items with varied values, saved.
    private static func seeded() throws -> ManagedObjectContext {
        let context = try TestStack.context(.sqlite)
        try context.performAndWait {
            let servers = ["alpha", "beta", "Gamma"].map { name in
                let server = Server(context: context)
                server.name = name
                server.unreadCount = name.count
                return server
            }
            for index in 0..<10 {
                let item = FeedItem(context: context)
                item.title = ["Swift 6", "swift on Linux", "Café", "cafe", "'; DROP TABLE FeedItem; --", "Zürich",
                              "notes", "Notes 2", "", "ünïcode"][index]
                item.read = index % 3 == 0
                item.server = index == 9 ? nil : servers[index % 3]
            }
            let samples = [(1, "a", nil as String?), (2, "b", "x"), (3, "c", "y")]
            for (number, code, optional) in samples {
                let sample = Sample(context: context)
                sample.int = number
                sample.code = code
                sample.optionalString = optional
                sample.double = Double(number) / 2
                sample.date = Date(timeIntervalSince1970: Double(number) * 1_000)
                sample.priority = number == 2 ? .high : .low
            }
            try context.save()
        }
        return context
    }

    /// Runs `predicate` in SQL and in memory; returns the SQL result's titles.
    @discardableResult
    private func check(_ context: ManagedObjectContext, _ predicate: Predicate<FeedItem>,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        try context.performAndWait {
            let sorted = [SortDescriptor(\FeedItem.title)]
            let inSQL = try context.fetch(FetchRequest(predicate: predicate, sortBy: sorted))
            let request = FetchRequest(predicate: predicate, sortBy: sorted)
            request.evaluatesPredicateInMemory = true
            let inMemory = try context.fetch(request)
            #expect(inSQL.map(\.objectID) == inMemory.map(\.objectID), sourceLocation: sourceLocation)
            #expect(try context.count(for: FetchRequest(predicate: predicate)) == inMemory.count, sourceLocation: sourceLocation)
            return inSQL.map(\.title)
        }
    }

    @Test func comparisonsAndLogic() throws {
        let context = try Self.seeded()
        #expect(try check(context, #Predicate { $0.read }) == ["Swift 6", "cafe", "notes", "ünïcode"])
        try check(context, #Predicate { !$0.read })
        try check(context, #Predicate { $0.read == false && $0.title != "cafe" })
        try check(context, #Predicate { $0.read || $0.title == "Café" })
        try check(context, #Predicate { !($0.read || $0.title > "n") })
        try check(context, #Predicate { $0.title >= "a" && $0.title < "s" })
        try check(context, #Predicate { $0.title <= "Z" })
    }

    @Test func valuesAreBoundNeverSpliced() throws {
        let context = try Self.seeded()
        let hostile = "'; DROP TABLE FeedItem; --"
        #expect(try check(context, #Predicate { $0.title == hostile }) == [hostile])
        let count = try context.performAndWait { try context.count(for: FetchRequest<FeedItem>()) }
        #expect(count == 10, "the table is still there")
    }

    @Test func stringOperations() throws {
        let context = try Self.seeded()
        #expect(try check(context, #Predicate { $0.title.contains("wift") }) == ["Swift 6", "swift on Linux"])
        #expect(try check(context, #Predicate { $0.title.starts(with: "Not") }) == ["Notes 2"])
        try check(context, #Predicate { $0.title.starts(with: "") })
        #expect(try check(context, #Predicate { $0.title.localizedStandardContains("CAFE") }) == ["Café", "cafe"])
        #expect(try check(context, #Predicate { $0.title.localizedStandardContains("zurich") }) == ["Zürich"])
    }

    /// hasPrefix, hasSuffix and their case-insensitive forms, as `#Predicate`
    /// on Linux allows them (see `String.caseFolded` and `reversedText`).
    @Test func prefixesSuffixesAndCaseInsensitiveForms() throws {
        let context = try Self.seeded()
        let suffix = "Linux".reversedText
        #expect(try check(context, #Predicate { $0.title.reversedText.starts(with: suffix) }) == ["swift on Linux"])
        #expect(try check(context, #Predicate { $0.title.caseFolded.starts(with: "swift") }) == ["Swift 6", "swift on Linux"])
        let foldedSuffix = "NOTES".caseFolded.reversedText
        #expect(try check(context, #Predicate { $0.title.caseFolded.reversedText.starts(with: foldedSuffix) }) == ["notes"])
        #expect(try check(context, #Predicate { $0.title.caseFolded.contains("ote") }) == ["Notes 2", "notes"])
        #expect(try check(context, #Predicate { $0.server?.name.caseFolded == "gamma" }).count == 3)
        try context.performAndWait {
            let found = try context.fetch(FetchRequest<Sample>(predicate: #Predicate { $0.optionalString?.caseFolded == "x" }))
            #expect(found.map(\.code) == ["b"], "optional attributes chain too")
        }
    }

    @Test func nilChecksAndToOneKeyPaths() throws {
        let context = try Self.seeded()
        #expect(try check(context, #Predicate { $0.server == nil }) == ["ünïcode"])
        try check(context, #Predicate { $0.server != nil })
        #expect(try check(context, #Predicate { $0.server?.name == "beta" }).count == 3)
        try check(context, #Predicate { $0.server?.name.starts(with: "G") == true })
        try check(context, #Predicate { ($0.server?.unreadCount ?? 0) > 4 })
    }

    @Test func literalCollectionsAndArithmetic() throws {
        let context = try Self.seeded()
        let titles = ["cafe", "notes", "missing"]
        #expect(try check(context, #Predicate { titles.contains($0.title) }) == ["cafe", "notes"])
        let none: [String] = []
        #expect(try check(context, #Predicate { none.contains($0.title) }).isEmpty)
        try check(context, #Predicate { ($0.server?.unreadCount ?? 0) * 2 - 1 == 9 })
    }

    @Test func toManyRelationships() throws {
        let context = try Self.seeded()
        try context.performAndWait { () throws in
            let byName = [SortDescriptor(\Server.name)]
            func both(_ predicate: Predicate<Server>) throws -> [String] {
                let inSQL = try context.fetch(FetchRequest(predicate: predicate, sortBy: byName))
                let request = FetchRequest(predicate: predicate, sortBy: byName)
                request.evaluatesPredicateInMemory = true
                #expect(inSQL.map(\.objectID) == (try context.fetch(request)).map(\.objectID))
                return inSQL.map(\.name)
            }
            #expect(try both(#Predicate { $0.feedItems.contains { $0.title == "Café" } }) == ["Gamma"])
            #expect(try both(#Predicate { $0.feedItems.count == 3 }) == ["Gamma", "alpha", "beta"])
            #expect(try both(#Predicate { $0.feedItems.count > 3 }).isEmpty)
            #expect(try both(#Predicate { $0.feedItems.isEmpty }).isEmpty)
            #expect(try both(#Predicate { !$0.feedItems.isEmpty }).count == 3)
            #expect(try both(#Predicate { $0.feedItems.filter { $0.read }.count == 3 }) == ["alpha"])
            #expect(try both(#Predicate { $0.feedItems.filter { !$0.read }.isEmpty }) == ["alpha"])
            #expect(try both(#Predicate { $0.feedItems.contains { $0.read && $0.title.contains("6") } }) == ["alpha"])
        }
    }

    @Test func manyToManyRelationships() throws {
        let context = try TestStack.context(.sqlite)
        try context.performAndWait { () throws in
            let swift = Tag(context: context)
            swift.label = "swift"
            let linux = Tag(context: context)
            linux.label = "linux"
            let first = Article(context: context)
            first.title = "first"
            first.tags = [swift, linux]
            let second = Article(context: context)
            second.title = "second"
            second.tags = [linux]
            try context.save()
            let tagged = try context.fetch(FetchRequest<Article>(predicate: #Predicate { $0.tags.contains { $0.label == "swift" } }))
            #expect(tagged == [first])
            let popular = try context.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.articles.count == 2 }))
            #expect(popular == [linux])
        }
    }

    @Test func otherAttributeTypes() throws {
        let context = try Self.seeded()
        try context.performAndWait { () throws in
            func codes(_ predicate: Predicate<Sample>) throws -> [String] {
                try context.fetch(FetchRequest(predicate: predicate, sortBy: [SortDescriptor(\.int)])).map(\.code)
            }
            let cutoff = Date(timeIntervalSince1970: 1_500)
            #expect(try codes(#Predicate { $0.date > cutoff }) == ["b", "c"])
            #expect(try codes(#Predicate { $0.double == 1.5 }) == ["c"])
            #expect(try codes(#Predicate { $0.optionalString == nil }) == ["a"])
            #expect(try codes(#Predicate { $0.optionalString != nil && $0.int < 3 }) == ["b"])
            let high = Priority.high
            #expect(try codes(#Predicate { $0.priority == high }) == ["b"])
        }
    }

    @Test func objectIDsInPredicates() throws {
        let context = try Self.seeded()
        try context.performAndWait { () throws in
            let server = try #require(try context.fetch(FetchRequest<Server>(predicate: #Predicate { $0.name == "beta" })).first)
            let id = server.objectID
            let items = try context.fetch(FetchRequest<FeedItem>(predicate: #Predicate { $0.server?.objectID == id }))
            #expect(items.count == 3)
            #expect(items.allSatisfy { $0.server === server })
        }
    }

    @Test func unsupportedConstructsAreNamedAndCanBeEvaluatedInMemory() throws {
        let context = try Self.seeded()
        try context.performAndWait { () throws in
            let predicate = #Predicate<FeedItem> { $0.server != nil && $0.server!.name == "alpha" }
            let error = try #require(throws: FetchError.self) { try context.fetch(FetchRequest(predicate: predicate)) }
            guard case .unsupportedPredicate(let entity, let construct) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(entity == "FeedItem")
            #expect(construct == "PredicateExpressions.ForcedUnwrap")
            let request = FetchRequest(predicate: predicate)
            request.evaluatesPredicateInMemory = true
            #expect(try context.fetch(request).count == 3, "evaluated on objects when asked")
        }
    }
}
