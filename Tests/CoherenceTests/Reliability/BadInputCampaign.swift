import Coherence
import CoherencePostgres
import Foundation
import Testing

/// The bad-input campaign of issue 28: misuse and malformed input at the API, each tried once. What Core Data
/// answers with an error gets a typed error naming the entity, property, key or file; a programming error Core Data
/// raises an exception for stops the program with a message naming them (run in a child process, as is anything
/// that may crash); good input is accepted. Prints `bad input | <case> | <outcome>` per case and a summary line for
/// RELIABILITY.md. A case is one table entry.
@Suite("Reliability campaign: bad input")
struct BadInputCampaign {
    /// One misuse. `expected` is `Type.case` of the error (`StoreError.notASQLiteDatabase`), `Type` for any of its
    /// cases, `trap` (a stop with a message) or `accepted`; its description or message must contain every string
    /// of `naming` and none of `hiding`. `inChild` cases run in a child process: they stop the program, or may.
    struct Case {
        let input: String, expected: String
        let naming: [String], hiding: [String]
        let inChild: Bool
        let run: () throws -> Void

        init(_ input: String, _ expected: String, naming: [String] = [], hiding: [String] = [], inChild: Bool = false,
             _ run: @escaping () throws -> Void) {
            self.input = input
            self.expected = expected
            self.naming = naming
            self.hiding = hiding
            self.inChild = inChild
            self.run = run
        }
    }

    /// A case that was accepted but did not do what it should.
    struct Unexpected: Error, CustomStringConvertible { let description: String }

    static var cases: [Case] { predicateCases + modelCases + storeCases + objectCases + requestCases + trapCases }

    @Test func everyMisuseGetsATypedErrorOrAMessage() async throws {
        let cases = Self.cases
        var wrong = 0, silent = 0
        for entry in cases where !entry.inChild {
            let (kind, text) = Self.outcome(of: entry.run)
            if !Self.judge(entry, kind: kind, text: text) { wrong += 1 }
        }
        let folder = TestFiles.newURL("bad-input")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in cases.indices where cases[index].inChild {
            // Standard error and outcome go to files: an exit test whose condition fails returns no result.
            let errors = folder.appending(path: "stderr-\(index).log").path
            let result = folder.appending(path: "outcome-\(index).log").path
            await withKnownIssue(isIntermittent: true) {
                await #expect(processExitsWith: .success) { [index = index as Int, errors = errors as String, result = result as String] in
                    try BadInputCampaign.runInChild(index, errors: errors, result: result)
                }
            }
            let (kind, text) = Self.childOutcome(result: result, errors: errors)
            if kind == "crash" { silent += 1 }
            if !Self.judge(cases[index], kind: kind, text: text) { wrong += 1 }
        }
        print("bad input: \(cases.count) tried, \(wrong) wrong, \(silent) crashed without a message")
    }

    /// What `run` got: `Type.case` and `Type.case: description`, or `accepted`.
    static func outcome(of run: () throws -> Void) -> (kind: String, text: String) {
        do {
            try run()
            return ("accepted", "accepted")
        } catch {
            let mirror = Mirror(reflecting: error)
            let label = mirror.displayStyle == .enum ? mirror.children.first?.label.map { "." + $0 } : nil
            let kind = "\(type(of: error))" + (label ?? "")
            return (kind, "\(kind): \(error)")
        }
    }

    /// In the child: runs case `index`, standard error to `errors`, and writes its outcome to `result` unless it stopped.
    static func runInChild(_ index: Int, errors: String, result: String) throws {
        let errorFile = open(errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if errorFile >= 0 { dup2(errorFile, STDERR_FILENO) }
        let (kind, text) = outcome(of: cases[index].run)
        try Data("\(kind)\t\(text)".utf8).write(to: URL(fileURLWithPath: result))
    }

    /// A child's outcome: the one it wrote, its trap's message, or a crash without one.
    static func childOutcome(result: String, errors: String) -> (kind: String, text: String) {
        let written = (try? String(contentsOfFile: result, encoding: .utf8)) ?? ""
        if let tab = written.firstIndex(of: "\t") { return (String(written[..<tab]), String(written[written.index(after: tab)...])) }
        let lines = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        if let fatal = lines.first(where: { $0.contains("Fatal error") }) {
            return ("trap", "trap: " + (fatal.range(of: "Fatal error: ").map { String(fatal[$0.upperBound...]) } ?? fatal))
        }
        return ("crash", "crashed without a message" + (lines.first.map { " (standard error: \($0))" } ?? ""))
    }

    /// Prints the case's line; whether it got what it should.
    static func judge(_ entry: Case, kind: String, text: String) -> Bool {
        let matched = (kind == entry.expected || kind.hasPrefix(entry.expected + "."))
            && entry.naming.allSatisfy { text.contains($0) } && !entry.hiding.contains { text.contains($0) }
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|") }
        print("bad input | \(cell(entry.input)) | \(cell(text))")
        #expect(matched, "\(entry.input): expected \(entry.expected) naming \(entry.naming), got \(text)")
        return matched
    }

    // MARK: Helpers

    static func format(_ text: String, _ arguments: Any?...) throws { _ = try Predicate<FeedItem>(validatingFormat: text, argumentArray: arguments) }

    /// Runs `body` on the queue of a new context on a new store of the test model.
    static func inContext(_ store: StoreKind = .sqlite, _ body: (ManagedObjectContext) throws -> Void) throws {
        let context = try TestStack.context(store)
        try context.performAndWait { try body(context) }
    }

    static func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws { try inContext { _ = try $0.fetch(request) } }

    static func model(_ entities: [ManagedObject.Type]) throws { _ = try ManagedObjectModel(entities: entities) }

    static func load(_ description: PersistentStoreDescription) throws {
        try PersistentStoreCoordinator(managedObjectModel: TestStack.model()).addPersistentStore(description)
    }

    /// A file that is not a database, in a folder of its own.
    static func textFile(_ name: String) throws -> URL {
        let url = TestFiles.newURL(name)
        try Data("These are my notes, not a database.\n".utf8).write(to: url)
        return url
    }

    /// Saves a new `Sample` after `change`.
    static func saveSample(_ change: (Sample) -> Void) throws {
        try inContext { context in
            let sample = Sample(context: context)
            sample.code = "x"
            change(sample)
            try context.save()
        }
    }

    /// Runs `body` on a context of an SQLite store that keeps persistent history.
    static func withHistory(_ body: (ManagedObjectContext) throws -> Void) throws {
        let description = PersistentStoreDescription.sqlite(TestFiles.newURL("history.sqlite"))
        description.persistentHistoryTracking = true
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait { try body(context) }
    }

    /// Links a new `FeedItem` to `destination`, of another context or of none, and saves.
    static func saveItem(linkedTo destination: @autoclosure () throws -> Server) throws {
        try inContext { context in
            FeedItem(context: context).server = try destination()
            try context.save()
        }
    }

    // MARK: Cases

    static var predicateCases: [Case] { [
        Case("format predicate with an unbalanced parenthesis", "PredicateFormatError.syntax",
             naming: ["expected ')'", "the end of the format string"]) { try format("(title == 'x'") },
        Case("invalid regular expression in MATCHES", "PredicateFormatError.invalidRegularExpression",
             naming: ["MATCHES", "not a valid regular expression: ("]) { try format("title MATCHES '('") },
        Case("%@ without an argument", "PredicateFormatError.missingArgument", naming: ["position 9", "no argument"]) { try format("title == %@") },
        Case("%d given a String", "PredicateFormatError.argumentType", naming: ["position 8", "an integer, not String"]) { try format("read == %d", "yes") },
        Case("1,000 nested parentheses", "PredicateFormatError.syntax", naming: ["at most 100 nested parentheses"]) {
            try format(String(repeating: "(", count: 1_000) + "read == YES" + String(repeating: ")", count: 1_000))
        },
        Case("fetch with a format predicate naming an unknown key", "PredicateFormatError.unknownKey", naming: ["FeedItem has no property named colour"]) {
            try fetch(FetchRequest(predicate: Predicate<FeedItem>(format: "colour == 'red'")))
        },
        Case("format predicate comparing a to-many relationship with a number", "PredicateFormatError.unsupportedKeyPath", naming: ["Server", "feedItems"]) {
            try fetch(FetchRequest(predicate: Predicate<Server>(format: "feedItems == 2")))
        },
        Case("#Predicate with a force unwrap, on SQLite", "FetchError.unsupportedPredicate",
             naming: ["FeedItem", "PredicateExpressions.ForcedUnwrap", "evaluatesPredicateInMemory"]) {
            try fetch(FetchRequest<FeedItem>(predicate: #Predicate<FeedItem> { $0.server != nil && $0.server!.name == "alpha" }))
        },
        Case("#Predicate on a computed property, on SQLite", "FetchError.unsupportedPredicate", naming: ["FeedItem", "not a modeled property"]) {
            try fetch(FetchRequest<FeedItem>(predicate: #Predicate<FeedItem> { $0.displayTitle == "Untitled" }))
        },
    ] }

    static var modelCases: [Case] { [
        Case("model with two entities of one name", "ModelError.duplicateEntity", naming: ["two entities named Server"]) {
            try model([Server.self, FeedItem.self, Server.self])
        },
        Case("relationship whose inverse is declared on neither side", "ModelError.missingInverse", naming: ["Lonely.friend", "no inverse"]) {
            try model([Lonely.self, Friend.self])
        },
        Case("inverse that leads to another entity", "ModelError.mismatchedInverse", naming: ["Pointer.target", "Target.others leads to Other"]) {
            try model([Pointer.self, Target.self, Other.self])
        },
        Case("relationship to an entity outside the model", "ModelError.destinationNotInModel", naming: ["Server.feedItems", "FeedItem"]) {
            try model([Server.self])
        },
        Case("attribute of a type no store can hold", "ModelError.unsupportedAttributeType", naming: ["WithOpaque.opaque", "Opaque"]) {
            try model([WithOpaque.self])
        },
    ] }

    static var storeCases: [Case] { [
        Case("store description of an unknown type", "StoreError.unsupportedStoreType", naming: ["stores of type Binary"]) {
            let description = PersistentStoreDescription(url: TestFiles.newURL("store.binary"))
            description.type = "Binary"
            try load(description)
        },
        Case("SQLite store description without a URL", "StoreError", naming: ["needs a file URL"]) { try load(PersistentStoreDescription()) },
        Case("configuration name the model lacks", "StoreError.incompatibleModel", naming: ["no configuration named Reports"]) {
            _ = try PersistentStoreCoordinator(managedObjectModel: TestStack.model())
                .addPersistentStore(ofType: SQLiteStoreType, configurationName: "Reports", at: TestFiles.newURL("store.sqlite"), options: nil)
        },
        Case("SQLite store URL naming a text file", "StoreError.notASQLiteDatabase", naming: ["notes.sqlite", "not an SQLite database"]) {
            try load(.sqlite(textFile("notes.sqlite")))
        },
        Case("SQLite store URL naming another application's database", "StoreError.notACoherenceStore", naming: ["other.sqlite", "did not create"]) {
            let database = TestDatabase.sqlite(TestFiles.newURL("other.sqlite"))
            try database.execute("CREATE TABLE users (id INTEGER)")
            _ = try database.coordinator()
        },
        Case("read-only store where there is no file", "StoreError.readOnlyStore", naming: ["missing.sqlite", "no store there to open read-only"]) {
            let description = PersistentStoreDescription.sqlite(TestFiles.newURL("missing.sqlite"))
            description.isReadOnly = true
            try load(description)
        },
        Case("SQLite store URL in a missing directory (created)", "accepted") {
            let url = TestFiles.newURL("new").appending(path: "deeper/store.sqlite")
            try load(.sqlite(url))
            guard FileManager.default.fileExists(atPath: url.path) else { throw Unexpected(description: "no file at \(url.path)") }
        },
        // Found by this campaign: FileManager's CocoaError escaped untyped.
        Case("SQLite store URL inside a regular file", "StoreError", naming: ["blocker"]) {
            try load(.sqlite(textFile("blocker").appending(path: "store.sqlite")))
        },
        // Found by this campaign: the header was read with FileHandle.readData(ofLength:), a `try!` that stopped the
        // program with Foundation's message naming no file.
        Case("SQLite store URL naming a directory", "StoreError.invalidStoreURL", naming: ["folder.sqlite", "directory"]) {
            let folder = TestFiles.newURL("folder.sqlite")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try load(.sqlite(folder))
        },
        Case("one store added twice", "StoreError.duplicateStore", naming: ["is already loaded"]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
            try coordinator.addPersistentStore(coordinator.addPersistentStore(PersistentStoreDescription.inMemory))
        },
        Case("postgres URL without a host", "StoreError.invalidStoreURL", naming: ["postgres:///zeader", "no host"]) { try load(.postgres(url: "postgres:///zeader")) },
        Case("postgres URL with an unknown sslmode and a password", "StoreError.invalidStoreURL", naming: ["sslmode sometimes"], hiding: ["secret"]) {
            try load(.postgres(url: "postgres://app:secret@db/zeader?sslmode=sometimes"))
        },
        Case("postgres URL that is not a URL", "StoreError.invalidStoreURL", naming: ["postgres://app@db:port/zeader", "not a URL"]) {
            try load(.postgres(url: "postgres://app@db:port/zeader"))
        },
    ] }

    static var objectCases: [Case] { [
        Case("save with a required attribute never set", "ValidationError.missingValue", naming: ["Sample.code is required"]) {
            try inContext { context in
                _ = Sample(context: context)
                try context.save()
            }
        },
        Case("Double attribute set to NaN", "ValidationError.invalidValue", naming: ["Sample.double", "NaN"]) { try saveSample { $0.double = .nan } },
        Case("Decimal attribute set to Decimal.nan", "ValidationError.invalidValue", naming: ["Sample.decimal", "NaN"]) { try saveSample { $0.decimal = .nan } },
        Case("relationship to an object of another coordinator", "ValidationError.crossContextRelationship", naming: ["FeedItem.server refers to Server"]) {
            let foreign = try TestStack.context(.inMemory)
            let server = foreign.performAndWait { Server(context: foreign) }
            try withExtendedLifetime(foreign) { try saveItem(linkedTo: server) }
        },
        // Run apart: no other test covers a destination that was never inserted.
        Case("relationship to an object never inserted", "ValidationError.crossContextRelationship", naming: ["FeedItem.server refers to Server"],
             inChild: true) { try saveItem(linkedTo: Server()) },
        Case("deleting an object whose deny relationship is not empty", "ValidationError.deleteDenied", naming: ["Department cannot be deleted", "employees"]) {
            try inContext { context in
                let department = Department(context: context)
                Employee(context: context).department = department
                try context.save()
                context.delete(department)
                try context.save()
            }
        },
        Case("existingObject(with:) for an object deleted in the context", "ContextError.objectDeleted", naming: ["Server", "is deleted in this context"]) {
            try inContext { context in
                let server = Server(context: context)
                try context.save()
                context.delete(server)
                _ = try context.existingObject(with: server.objectID)
            }
        },
        Case("existingObject(with:) for an ID no object has", "ContextError.objectNotFound", naming: ["Server", "does not exist in the store"]) {
            try inContext { context in
                let server = Server(context: context)
                try context.save()
                let uri = server.objectID.uriRepresentation().absoluteString.replacingOccurrences(of: "/p1", with: "/p999")
                guard let url = URL(string: uri), let id = context.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: url) else {
                    throw Unexpected(description: "no ID for \(uri)")
                }
                _ = try context.existingObject(with: id)
            }
        },
        Case("existingObject(with:) in a context without a coordinator", "ContextError", naming: ["no persistent store coordinator"]) {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            let id = Server().objectID
            _ = try context.performAndWait { try context.existingObject(with: id) }
        },
        Case("decoding an object ID whose URI names an unknown entity", "DecodingError.dataCorrupted", naming: ["Truck", "is not a Coherence object ID URI"]) {
            let decoder = JSONDecoder()
            decoder.userInfo[ManagedObjectID.modelUserInfoKey] = try TestStack.model()
            _ = try decoder.decode([ManagedObjectID].self, from: Data(#"["x-coherence://store/Truck/p1"]"#.utf8))
        },
    ] }

    static var requestCases: [Case] { [
        Case("fetch of an entity name the model lacks", "FetchError.unknownEntity", naming: ["\"Truck\""]) {
            try fetch(FetchRequest<ManagedObject>(entityName: "Truck"))
        },
        Case("sort by a key the entity lacks", "FetchError.unknownSortKey", naming: ["FeedItem", "\"colour\""]) {
            try fetch(FetchRequest<FeedItem>(sortBy: [SortDescriptor(key: "colour")]))
        },
        Case("FetchRequest<NSDictionary> naming no entity", "FetchError.noEntity", naming: ["FetchRequest<NSDictionary> names no entity"]) {
            try inContext { context in
                let request = FetchRequest<NSDictionary>()
                request.resultType = .dictionaryResultType
                _ = try context.fetch(request)
            }
        },
        Case("batch insert with a key the entity lacks", "ContextError.unknownProperty", naming: ["FeedItem has no property named nope"]) {
            try inContext { _ = try $0.execute(BatchInsertRequest<FeedItem>(objects: [["title": "ok"], ["nope": 1]])) }
        },
        Case("batch insert without a required value", "ValidationError.missingValue", naming: ["Sample.code is required"]) {
            try inContext { _ = try $0.execute(BatchInsertRequest<Sample>(objects: [["int": 1]])) }
        },
        Case("batch update of a derived attribute", "ContextError.readOnlyProperty", naming: ["Feed.unreadCount is derived"]) {
            let context = try DerivedStack.context()
            try context.performAndWait { _ = try context.execute(BatchUpdateRequest<Feed>(propertiesToUpdate: ["unreadCount": 3])) }
        },
        Case("batch delete refused by a deny rule", "ValidationError.deleteDenied", naming: ["Department cannot be deleted", "employees"]) {
            try inContext { context in
                Employee(context: context).department = Department(context: context)
                try context.save()
                _ = try context.execute(BatchDeleteRequest<Department>())
            }
        },
        Case("history request on the in-memory store", "PersistentHistoryError.notSupported", naming: ["InMemory store does not keep persistent history"]) {
            try inContext(.inMemory) { _ = try $0.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)) }
        },
        Case("history request on a store loaded without history tracking", "PersistentHistoryError.trackingNotEnabled",
             naming: ["without persistent history tracking"]) {
            try inContext { _ = try $0.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)) }
        },
        Case("history after a token whose history was deleted", "PersistentHistoryError.tokenExpired", naming: ["was deleted"]) {
            try withHistory { context in
                for name in ["one", "two", "three"] {
                    Server(context: context).name = name
                    try context.save()
                }
                let all = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?))
                let tokens = (all as? PersistentHistoryResult)?.transactions.map(\.token) ?? []
                guard tokens.count == 3 else { throw Unexpected(description: "\(tokens.count) transactions of 3") }
                _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: tokens[2]))
                _ = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[0]))
            }
        },
        Case("history after a token of a store that is not loaded", "PersistentHistoryError", naming: ["no loaded store"]) {
            let token = PersistentHistoryToken(storeIdentifier: "elsewhere", transactionNumber: 3)
            try withHistory { _ = try $0.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)) }
        },
        // Found by this campaign: `after + 1` overflowed and stopped the program without a message; a token past
        // the store's last transaction fetches nothing.
        Case("history after a token numbered Int64.max (a damaged saved token)", "accepted") {
            try withHistory { context in
                Server(context: context).name = "one"
                try context.save()
                guard let store = context.persistentStoreCoordinator?.persistentStores.first else { throw Unexpected(description: "no store") }
                let token = PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: .max)
                _ = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token))
            }
        },
    ] }

    /// Misuse Core Data raises an exception for: the program stops with a message.
    static var trapCases: [Case] { [
        Case("setValue(_:forKey:) with a key the entity lacks", "trap", naming: ["FeedItem is not key value coding-compliant for the key \"nope\""],
             inChild: true) { try inContext { FeedItem(context: $0).setValue(1, forKey: "nope") } },
        Case("setValue(_:forKey:) with a value of the wrong type", "trap", naming: ["FeedItem.title: expected String, got Int"], inChild: true) {
            try inContext { FeedItem(context: $0).setValue(42, forKey: "title") }
        },
        Case("Int16 attribute set to 70,000 through setValue(_:forKey:)", "trap", naming: ["Sample.int16: expected Int16, got Int"], inChild: true) {
            try inContext { Sample(context: $0).setValue(70_000, forKey: "int16") }
        },
        Case("required attribute read before it was set", "trap", naming: ["Sample.code was read before it was set"], inChild: true) {
            try inContext { _ = Sample(context: $0).code }
        },
        Case("object changed after its context was reset", "trap", naming: ["FeedItem.title", "invalidated"], inChild: true) {
            try inContext { context in
                let item = FeedItem(context: context)
                context.reset()
                item.title = "too late"
            }
        },
        Case("deleting an object of another context", "trap", naming: ["the Server belongs to another context"], inChild: true) {
            let context = try TestStack.context(.sqlite)
            let other = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
            let foreign = other.performAndWait { Server(context: other) }
            withExtendedLifetime(other) { context.performAndWait { context.delete(foreign) } }
        },
        Case("relationship set on an object never inserted", "trap", naming: ["insert this FeedItem into a context"], inChild: true) {
            try inContext { FeedItem().server = Server(context: $0) }
        },
        Case("Predicate(format:) with a malformed format", "trap", naming: ["the predicate format \"(title == 'x'\" is invalid"], inChild: true) {
            _ = Predicate<FeedItem>(format: "(title == 'x'")
        },
        Case("insert of an object whose entity the model lacks", "trap", naming: ["FormatCar is not an entity of the model"], inChild: true) {
            try inContext { _ = FormatCar(context: $0) }
        },
        Case("fetch in a context without a coordinator", "trap", naming: ["has no persistent store coordinator"], inChild: true) {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            _ = try context.performAndWait { try context.fetch(FetchRequest<Server>()) }
        },
        // Found by this campaign: the message named the context but not the entity, which Core Data's exception names
        // ("... searching for entity name 'Server'").
        Case("insert into a context without a coordinator", "trap", naming: ["Server", "no persistent store coordinator"], inChild: true) {
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.performAndWait { _ = Server(context: context) }
        },
    ] }
}
