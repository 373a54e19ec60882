import Coherence
import Foundation
import Testing

/// Attributes of the native types, most with their optionals, which
/// fetches fill and saves read with one switch on the type (`SlotKind`).
final class StorageProbe: ManagedObject {
    @Attribute var int64: Int64 = 0
    @Attribute var optionalInt64: Int64?
    @Attribute var int = 0
    @Attribute var optionalInt: Int?
    @Attribute var double = 0.0
    @Attribute var optionalDouble: Double?
    @Attribute var flag = false
    @Attribute var optionalFlag: Bool?
    @Attribute var text = ""
    @Attribute var optionalText: String?
    @Attribute var date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var optionalDate: Date?
    /// Required (declared without an initial value).
    @Attribute var stamp: Date
    @Attribute var small: Int16 = 0
    @Attribute var single: Float = 0
    @Attribute var identifier: UUID?
    @Attribute var amount = Decimal(0)
    /// Which of the value sets the object holds: the fetches sort by it.
    @Attribute var position: Int32 = 0
}

/// The values of a ``StorageProbe``.
struct ProbeValues: Equatable, CustomTestStringConvertible {
    var int64: Int64, optionalInt64: Int64?, int: Int, optionalInt: Int?
    var double: Double, optionalDouble: Double?, flag: Bool, optionalFlag: Bool?
    var text: String, optionalText: String?, date: Date, optionalDate: Date?, stamp: Date
    var small: Int16, single: Float, identifier: UUID?, amount: Decimal, position: Int32

    /// Extremes, and `nil` for every optional.
    static let low = ProbeValues(
        int64: .min, optionalInt64: nil, int: .min, optionalInt: nil,
        double: -.greatestFiniteMagnitude, optionalDouble: nil, flag: false, optionalFlag: nil,
        text: "", optionalText: nil, date: .distantPast, optionalDate: nil, stamp: Date(timeIntervalSinceReferenceDate: -0.5),
        small: .min, single: -.greatestFiniteMagnitude, identifier: nil,
        amount: Decimal(string: "-12345678901234567890.123456789", locale: Locale(identifier: "en_US_POSIX"))!, position: 0)

    /// The other extremes, and for the optionals the values closest to
    /// `nil` (zero, `false`, the empty string, the reference date).
    static let high = ProbeValues(
        int64: .max, optionalInt64: 0, int: .max, optionalInt: 0,
        double: .leastNonzeroMagnitude, optionalDouble: 0, flag: true, optionalFlag: false,
        text: "Grüße aus Zürich, 日本語, 🇨🇭👩‍💻, \"quoted\" 'single' \\ ;--", optionalText: "",
        date: .distantFuture, optionalDate: Date(timeIntervalSinceReferenceDate: 0), stamp: Date(timeIntervalSince1970: 0),
        small: .max, single: .leastNonzeroMagnitude, identifier: UUID(uuidString: "FFFFFFFF-0000-4000-8000-0123456789AB")!,
        amount: Decimal(string: "0.000000000000000000000000000001", locale: Locale(identifier: "en_US_POSIX"))!, position: 1)

    /// Ordinary values, negative ones, and values for every optional.
    static let typical = ProbeValues(
        int64: -42, optionalInt64: -(1 << 53) - 1, int: -3, optionalInt: 123_456_789_012,
        double: 3.141592653589793, optionalDouble: .infinity, flag: true, optionalFlag: true,
        text: "plain", optionalText: "ü", date: Date(timeIntervalSince1970: 1_700_000_000.123456),
        optionalDate: Date(timeIntervalSince1970: -1e10), stamp: Date(timeIntervalSinceReferenceDate: 1e9 + 0.25),
        small: -1, single: 1.1, identifier: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
        amount: Decimal(-7), position: 2)

    static let all = [low, high, typical]

    /// Values that differ from `all[index]` in every attribute but
    /// `position`, which stays `index`.
    static func other(than index: Int) -> ProbeValues {
        var values = index == 0 ? high : low
        values.position = Int32(index)
        return values
    }

    init(int64: Int64, optionalInt64: Int64?, int: Int, optionalInt: Int?, double: Double, optionalDouble: Double?,
         flag: Bool, optionalFlag: Bool?, text: String, optionalText: String?, date: Date, optionalDate: Date?, stamp: Date,
         small: Int16, single: Float, identifier: UUID?, amount: Decimal, position: Int32) {
        (self.int64, self.optionalInt64, self.int, self.optionalInt) = (int64, optionalInt64, int, optionalInt)
        (self.double, self.optionalDouble, self.flag, self.optionalFlag) = (double, optionalDouble, flag, optionalFlag)
        (self.text, self.optionalText, self.date, self.optionalDate, self.stamp) = (text, optionalText, date, optionalDate, stamp)
        (self.small, self.single, self.identifier, self.amount, self.position) = (small, single, identifier, amount, position)
    }

    /// The values `probe` holds now (firing it if it is a fault).
    init(_ probe: StorageProbe) {
        self.init(int64: probe.int64, optionalInt64: probe.optionalInt64, int: probe.int, optionalInt: probe.optionalInt,
                  double: probe.double, optionalDouble: probe.optionalDouble, flag: probe.flag, optionalFlag: probe.optionalFlag,
                  text: probe.text, optionalText: probe.optionalText, date: probe.date, optionalDate: probe.optionalDate,
                  stamp: probe.stamp, small: probe.small, single: probe.single, identifier: probe.identifier,
                  amount: probe.amount, position: probe.position)
    }

    func apply(to probe: StorageProbe) {
        (probe.int64, probe.optionalInt64, probe.int, probe.optionalInt) = (int64, optionalInt64, int, optionalInt)
        (probe.double, probe.optionalDouble, probe.flag, probe.optionalFlag) = (double, optionalDouble, flag, optionalFlag)
        (probe.text, probe.optionalText, probe.date, probe.optionalDate, probe.stamp) = (text, optionalText, date, optionalDate, stamp)
        (probe.small, probe.single, probe.identifier, probe.amount, probe.position) = (small, single, identifier, amount, position)
    }

    /// The Swift values by attribute name, as `changedValues()` and
    /// `committedValues(forKeys:)` report them (`NSNull()` for `nil`).
    var byName: [String: Any] {
        func value(_ optional: Any?) -> Any { optional ?? NSNull() }
        return [
            "int64": int64, "optionalInt64": value(optionalInt64), "int": int, "optionalInt": value(optionalInt),
            "double": double, "optionalDouble": value(optionalDouble), "flag": flag, "optionalFlag": value(optionalFlag),
            "text": text, "optionalText": value(optionalText), "date": date, "optionalDate": value(optionalDate),
            "stamp": stamp, "small": small, "single": single, "identifier": value(identifier), "amount": amount,
            "position": position,
        ]
    }

    /// Equality of the bits of floating-point values. (The sets hold no
    /// -0.0: SQLite reads a -0.0 it was given back as 0.0.)
    static func == (lhs: ProbeValues, rhs: ProbeValues) -> Bool {
        lhs.int64 == rhs.int64 && lhs.optionalInt64 == rhs.optionalInt64 && lhs.int == rhs.int && lhs.optionalInt == rhs.optionalInt
            && lhs.double.bitPattern == rhs.double.bitPattern && lhs.optionalDouble?.bitPattern == rhs.optionalDouble?.bitPattern
            && lhs.flag == rhs.flag && lhs.optionalFlag == rhs.optionalFlag && lhs.text == rhs.text && lhs.optionalText == rhs.optionalText
            && lhs.date == rhs.date && lhs.optionalDate == rhs.optionalDate && lhs.stamp == rhs.stamp && lhs.small == rhs.small
            && lhs.single.bitPattern == rhs.single.bitPattern && lhs.identifier == rhs.identifier && lhs.amount == rhs.amount
            && lhs.position == rhs.position
    }

    var testDescription: String { "values \(position)" }
}

/// Whether a value that `changedValues()` or `committedValues(forKeys:)`
/// reported is `expected` (same type and value; `NSNull()` for `nil`).
func isSameReportedValue(_ reported: Any?, _ expected: Any) -> Bool {
    switch expected {
    case is NSNull: reported is NSNull
    case let value as Int64: (reported as? Int64) == value
    case let value as Int: (reported as? Int) == value
    case let value as Double: (reported as? Double)?.bitPattern == value.bitPattern
    case let value as Bool: (reported as? Bool) == value
    case let value as String: (reported as? String) == value
    case let value as Date: (reported as? Date) == value
    case let value as Int16: (reported as? Int16) == value
    case let value as Int32: (reported as? Int32) == value
    case let value as Float: (reported as? Float)?.bitPattern == value.bitPattern
    case let value as UUID: (reported as? UUID) == value
    case let value as Decimal: (reported as? Decimal) == value
    default: false
    }
}

/// Values of every kind written into objects and read back from them: by a
/// save, a fetch (values filled at once, or when a fault fires), a lookup
/// by ID, `changedValues()`, `committedValues(forKeys:)`, `rollback()` and
/// `refresh(_:mergeChanges:)`, against both stores.
@Suite("Attribute storage")
struct AttributeStorageTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [StorageProbe.self])
    }

    static func coordinator(_ description: PersistentStoreDescription) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// A coordinator whose store holds one probe per value set, saved by a
    /// context that is gone; their IDs in the order of ``ProbeValues/all``.
    static func seeded(_ description: PersistentStoreDescription) throws -> (PersistentStoreCoordinator, [ManagedObjectID]) {
        let coordinator = try coordinator(description)
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let ids = try writer.performAndWait {
            let probes = ProbeValues.all.map { values in
                let probe = StorageProbe(context: writer)
                values.apply(to: probe)
                return probe
            }
            try writer.save()
            return probes.map(\.objectID)
        }
        return (coordinator, ids)
    }

    static func newContext(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    static func fetchAll(_ context: ManagedObjectContext, asFaults: Bool) throws -> [StorageProbe] {
        let request = FetchRequest<StorageProbe>(sortBy: [SortDescriptor(\.position)])
        request.returnsObjectsAsFaults = asFaults
        return try context.fetch(request)
    }

    @Test(arguments: StoreKind.allCases, [false, true])
    func everyKindSurvivesASaveAndAFetch(store: StoreKind, asFaults: Bool) throws {
        let (coordinator, _) = try Self.seeded(store.makeDescription())
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let probes = try Self.fetchAll(context, asFaults: asFaults)
            try #require(probes.count == ProbeValues.all.count)
            for (probe, expected) in zip(probes, ProbeValues.all) {
                // With the in-memory store the context sorts the objects,
                // which loads their values.
                #expect(probe.isFault == (asFaults && store != .inMemory))
                #expect(ProbeValues(probe) == expected)
                #expect(!probe.isFault)
            }
        }
    }

    /// A lookup by ID in a new context, while the saving context keeps its
    /// objects: the snapshots come from the coordinator's row cache, as the
    /// save read them from the objects (not as a store query returns them).
    @Test(arguments: StoreKind.allCases) func everyKindSurvivesALookupByID(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store.makeDescription())
        let writer = Self.newContext(coordinator)
        let probes = try writer.performAndWait {
            let probes = ProbeValues.all.map { values in
                let probe = StorageProbe(context: writer)
                values.apply(to: probe)
                return probe
            }
            try writer.save()
            return probes
        }
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            for (id, expected) in zip(probes.map(\.objectID), ProbeValues.all) {
                let probe = try #require(try context.existingObject(with: id) as? StorageProbe)
                #expect(ProbeValues(probe) == expected)
            }
        }
        withExtendedLifetime(probes) {}
    }

    @Test(arguments: [false, true]) func everyKindSurvivesReopeningTheFile(asFaults: Bool) throws {
        let url = TestFiles.newURL("storage.sqlite")
        _ = try Self.seeded(.sqlite(url))
        let context = Self.newContext(try Self.coordinator(.sqlite(url)))
        try context.performAndWait {
            let probes = try Self.fetchAll(context, asFaults: asFaults)
            #expect(probes.map(ProbeValues.init) == ProbeValues.all)
        }
    }

    /// Text holding NUL characters comes back as it was saved, read from
    /// the database by a new coordinator: SQLite would cut text bound as a
    /// C string at the first NUL, and PostgreSQL text cannot hold one at all
    /// (the store escapes it). (A NaN is refused by the save: NotANumberTests.)
    @Test(arguments: StoreKind.allCases) func nulCharactersSurviveTheStore(store: StoreKind) throws {
        let url = TestFiles.newURL("nul.sqlite")
        let description: PersistentStoreDescription = store == .sqlite ? .sqlite(url) : try store.makeDescription()
        // A second coordinator on the same description opens the same database.
        let coordinator = try Self.coordinator(description)
        let writer = Self.newContext(coordinator)
        let id = try writer.performAndWait {
            let probe = StorageProbe(context: writer)
            probe.stamp = Date(timeIntervalSinceReferenceDate: 0)
            probe.text = "a\0b\0"
            probe.optionalText = "\0"
            try writer.save()
            return probe.objectID
        }
        let reader = Self.newContext(store != .inMemory ? try Self.coordinator(description) : coordinator)
        try reader.performAndWait {
            let probe = try #require(try Self.fetchAll(reader, asFaults: false).first)
            #expect(probe.objectID.primaryKey == id.primaryKey)
            #expect(Array(probe.text.utf8) == [97, 0, 98, 0])
            #expect(probe.optionalText.map { Array($0.utf8) } == [0])
            // Comparisons read the same text: the NUL is part of the value.
            let matching = try reader.fetch(FetchRequest<StorageProbe>(predicate: #Predicate { $0.text == "a\0b\0" }))
            #expect(matching.count == 1)
        }
    }

    /// A required attribute whose raw value is a `Double` follows the same
    /// rule as a `Double`: a NaN is refused by the save, which names it.
    @Test func aRawValueNaNIsRefused() throws {
        let url = TestFiles.newURL("raw-nan.sqlite")
        func coordinator() throws -> PersistentStoreCoordinator {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Gauge.self]))
            try coordinator.addPersistentStore(.sqlite(url))
            return coordinator
        }
        let writer = Self.newContext(try coordinator())
        writer.performAndWait {
            Gauge(context: writer).ratio = Ratio(rawValue: .nan)
            #expect(throws: ValidationError.invalidValue(entity: "Gauge", property: "ratio",
                                                         reason: "NaN (not a number) cannot be stored: no store reads it back as it was")) {
                try writer.save()
            }
        }
    }

    /// A batch update binds through the same rules as a save: text with
    /// NUL characters whole.
    @Test(arguments: StoreKind.allCases) func batchUpdatesKeepNulCharacters(store: StoreKind) throws {
        let (coordinator, _) = try Self.seeded(store.makeDescription())
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let request = BatchUpdateRequest<StorageProbe>(predicate: #Predicate { $0.position == 0 },
                                                           propertiesToUpdate: ["text": "x\0y"])
            let result = (try context.execute(request) as! BatchUpdateResult)
            #expect(result.count == 1)
        }
        let reader = Self.newContext(coordinator)
        try reader.performAndWait {
            let probe = try #require(try Self.fetchAll(reader, asFaults: false).first)
            #expect(Array(probe.text.utf8) == [120, 0, 121])
        }
    }

    /// Each object gets the values of the next set, is saved, and a new
    /// context reads the new values (a save reads updated objects as well
    /// as inserted ones).
    @Test(arguments: StoreKind.allCases) func updatesOfEveryKindAreSaved(store: StoreKind) throws {
        let (coordinator, _) = try Self.seeded(store.makeDescription())
        let editor = Self.newContext(coordinator)
        let expected = ProbeValues.all.indices.map(ProbeValues.other(than:))
        try editor.performAndWait {
            let probes = try Self.fetchAll(editor, asFaults: true)
            for (probe, values) in zip(probes, expected) { values.apply(to: probe) }
            try editor.save()
        }
        let reader = Self.newContext(coordinator)
        try reader.performAndWait { () throws in
            #expect(try Self.fetchAll(reader, asFaults: false).map(ProbeValues.init) == expected)
        }
    }

    // changedValues(): "the keys and (new) values of persistent properties
    // that have been changed since last fetching or saving the receiver"
    // (https://developer.apple.com/documentation/coredata/nsmanagedobject/changedvalues()).
    // committedValues(forKeys:): "the last fetched or saved values"
    // (https://developer.apple.com/documentation/coredata/nsmanagedobject/committedvalues(forkeys:)).
    @Test(arguments: StoreKind.allCases) func changedAndCommittedValuesReportEveryKind(store: StoreKind) throws {
        let (coordinator, _) = try Self.seeded(store.makeDescription())
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let probes = try Self.fetchAll(context, asFaults: true)
            for (index, probe) in probes.enumerated() {
                let committed = ProbeValues.all[index]
                let changed = ProbeValues.other(than: index)
                #expect(probe.changedValues().isEmpty, "nothing changed since the fetch")

                // Only what was set is reported.
                probe.double = changed.double
                probe.optionalText = changed.optionalText
                #expect(Set(probe.changedValues().keys) == ["double", "optionalText"])

                changed.apply(to: probe)
                let reported = probe.changedValues()
                let expectedChanges = changed.byName.filter { $0.key != "position" }
                #expect(Set(reported.keys) == Set(expectedChanges.keys))
                for (name, value) in expectedChanges {
                    #expect(isSameReportedValue(reported[name], value), "\(name): \(String(describing: reported[name])), expected \(value)")
                }
                let committedReport = probe.committedValues(forKeys: nil)
                for (name, value) in committed.byName {
                    #expect(isSameReportedValue(committedReport[name], value),
                            "\(name): \(String(describing: committedReport[name])), expected \(value)")
                }
                let some = probe.committedValues(forKeys: ["optionalInt64", "date"])
                #expect(Set(some.keys) == ["optionalInt64", "date"])
                #expect(ProbeValues(probe) == changed, "the changes themselves are kept")
            }
        }
    }

    /// An inserted object reports every property that has a value as
    /// changed, with that value, and has no committed values
    /// (https://developer.apple.com/documentation/coredata/nsmanagedobject/changedvalues(),
    /// https://developer.apple.com/documentation/coredata/nsmanagedobject/committedvalues(forkeys:)).
    @Test func anInsertedObjectReportsEveryKindAsChanged() throws {
        let context = Self.newContext(try Self.coordinator(.inMemory))
        context.performAndWait {
            for values in ProbeValues.all {
                let probe = StorageProbe(context: context)
                values.apply(to: probe)
                let reported = probe.changedValues()
                #expect(Set(reported.keys) == Set(values.byName.keys))
                for (name, value) in values.byName {
                    #expect(isSameReportedValue(reported[name], value), "\(name): \(String(describing: reported[name])), expected \(value)")
                }
                #expect(probe.committedValues(forKeys: nil).isEmpty, "never saved")
            }
        }
    }

    // rollback(): "Removes everything from the undo stack, discards all
    // insertions and deletions, and restores updated objects to their last
    // committed values"
    // (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/rollback()).
    @Test(arguments: StoreKind.allCases) func rollbackRestoresEveryKind(store: StoreKind) throws {
        let (coordinator, _) = try Self.seeded(store.makeDescription())
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let probes = try Self.fetchAll(context, asFaults: true)
            for (index, probe) in probes.enumerated() {
                let other = ProbeValues.other(than: index)
                other.apply(to: probe)
                #expect(ProbeValues(probe) == other)
            }
            #expect(context.hasChanges)
            context.rollback()
            #expect(!context.hasChanges)
            #expect(probes.map(ProbeValues.init) == ProbeValues.all)
            #expect(probes.allSatisfy { $0.changedValues().isEmpty })
        }
    }

    /// Rolling back in the context that saved: the committed values are the
    /// ones its own save recorded.
    @Test(arguments: StoreKind.allCases) func rollbackAfterASaveRestoresWhatWasSaved(store: StoreKind) throws {
        let context = Self.newContext(try Self.coordinator(store.makeDescription()))
        try context.performAndWait {
            let probes = ProbeValues.all.map { values in
                let probe = StorageProbe(context: context)
                values.apply(to: probe)
                return probe
            }
            try context.save()
            for (index, probe) in probes.enumerated() {
                ProbeValues.other(than: index).apply(to: probe)
            }
            context.rollback()
            #expect(probes.map(ProbeValues.init) == ProbeValues.all)
        }
    }

    // refresh(_:mergeChanges: false): "the object's persistent properties
    // are reset to their last committed values"
    // (https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/refresh(_:mergechanges:)).
    @Test(arguments: StoreKind.allCases) func refreshingDiscardsChangesOfEveryKind(store: StoreKind) throws {
        let (coordinator, _) = try Self.seeded(store.makeDescription())
        let context = Self.newContext(coordinator)
        try context.performAndWait {
            let probes = try Self.fetchAll(context, asFaults: false)
            for (index, probe) in probes.enumerated() {
                let other = ProbeValues.other(than: index)
                other.apply(to: probe)
                context.refresh(probe, mergeChanges: false)
                #expect(probe.isFault)
                #expect(ProbeValues(probe) == ProbeValues.all[index])
            }
        }
    }
}

/// A raw-value type over `Double`, for ``AttributeStorageTests/aRawValueNaNSurvivesTheStore()``.
struct Ratio: RawRepresentable, Sendable {
    var rawValue: Double
}

/// An entity with one required raw-value `Double` attribute.
final class Gauge: ManagedObject {
    @Attribute var ratio = Ratio(rawValue: 0)
}
