@testable import Coherence
import Foundation
import GRDB
import Testing

/// Stored values that are not in the form Coherence writes them: a column
/// written by other software, or a store that hands back another form. The
/// native attribute types are decoded into objects with one switch on the
/// type; another form must be converted as ``AttributeValue`` converts it,
/// or fail.
@Suite("Stored value conversion")
struct StoredValueConversionTests {
    /// A store file with one probe (``ProbeValues/typical``), saved by a
    /// coordinator that is gone; the probe's ID.
    static func seededFile() throws -> (URL, ManagedObjectID) {
        let url = TestFiles.newURL("conversion.sqlite")
        let (_, ids) = try AttributeStorageTests.seeded(.sqlite(url))
        return (url, ids[2])
    }

    /// Runs `sql` on the file, with the probe's primary key as `?`s.
    static func execute(_ sql: String, in url: URL, key: Int64) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            let count = sql.count { $0 == "?" }
            try db.execute(sql: sql, arguments: StatementArguments(Array(repeating: key, count: count)))
        }
        try queue.close()
    }

    /// Makes the probe table's columns untyped (no affinity), as other
    /// software could have created it: a column then keeps an integer as an
    /// integer, where a REAL column would turn it into a floating-point value.
    static func dropColumnTypes(in url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            let columns = try db.columns(in: "StorageProbe").map(\.name).filter { $0 != "Z_PK" && $0 != "Z_OPT" }
            let definitions = ["Z_PK INTEGER PRIMARY KEY NOT NULL", "Z_OPT INTEGER NOT NULL"] + columns.map { "\"\($0)\"" }
            try db.execute(sql: """
                CREATE TABLE untyped (\(definitions.joined(separator: ", ")));
                INSERT INTO untyped SELECT * FROM StorageProbe;
                DROP TABLE StorageProbe;
                ALTER TABLE untyped RENAME TO StorageProbe;
                """)
        }
        try queue.close()
    }

    static func context(_ url: URL) throws -> ManagedObjectContext {
        AttributeStorageTests.newContext(try AttributeStorageTests.coordinator(.sqlite(url)))
    }

    @Test(arguments: [false, true]) func integersInFloatingPointBooleanAndDateColumnsAreConverted(asFaults: Bool) throws {
        let (url, id) = try Self.seededFile()
        try Self.dropColumnTypes(in: url)
        let key = try #require(id.primaryKey)
        try Self.execute("""
            UPDATE StorageProbe SET double = 3, optionalDouble = -2, single = 2, flag = 1, optionalFlag = 0,
                date = 86400, optionalDate = -1, stamp = 0 WHERE Z_PK = ?
            """, in: url, key: key)
        let queue = try DatabaseQueue(path: url.path)
        let types = try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT typeof(double), typeof(flag), typeof(date) FROM StorageProbe WHERE Z_PK = ?", arguments: [key])
        }
        try queue.close()
        #expect(types.map { [$0[0], $0[1], $0[2]] as [String] } == ["integer", "integer", "integer"], "the columns hold integers")

        var expected = ProbeValues.typical
        (expected.double, expected.optionalDouble, expected.single) = (3, -2, 2)
        (expected.flag, expected.optionalFlag) = (true, false)
        expected.date = Date(timeIntervalSinceReferenceDate: 86_400)
        expected.optionalDate = Date(timeIntervalSinceReferenceDate: -1)
        expected.stamp = Date(timeIntervalSinceReferenceDate: 0)
        let context = try Self.context(url)
        try context.performAndWait {
            let probes = try AttributeStorageTests.fetchAll(context, asFaults: asFaults)
            let probe = try #require(probes.first { $0.objectID == id })
            #expect(ProbeValues(probe) == expected)
        }
        let other = try Self.context(url)
        try other.performAndWait {
            let probe = try #require(try other.existingObject(with: id) as? StorageProbe)
            #expect(ProbeValues(probe) == expected)
        }
    }

    /// Text in an integer column cannot be read as an `Int64`: the fetch
    /// throws, naming the entity and the attribute, and changes nothing.
    @Test(arguments: ["'not a number'", "2.5", "x'00'"]) func aValueAnIntegerAttributeCannotTakeMakesTheFetchThrow(value: String) throws {
        let (url, id) = try Self.seededFile()
        try Self.execute("UPDATE StorageProbe SET int64 = \(value) WHERE Z_PK = ?", in: url, key: try #require(id.primaryKey))
        let context = try Self.context(url)
        context.performAndWait {
            for asFaults in [false, true] {
                #expect {
                    try AttributeStorageTests.fetchAll(context, asFaults: asFaults)
                } throws: { error in
                    guard case StoreError.invalidStoredValue(let entity, let property, _) = error else { return false }
                    return entity == "StorageProbe" && property == "int64"
                }
            }
            #expect(context.registeredObjects.isEmpty)
            // A lookup by ID says the row could not be read, and why (not
            // that the object does not exist).
            #expect {
                try context.existingObject(with: id)
            } throws: { error in
                guard case ContextError.unreadableObject(let unreadable, let reason) = error else { return false }
                return unreadable == id && reason.contains("StorageProbe") && reason.contains("int64")
            }
        }
    }

    /// Values another program wrote that the attribute cannot hold (an
    /// out-of-range `Int16`, NULL in a required `Date`): a lookup by ID
    /// throws `ContextError.unreadableObject` naming the attribute, as the
    /// README documents, instead of trapping (found by issue 28's campaign).
    @Test(arguments: [("small = 70000", "small"), ("stamp = NULL", "stamp"), ("int = 'x'", "int")])
    func valuesAnotherProgramWroteAreUnreadableNotATrap(update: String, property: String) throws {
        let (url, id) = try Self.seededFile()
        try Self.execute("UPDATE StorageProbe SET \(update) WHERE Z_PK = ?", in: url, key: try #require(id.primaryKey))
        let context = try Self.context(url)
        context.performAndWait {
            #expect {
                try context.existingObject(with: id)
            } throws: { error in
                guard case ContextError.unreadableObject(let unreadable, let reason) = error else { return false }
                return unreadable == id && reason.contains(property)
            }
            #expect {
                try context.fetch(FetchRequest<StorageProbe>())
            } throws: { error in
                guard case StoreError.invalidStoredValue("StorageProbe", property, _) = error else { return false }
                return true
            }
        }
    }

    /// A context and the ID of a saved row whose `int64` column holds text.
    static func unreadableRow() throws -> (ManagedObjectContext, ManagedObjectID) {
        let (url, id) = try seededFile()
        try execute("UPDATE StorageProbe SET int64 = 'not a number' WHERE Z_PK = ?", in: url, key: id.primaryKey!)
        return (try context(url), id)
    }

    /// A fault whose row cannot be read cannot be fired: the program stops,
    /// naming the entity and the column, as Core Data raises
    /// NSObjectInaccessibleException for a fault it cannot fulfill
    /// (https://developer.apple.com/library/archive/documentation/DataManagement/Conceptual/IncrementalStorePG/Troubleshooting/Troubleshooting.html).
    @Test func firingAFaultWhoseRowCannotBeReadTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (context, id) = try StoredValueConversionTests.unreadableRow()
            context.performAndWait {
                let fault = context.object(with: id) as! StorageProbe
                _ = fault.int64
            }
        }
        #expect(result.standardError.contains("StorageProbe"))
        #expect(result.standardError.contains("int64"))
        #expect(result.standardError.contains("could not be read"), "not mistaken for a missing row")
    }

    /// Deleting a fault whose row cannot be read stops the program the same
    /// way: it is not taken for a row another context deleted (which a
    /// deletion skips).
    @Test func deletingAFaultWhoseRowCannotBeReadTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (context, id) = try StoredValueConversionTests.unreadableRow()
            context.performAndWait {
                context.delete(context.object(with: id))
            }
        }
        #expect(result.standardError.contains("StorageProbe"))
        #expect(result.standardError.contains("int64"))
        #expect(result.standardError.contains("could not be read"), "not mistaken for a missing row")
    }

    /// A store of the application's own (``PersistentStore`` is public) may
    /// hand back integers for floating-point and boolean attributes and
    /// numbers for dates: they are converted.
    @Test(arguments: [false, true]) func aStoreThatHandsBackOtherFormsIsRead(asFaults: Bool) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try AttributeStorageTests.model())
        let store = LooseFormStore(model: coordinator.managedObjectModel, rewrite: LooseFormStore.numbers)
        try coordinator.addPersistentStore(store)
        var values = ProbeValues.all
        (values[0].double, values[1].double, values[2].double) = (3, -2, 0)
        (values[0].optionalDouble, values[1].optionalDouble, values[2].optionalDouble) = (nil, 4_503_599_627_370_496, -7)
        (values[0].single, values[1].single, values[2].single) = (2, -1, 0.5)
        values[0].date = Date(timeIntervalSinceReferenceDate: 86_400.5)
        let writer = AttributeStorageTests.newContext(coordinator)
        try writer.performAndWait {
            for value in values { value.apply(to: StorageProbe(context: writer)) }
            try writer.save()
        }
        let context = AttributeStorageTests.newContext(coordinator)
        try context.performAndWait {
            let probes = try AttributeStorageTests.fetchAll(context, asFaults: asFaults)
            #expect(probes.map(ProbeValues.init) == values)
            #expect(store.rewritten.withLock { $0 } > 0, "the store handed back other forms")
            let committed = probes[0].committedValues(forKeys: ["double", "flag", "date"])
            #expect(committed["double"] as? Double == 3)
            #expect(committed["flag"] as? Bool == false)
            #expect(committed["date"] as? Date == values[0].date)
        }
    }

    /// A store that hands back a value an attribute cannot take stops the
    /// program when the attribute is read, naming the entity and the
    /// attribute (values are converted when read, not when loaded).
    @Test func aStoreThatHandsBackAnUnreadableValueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try AttributeStorageTests.model())
            try coordinator.addPersistentStore(LooseFormStore(model: coordinator.managedObjectModel) { attribute, value in
                attribute.name == "int64" ? .string("not a number") : value
            })
            let writer = AttributeStorageTests.newContext(coordinator)
            try writer.performAndWait {
                ProbeValues.typical.apply(to: StorageProbe(context: writer))
                try writer.save()
            }
            let context = AttributeStorageTests.newContext(coordinator)
            try context.performAndWait {
                let probes = try AttributeStorageTests.fetchAll(context, asFaults: false)
                _ = probes.first?.int64
            }
        }
        #expect(result.standardError.contains("StorageProbe.int64"))
    }
}

/// A store that keeps its rows in an ``InMemoryStore`` and hands them back
/// with each attribute value passed through `rewrite`. It evaluates no
/// fetches itself, so fetches read every row through `snapshots(of:)`.
final class LooseFormStore: PersistentStore {
    let base = InMemoryStore()
    let model: ManagedObjectModel
    let rewrite: @Sendable (AttributeDescription, StoreValue) -> StoreValue
    /// How many values `rewrite` changed.
    let rewritten = Locked(0)

    var identifier: String { base.identifier }
    var type: String { "LooseForm" }

    init(model: ManagedObjectModel, rewrite: @escaping @Sendable (AttributeDescription, StoreValue) -> StoreValue) {
        self.model = model
        self.rewrite = rewrite
    }

    /// Integers for whole floating-point numbers and booleans, seconds
    /// since 2001 for dates.
    static let numbers: @Sendable (AttributeDescription, StoreValue) -> StoreValue = { _, value in
        switch value {
        case .double(let number) where number.rounded() == number && abs(number) < 1e18: .integer(Int64(number))
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .date(let date): .double(date.timeIntervalSinceReferenceDate)
        default: value
        }
    }

    private func loosen(_ snapshot: Snapshot) -> Snapshot {
        guard let entity = model.entitiesByName[snapshot.objectID.entityName] else { return snapshot }
        var values = Array(snapshot.values)
        for attribute in entity.attributes {
            let value = rewrite(attribute, values[attribute.index])
            if value != values[attribute.index] { rewritten.withLock { $0 += 1 } }
            values[attribute.index] = value
        }
        return Snapshot(objectID: snapshot.objectID, values: values, version: snapshot.version)
    }

    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? { try base.snapshot(for: objectID).map(loosen) }
    func snapshots(of entity: EntityDescription) throws -> [Snapshot] { try base.snapshots(of: entity).map(loosen) }
    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try base.relatedObjectIDs(of: objectID, relationship: relationship)
    }
    func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        try base.permanentIDs(for: objectIDs, entities: entities)
    }
    func save(_ request: StoreSaveRequest) throws -> StoreSaveResult { try base.save(request) }
    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? { nil }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? { nil }
    func count(_ request: StoreFetchRequest) throws -> Int? { nil }
}
