import Coherence
import Foundation
import GRDB
import Testing

/// The corrupt-file campaign of issue 28: a Coherence SQLite store holding
/// every kind of attribute and relationship is damaged in one random way
/// per case (``StoreFileMutation``), then opened, read entirely (every
/// attribute of every object, every relationship's destination through
/// `existingObject(with:)`), saved to and reopened, as an application
/// would. Each step must work or throw one of Coherence's typed errors;
/// a save that returned must be found again. A crash, an error from
/// another library leaking through, or a lost save fails the campaign.
///
/// The cases run in child processes, a batch each, so that a crash is
/// counted (with whether it printed a message) instead of ending the run:
/// the parent starts the next batch after the case that crashed.
///
/// Size: `COHERENCE_CORRUPT_FILES` cases (200 by default, for CI;
/// `Reliability/report` runs 10,000, and again under AddressSanitizer).
/// Case `n` is reproducible alone (``firstCase``): its damage comes from
/// seed `n`.
@Suite("Reliability campaign: corrupt files")
struct CorruptFileCampaign {
    static var cases: Int { ProcessInfo.processInfo.environment["COHERENCE_CORRUPT_FILES"].flatMap(Int.init) ?? 200 }
    /// The first case (`COHERENCE_CORRUPT_FIRST`, 0 by default): to run one
    /// case again, give its number and `COHERENCE_CORRUPT_FILES=1`.
    static var firstCase: Int { ProcessInfo.processInfo.environment["COHERENCE_CORRUPT_FIRST"].flatMap(Int.init) ?? 0 }
    static let batch = 500

    @Test func damagedFilesGetTypedErrors() async throws {
        let folder = TestFiles.newURL("corrupt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let template = folder.appending(path: "template.sqlite").path
        try Self.makeTemplate(at: template)
        let log = folder.appending(path: "outcomes.log").path
        var next = Self.firstCase, silent = 0, stopped = 0
        var trapped: [String] = []
        while next < Self.firstCase + Self.cases {
            let (first, count) = (next, min(Self.batch, Self.firstCase + Self.cases - next))
            // The child's standard error goes to a file of its own (an exit
            // test whose condition fails returns no result to read it from).
            let errors = folder.appending(path: "stderr-\(first).log").path
            // A child that stops is judged below, by what it printed.
            await withKnownIssue(isIntermittent: true) {
                await #expect(processExitsWith: .success) {
                    [template = template as String, log = log as String, errors = errors as String, first = first as Int, count = count as Int] in
                    try CorruptFileCampaign.runCases(template: template, log: log, errors: errors, first: first, count: count)
                }
            }
            next = Self.outcomes(log).keys.filter { $0 >= first }.max().map { $0 + 1 } ?? first
            let message = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard next < first + count else {
                // Every case finished; a sanitizer may still report at exit.
                if message.contains("ERROR: AddressSanitizer") { Issue.record("the batch from case \(first) ended with: \(message.prefix(2000))") }
                continue
            }
            // The case that started and never finished crashed the child.
            let firstLine = message.split(separator: "\n").first.map(String.init) ?? ""
            if firstLine.contains("Fatal error: Coherence could not") {
                trapped.append("case \(next): \(firstLine)")
            } else if message.isEmpty {
                silent += 1
                Issue.record("case \(next) crashed the process without a message")
            } else {
                stopped += 1
                Issue.record("case \(next) stopped the process where a typed error was due: \(message.prefix(600))")
            }
            next += 1
        }
        let outcomes = Self.outcomes(log)
        let wrong = outcomes.values.filter { $0.hasPrefix("WRONG") }
        for line in wrong.prefix(20) { Issue.record("\(line)") }
        let opened = outcomes.values.filter { $0 == "opened, read and saved" }.count
        let unnoticed = outcomes.values.filter { $0.hasPrefix("damaged unnoticed") }
        for line in unnoticed.prefix(5) { print("corrupt files, \(line)") }
        let refusedAt = Dictionary(grouping: outcomes.values.filter { $0.hasPrefix("refused") }) { $0.split(separator: ":")[0] }
        let stages = refusedAt.keys.sorted().map { "\($0) \(refusedAt[$0]!.count)" }.joined(separator: ", ")
        for line in trapped.prefix(5) { print("corrupt files, stopped with a message: \(line)") }
        print("corrupt files: \(outcomes.count + trapped.count + stopped + silent) tried, \(opened) opened, read and saved, \(stages);"
              + " \(trapped.count) stopped with Coherence's message (a relationship fault that cannot be fulfilled,"
              + " where Core Data raises); \(unnoticed.count) read wrongly from damage SQLite does not notice until"
              + " its integrity_check; \(wrong.count) wrong, \(stopped) stopped where a typed error was due,"
              + " \(silent) crashed without a message")
        #expect(outcomes.count + trapped.count + stopped + silent == Self.cases)
        #expect(wrong.isEmpty && stopped == 0 && silent == 0)
    }

    /// Case number → outcome, from the children's log.
    static func outcomes(_ log: String) -> [Int: String] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        var outcomes: [Int: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2, let number = Int(parts[0]) { outcomes[number] = String(parts[1]) }
        }
        return outcomes
    }

    /// In the child: damages a copy of the template per case and uses it,
    /// logging each case's outcome once it is known.
    static func runCases(template: String, log: String, errors: String, first: Int, count: Int) throws {
        let errorFile = open(errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if errorFile >= 0 { dup2(errorFile, STDERR_FILENO) }
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try handle.seekToEnd()
        let work = URL(fileURLWithPath: template).deletingLastPathComponent().appending(path: "case-\(first)")
        for number in first..<(first + count) {
            try? FileManager.default.removeItem(at: work)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let store = work.appending(path: "store.sqlite")
            try FileManager.default.copyItem(atPath: template, toPath: store.path)
            var random = FormatPredicateFuzzTests.Generator(state: UInt64(number) &* 0x2545_F491_4F6C_DD1D)
            let damage = try StoreFileMutation.apply(to: store.path, using: &random)
            let outcome = use(store)
            let line = outcome.hasPrefix("WRONG") ? "\(outcome) (case \(number): \(damage))" : outcome
            handle.write(Data("\(number)\t\(line.replacingOccurrences(of: "\n", with: " "))\n".utf8))
        }
        try? FileManager.default.removeItem(at: work)
    }

    /// Opens, reads, saves to and reopens the store at `url`, as an
    /// application would; says how far it got.
    static func use(_ url: URL) -> String {
        var stage = "open"
        do {
            let model = try TestStack.model()
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(.sqlite(url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
            try context.performAndWait {
                stage = "read"
                try readEverything(context, model: model)
                stage = "save"
                let server = Server(context: context)
                server.name = "campaign"
                let item = FeedItem(context: context)
                item.server = server
                try context.save()
            }
            stage = "reopen"
            let reopened = PersistentStoreCoordinator(managedObjectModel: model)
            try reopened.addPersistentStore(.sqlite(url))
            let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: reopened)
            let found = try reader.performAndWait {
                try reader.fetch(FetchRequest<Server>(predicate: #Predicate { $0.name == "campaign" })).map(\.feedItems.count)
            }
            if found == [1] { return "opened, read and saved" }
            // SQLite reads a damaged b-tree (an index that no longer
            // matches its table) without always noticing; its own check
            // tells such a file from a wrong answer of Coherence's.
            if let damage = integrityCheck(url) {
                return "damaged unnoticed: reopening finds \(found) in a file SQLite's integrity_check finds damaged (\(damage))"
            }
            return "WRONG: the save returned but reopening finds \(found)"
        } catch let error where isCoherenceError(error) {
            return "refused at \(stage): \(type(of: error))"
        } catch {
            return "WRONG: an error that is not Coherence's at \(stage): \(type(of: error)) \(error)"
        }
    }

    /// Every attribute of every object, and every relationship's
    /// destination loaded through `existingObject(with:)`.
    private static func readEverything(_ context: ManagedObjectContext, model: ManagedObjectModel) throws {
        var destinations: [ManagedObjectID] = []
        for entity in model.entities where !entity.isAbstract {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.name)) {
                for attribute in entity.attributes { _ = object.value(forKey: attribute.name) }
                for relationship in entity.relationships {
                    let value = object.value(forKey: relationship.name)
                    if let destination = value as? ManagedObject { destinations.append(destination.objectID) }
                    if let set = value as? Set<ManagedObject> { destinations += set.map(\.objectID) }
                }
            }
        }
        for objectID in destinations { _ = try context.existingObject(with: objectID) }
    }

    /// What `PRAGMA integrity_check` says is wrong with the file (indexes
    /// against their tables included, which `quick_check` skips), or `nil`
    /// when it finds nothing.
    private static func integrityCheck(_ url: URL) -> String? {
        guard let queue = try? DatabaseQueue(path: url.path) else { return "it cannot be opened" }
        defer { try? queue.close() }
        let result = (try? queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }) ?? ["it cannot be read"]
        return result == ["ok"] ? nil : result.prefix(2).joined(separator: "; ")
    }

    private static func isCoherenceError(_ error: any Error) -> Bool {
        error is StoreError || error is ContextError || error is ValidationError || error is ModelError || error is MergeError
    }

    /// A store holding objects of every test entity, checkpointed so that
    /// the main file holds everything.
    static func makeTemplate(at path: String) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
        try coordinator.addPersistentStore(.sqlite(URL(fileURLWithPath: path)))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            for number in 0..<4 {
                let server = Server(context: context)
                server.name = "server \(number)"
                for index in 0..<3 {
                    let item = FeedItem(context: context)
                    item.title = "item \(number).\(index)"
                    item.server = server
                }
                let department = Department(context: context)
                department.name = "department \(number)"
                let mentor = Employee(context: context)
                mentor.name = "mentor \(number)"
                mentor.department = department
                let employee = Employee(context: context)
                employee.name = "employee \(number)"
                employee.mentor = mentor
                employee.department = department
                let badge = Badge(context: context)
                badge.number = number
                badge.owner = employee
                let tag = Tag(context: context)
                tag.label = "tag \(number)"
                let article = Article(context: context)
                article.title = "article \(number)"
                article.tags = [tag]
                let sample = Sample(context: context)
                sample.code = "code \(number)"
                sample.optionalString = number.isMultiple(of: 2) ? nil : "optional"
                sample.level = .two
                let vehicle = Vehicle(context: context)
                (vehicle.registered, vehicle.seats, vehicle.doors, vehicle.mileage, vehicle.serial) = (true, 4, 5, 1000, Int64(number))
                (vehicle.weight, vehicle.width, vehicle.numberPlate) = (1200.5, 1.8, "AB-\(number)")
                (vehicle.builtAt, vehicle.photo, vehicle.vin) = (Date(timeIntervalSince1970: 1e9), Data([1, 2, 3]), UUID())
                (vehicle.manual, vehicle.price, vehicle.level) = (URL(string: "https://example.com/\(number)")!, Decimal(19_999), .one)
                vehicle.garage = Address(street: "Main", zip: number)
                Tracked(context: context).name = "tracked \(number)"
            }
            try context.save()
        }
        try coordinator.remove(coordinator.persistentStores[0])
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
    }
}
