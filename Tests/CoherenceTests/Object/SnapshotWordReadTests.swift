@testable import Coherence
import Foundation
import Testing

/// Every type a loaded object reads straight from its snapshot's word (see
/// `AttributeDeclaration.decode(word:kind:)`), beside a transient one
/// (kept whole) and a string (read through its store value).
final class Reading: ManagedObject {
    @Attribute var count: Int64 = 0
    @Attribute var small = 0
    @Attribute var maybe: Int?
    @Attribute var maybe64: Int64?
    @Attribute var ratio = 0.0
    @Attribute var ratioMaybe: Double?
    @Attribute var flag = false
    @Attribute var when = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var whenMaybe: Date?
    @Attribute(.transient) var scratch = 7
    @Attribute var label = ""
}

/// A parent whose sub-entity has more than 64 properties: the sub-entity's
/// layout has a null bitmap of two words, so the parent's attributes sit
/// one word further than in the parent's own layout, and no word serves
/// both. (The SQL stores read an entity in a hierarchy into array
/// snapshots; the binding must still turn the parent's word off.)
class ShortParent: ManagedObject {
    @Attribute var count: Int64 = 0
    @Attribute var label = ""
}

final class LongReading: ShortParent {
    @Attribute var extra0: Int64 = 0; @Attribute var extra1: Int64 = 1; @Attribute var extra2: Int64 = 2; @Attribute var extra3: Int64 = 3; @Attribute var extra4: Int64 = 4; @Attribute var extra5: Int64 = 5; @Attribute var extra6: Int64 = 6; @Attribute var extra7: Int64 = 7; @Attribute var extra8: Int64 = 8; @Attribute var extra9: Int64 = 9
    @Attribute var extra10: Int64 = 10; @Attribute var extra11: Int64 = 11; @Attribute var extra12: Int64 = 12; @Attribute var extra13: Int64 = 13; @Attribute var extra14: Int64 = 14; @Attribute var extra15: Int64 = 15; @Attribute var extra16: Int64 = 16; @Attribute var extra17: Int64 = 17; @Attribute var extra18: Int64 = 18; @Attribute var extra19: Int64 = 19
    @Attribute var extra20: Int64 = 20; @Attribute var extra21: Int64 = 21; @Attribute var extra22: Int64 = 22; @Attribute var extra23: Int64 = 23; @Attribute var extra24: Int64 = 24; @Attribute var extra25: Int64 = 25; @Attribute var extra26: Int64 = 26; @Attribute var extra27: Int64 = 27; @Attribute var extra28: Int64 = 28; @Attribute var extra29: Int64 = 29
    @Attribute var extra30: Int64 = 30; @Attribute var extra31: Int64 = 31; @Attribute var extra32: Int64 = 32; @Attribute var extra33: Int64 = 33; @Attribute var extra34: Int64 = 34; @Attribute var extra35: Int64 = 35; @Attribute var extra36: Int64 = 36; @Attribute var extra37: Int64 = 37; @Attribute var extra38: Int64 = 38; @Attribute var extra39: Int64 = 39
    @Attribute var extra40: Int64 = 40; @Attribute var extra41: Int64 = 41; @Attribute var extra42: Int64 = 42; @Attribute var extra43: Int64 = 43; @Attribute var extra44: Int64 = 44; @Attribute var extra45: Int64 = 45; @Attribute var extra46: Int64 = 46; @Attribute var extra47: Int64 = 47; @Attribute var extra48: Int64 = 48; @Attribute var extra49: Int64 = 49
    @Attribute var extra50: Int64 = 50; @Attribute var extra51: Int64 = 51; @Attribute var extra52: Int64 = 52; @Attribute var extra53: Int64 = 53; @Attribute var extra54: Int64 = 54; @Attribute var extra55: Int64 = 55; @Attribute var extra56: Int64 = 56; @Attribute var extra57: Int64 = 57; @Attribute var extra58: Int64 = 58; @Attribute var extra59: Int64 = 59
    @Attribute var extra60: Int64 = 60; @Attribute var extra61: Int64 = 61; @Attribute var extra62: Int64 = 62; @Attribute var extra63: Int64 = 63; @Attribute var extra64: Int64 = 64; @Attribute var extra65: Int64 = 65; @Attribute var extra66: Int64 = 66; @Attribute var extra67: Int64 = 67; @Attribute var extra68: Int64 = 68; @Attribute var extra69: Int64 = 69
}

/// A property read of a loaded object that wrote nothing takes its value
/// from its snapshot's word; these check that the word holds what the slow
/// path (through a ``StoreValue``) reads, for every such type, for `nil`,
/// and that a sub-entity whose layout keeps the words elsewhere turns the
/// parent's word off.
@Suite("Snapshot word reads")
struct SnapshotWordReadTests {
    static let when = Date(timeIntervalSinceReferenceDate: 123_456.789)

    /// A context on a new store of `kind` with `entities`.
    static func context(_ kind: StoreKind, _ entities: [ManagedObject.Type]) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: entities))
        try coordinator.addPersistentStore(try kind.makeDescription())
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    /// A second context on `context`'s store.
    static func reader(of context: ManagedObjectContext) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator!)
    }

    /// What the fast path reads for `declaration` on `object` (the same
    /// steps as `ManagedObject._read`), or `nil` where it does not apply.
    static func wordValue<Value>(_ declaration: AttributeDeclaration<Value>, of object: ManagedObject) -> Value? {
        let word = declaration.snapshotWord
        guard word >= 0, object._values.isEmpty,
              let bits = object._base?._word(word >> 3, position: declaration.position) else { return nil }
        return declaration.decode(word: bits, kind: word & 7)
    }

    @Test(arguments: StoreKind.allCases) func loadedObjectsReadWhatWasSaved(store kind: StoreKind) throws {
        let writer = try Self.context(kind, [Reading.self])
        // The fast path is on for this entity's attributes of fixed width.
        #expect(Reading.__Coherence_count.declaration.snapshotWord >= 0)
        #expect(Reading.__Coherence_whenMaybe.declaration.snapshotWord >= 0)
        try writer.performAndWait {
            let filled = Reading(context: writer)
            filled.count = .min
            filled.small = -42
            filled.maybe = .max
            filled.maybe64 = -1
            filled.ratio = -0.25
            filled.ratioMaybe = .infinity
            filled.flag = true
            filled.when = Self.when
            filled.whenMaybe = Self.when
            filled.scratch = 9
            filled.label = "filled"
            _ = Reading(context: writer)          // initial values, optionals nil
            try writer.save()
        }
        let reader = Self.reader(of: writer)
        try reader.performAndWait {
            let all = try reader.fetch(FetchRequest<Reading>())
            let filled = try #require(all.first { $0.label == "filled" })
            let empty = try #require(all.first { $0.label == "" })
            #expect(filled.count == .min)
            #expect(filled.small == -42)
            #expect(filled.maybe == .max)
            #expect(filled.maybe64 == -1)
            #expect(filled.ratio == -0.25)
            #expect(filled.ratioMaybe == .infinity)
            #expect(filled.flag == true)
            #expect(filled.when == Self.when)
            #expect(filled.whenMaybe == Self.when)
            #expect(filled.scratch == 7)     // transient: not stored
            // The SQL stores' snapshots keep these values in words, and
            // the fast path reads them there; the in-memory store's are
            // arrays, which it leaves to the slow path.
            let sql = kind != .inMemory
            #expect(Self.wordValue(Reading.__Coherence_count.declaration, of: filled) == (sql ? .min : nil))
            #expect(Self.wordValue(Reading.__Coherence_small.declaration, of: filled) == (sql ? -42 : nil))
            #expect(Self.wordValue(Reading.__Coherence_maybe.declaration, of: filled) == (sql ? Int??.some(.max) : nil))
            #expect(Self.wordValue(Reading.__Coherence_maybe64.declaration, of: filled) == (sql ? Int64??.some(-1) : nil))
            #expect(Self.wordValue(Reading.__Coherence_ratio.declaration, of: filled) == (sql ? -0.25 : nil))
            #expect(Self.wordValue(Reading.__Coherence_ratioMaybe.declaration, of: filled) == (sql ? Double??.some(.infinity) : nil))
            #expect(Self.wordValue(Reading.__Coherence_flag.declaration, of: filled) == (sql ? true : nil))
            #expect(Self.wordValue(Reading.__Coherence_when.declaration, of: filled) == (sql ? Self.when : nil))
            #expect(Self.wordValue(Reading.__Coherence_whenMaybe.declaration, of: filled) == (sql ? Date??.some(Self.when) : nil))
            // A `nil` value has its null bit set: the slow path reads it.
            #expect(Self.wordValue(Reading.__Coherence_maybe.declaration, of: empty) == nil)
            #expect(Self.wordValue(Reading.__Coherence_whenMaybe.declaration, of: empty) == nil)
            // Kept whole: no word.
            #expect(Reading.__Coherence_scratch.declaration.snapshotWord == -2)
            #expect(Reading.__Coherence_label.declaration.snapshotWord == -2)
            #expect(empty.count == 0)
            #expect(empty.small == 0)
            #expect(empty.maybe == nil)
            #expect(empty.maybe64 == nil)
            #expect(empty.ratio == 0)
            #expect(empty.ratioMaybe == nil)
            #expect(empty.flag == false)
            #expect(empty.when == Date(timeIntervalSinceReferenceDate: 0))
            #expect(empty.whenMaybe == nil)
            // After a write the object reads its own values, the others as
            // saved; a rollback restores the saved ones.
            filled.count = 5
            filled.maybe = nil
            #expect(filled.count == 5)
            #expect(filled.maybe == nil)
            #expect(filled.small == -42)
            #expect(filled.when == Self.when)
            reader.rollback()
            #expect(filled.count == .min)
            #expect(filled.maybe == .max)
        }
    }

    @Test(arguments: StoreKind.allCases) func aSubEntityWithALongerBitmapReadsItsParentsAttributes(store kind: StoreKind) throws {
        let writer = try Self.context(kind, [ShortParent.self, LongReading.self])
        try writer.performAndWait {
            let parent = ShortParent(context: writer)
            parent.count = 11
            parent.label = "parent"
            let child = LongReading(context: writer)
            child.count = 22
            child.label = "child"
            child.extra69 = -69
            try writer.save()
        }
        let reader = Self.reader(of: writer)
        try reader.performAndWait {
            let all = try reader.fetch(FetchRequest<ShortParent>())
            let parent = try #require(all.first { $0.label == "parent" })
            let child = try #require(all.first { $0.label == "child" } as? LongReading)
            #expect(parent.count == 11)
            #expect(child.count == 22)
            #expect(child.extra0 == 0)
            #expect(child.extra68 == 68)
            #expect(child.extra69 == -69)
        }
        // The parent's attributes have no word that serves both entities;
        // the child's own have theirs, after its two bitmap words and the
        // parent's attributes (`count` in a word, `label` kept whole).
        #expect(ShortParent.__Coherence_count.declaration.snapshotWord == -2)
        let whole = (MemoryLayout<StoreValue>.size + 7) / 8
        #expect(LongReading.__Coherence_extra0.declaration.snapshotWord == (2 + 1 + whole) << 3)
    }

    /// Binding directly: the first layout sets the word, the same word
    /// again keeps it, another one turns it off for good.
    @Test func aSecondLayoutThatDisagreesTurnsTheWordOff() {
        let declaration = AttributeDeclaration<Int64>(name: "value")
        let short = SnapshotLayout([.double, .integer])
        let long = SnapshotLayout([.double, .integer] + Array(repeating: .whole, count: 70))
        let integer = Int(SnapshotLayout.Kind.integer.rawValue)
        declaration.bindSnapshotWord(short, index: 1)
        #expect(declaration.snapshotWord == (1 + 1) << 3 | integer)
        declaration.bindSnapshotWord(short, index: 1)
        #expect(declaration.snapshotWord == (1 + 1) << 3 | integer)
        declaration.bindSnapshotWord(long, index: 1)
        #expect(declaration.snapshotWord == -2)
        declaration.bindSnapshotWord(short, index: 1)
        #expect(declaration.snapshotWord == -2)
    }

    /// A snapshot's header: its ID, the count in the ID's padding, its
    /// version, and one word saying where its values are (each row an SQL
    /// store reads is 16 bytes smaller than with an array and an optional
    /// layout beside each other).
    @Test func aSnapshotHeaderTakesFortyBytes() {
        #expect(MemoryLayout<Snapshot.Contents>.size == 8)
        #expect(MemoryLayout<Snapshot.Header>.size == 40)
    }
}
