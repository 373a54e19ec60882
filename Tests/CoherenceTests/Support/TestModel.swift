import Coherence
import Foundation
import CoherencePostgres
import Testing

/// The seed articles' feed server.
final class Server: ManagedObject {
    @Attribute var name = ""
    @Attribute var unreadCount = 0
    @Relationship(inverse: \FeedItem.server, deleteRule: .cascade)
    var feedItems: Set<FeedItem>
}

/// One item of a feed.
final class FeedItem: ManagedObject {
    @Attribute var title = ""
    @Attribute var read = false
    @Relationship var server: Server?
    /// Computed from `title`: not a column, so never translated to SQL.
    var displayTitle: String { title.isEmpty ? "Untitled" : title }
}

/// Records the lifecycle hooks Coherence calls.
final class Tracked: ManagedObject {
    @Attribute var name = ""
    @Attribute var createdAt: Date?
    var calls: [String] = []

    override func awakeFromInsert() { calls.append("awakeFromInsert"); createdAt = Date(timeIntervalSince1970: 42) }
    override func awakeFromFetch() { calls.append("awakeFromFetch") }
    override func willSave() { calls.append("willSave") }
    override func didSave() { calls.append("didSave") }
    override func prepareForDeletion() { calls.append("prepareForDeletion") }
    override func willTurnIntoFault() { calls.append("willTurnIntoFault") }
    override func didTurnIntoFault() { calls.append("didTurnIntoFault") }
}

enum Priority: String, Codable, Sendable {
    case low, high
}

enum Level: Int16, Sendable {
    case one = 1, two = 2
}

struct Address: Codable, Hashable, Sendable {
    var street: String
    var zip: Int
}

/// One attribute of every supported kind.
final class Sample: ManagedObject {
    @Attribute var flag = false
    @Attribute var int = 0
    @Attribute var int16: Int16 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int64: Int64 = 0
    @Attribute var double = 0.0
    @Attribute var float: Float = 0
    @Attribute var string = ""
    @Attribute var date = Date(timeIntervalSince1970: 0)
    @Attribute var data = Data()
    @Attribute var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Attribute var url = URL(string: "https://example.com")!
    @Attribute var decimal = Decimal(0)
    @Attribute var optionalString: String?
    @Attribute var optionalInt: Int? = 7
    @Attribute var priority = Priority.low
    @Attribute var level: Level?
    @Attribute var address = Address(street: "Main", zip: 1)
    /// Required: declared without an initial value.
    @Attribute var code: String
    /// Not modeled: a plain stored property.
    var transientNote = "not stored"
}

extension Level: Comparable, Codable {
    static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One required attribute (declared without an initial value) of every
/// supported kind. `Level` is neither `CaseIterable` nor has a case whose raw
/// value is 0 (once the hardest kind for the model's prototype object).
final class Vehicle: ManagedObject {
    @Attribute var registered: Bool
    @Attribute var seats: Int
    @Attribute var doors: Int16
    @Attribute var mileage: Int32
    @Attribute var serial: Int64
    @Attribute var weight: Double
    @Attribute var width: Float
    @Attribute var numberPlate: String
    @Attribute var builtAt: Date
    @Attribute var photo: Data
    @Attribute var vin: UUID
    @Attribute var manual: URL
    @Attribute var price: Decimal
    @Attribute var level: Level
    @Attribute var garage: Address
}

/// A department that may not be deleted while it has employees.
final class Department: ManagedObject {
    @Attribute var name = ""
    @Relationship(inverse: \Employee.department, deleteRule: .deny)
    var employees: Set<Employee>
}

final class Employee: ManagedObject {
    @Attribute var name = ""
    @Relationship var department: Department?
    @Relationship(inverse: \Employee.mentees) var mentor: Employee?
    @Relationship var mentees: Set<Employee>
    @Relationship(inverse: \Badge.owner, deleteRule: .noAction) var badge: Badge?
}

/// One-to-one with Employee.
final class Badge: ManagedObject {
    @Attribute var number = 0
    @Relationship var owner: Employee?
}

/// Many-to-many.
final class Article: ManagedObject {
    @Attribute var title = ""
    @Relationship(inverse: \Tag.articles) var tags: Set<Tag>
}

final class Tag: ManagedObject {
    @Attribute var label = ""
    @Relationship var articles: Set<Article>
}

/// The stores every store-facing test runs against: one store suite.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite
    case postgres

    /// Every store the store tests run on: PostgreSQL when a server is
    /// given (`.ci/with-postgres swift test`), and always under CI, where a
    /// missing server fails the PostgreSQL cases instead of skipping them.
    static var allCases: [StoreKind] {
        PostgresTestServer.shouldRun ? [.inMemory, .sqlite, .postgres] : [.inMemory, .sqlite]
    }

    /// The stores that keep their rows in a database (every one but the
    /// in-memory store).
    static var databases: [StoreKind] { allCases.filter { $0 != .inMemory } }

    var testDescription: String { rawValue }

    /// A description of a new, empty store of this kind.
    func makeDescription() throws -> PersistentStoreDescription {
        switch self {
        case .inMemory: .inMemory
        case .sqlite: .sqlite(TestFiles.newURL("store.sqlite"))
        case .postgres: .postgres(try PostgresTestServer.newSchemaConfiguration())
        }
    }
}

/// Files the tests create, in one directory per test process, removed at exit.
enum TestFiles {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appending(path: "CoherenceTests-\(getpid())", directoryHint: .isDirectory)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit {
            let url = FileManager.default.temporaryDirectory.appending(path: "CoherenceTests-\(getpid())")
            try? FileManager.default.removeItem(at: url)
        }
        return url
    }()

    /// A path that does not exist yet, in a directory of its own.
    static func newURL(_ name: String) -> URL {
        let folder = directory.appending(path: UUID().uuidString, directoryHint: .isDirectory)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appending(path: name)
    }
}

enum TestStack {
    static let entities: [ManagedObject.Type] = [
        Server.self, FeedItem.self, Tracked.self, Sample.self, Department.self, Employee.self, Badge.self,
        Article.self, Tag.self, Vehicle.self,
    ]

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: entities)
    }

    static func coordinator(_ store: StoreKind = .inMemory) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(store.makeDescription())
        return coordinator
    }

    /// A private-queue context on a new, empty store.
    static func context(_ store: StoreKind = .inMemory, name: String? = nil) throws -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: try coordinator(store))
        context.name = name
        return context
    }
}

/// Collects the typed notifications one context posts, on its queue.
final class ChangeLog {
    private(set) var changes: [ManagedObjectContext.ObjectsDidChangeMessage] = []
    private(set) var saves: [ManagedObjectContext.DidSaveMessage] = []
    private(set) var willSaves = 0
    private var tokens: [ContextObservation] = []

    init(_ context: ManagedObjectContext) {
        tokens.append(context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { [unowned self] in changes.append($0) })
        tokens.append(context.addObserver(for: ManagedObjectContext.DidSaveMessage.self) { [unowned self] in saves.append($0) })
        tokens.append(context.addObserver(for: ManagedObjectContext.WillSaveMessage.self) { [unowned self] _ in willSaves += 1 })
    }

    var last: ManagedObjectContext.ObjectsDidChangeMessage? { changes.last }

    func clear() {
        changes = []
        saves = []
        willSaves = 0
    }
}

/// Counts Foundation notifications from `NotificationCenter.default`, from any thread.
final class NotificationCounter: Sendable {
    private final class Count: Sendable {
        let value = Locked(0)
    }

    private let counted = Count()
    nonisolated(unsafe) private var token: (any NSObjectProtocol)?

    init(_ name: Notification.Name, object: AnyObject?) {
        let counted = self.counted
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { _ in
            counted.value.withLock { $0 += 1 }
        }
    }

    var count: Int { counted.value.withLock { $0 } }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }
}
