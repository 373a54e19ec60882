@testable import Coherence
import PropertyBased
import Testing

/// The identity map's and the row cache's table agrees with a `Dictionary`
/// under random insertions, replacements and removals, with keys that share
/// pages (16 consecutive keys of a class and store), negative and extreme
/// keys among them, and pages that empty and come back.
@Suite("Object ID table")
struct ObjectIDTableTests {
    enum Operation {
        case set(key: Int64, classIndex: Int, store: UInt32, value: Int)
        case remove(key: Int64, classIndex: Int, store: UInt32)
        case removeOdd
    }

    static let classes: [ManagedObject.Type] = [Server.self, FeedItem.self]
    /// Keys around 0 and at both ends of Int64, where pages start and end.
    static let keys: [Int64] = Array(-40...120) + [.min, .min + 1, .min + 15, .min + 16, .max, .max - 1, .max - 15, .max - 16]

    static func id(_ key: Int64, _ classIndex: Int, _ store: UInt32) -> ManagedObjectID {
        ManagedObjectID(objectClass: classes[classIndex], storeNumber: store, key: key)
    }

    static let operations: Generator<Operation, some SendableSequenceType> = Gen.oneOf(
        zip(Gen.int(in: 0...(keys.count - 1)), Gen.int(in: 0...1), Gen.uint32(in: 0...2), Gen.int(in: 0...1_000))
            .map { Operation.set(key: keys[$0], classIndex: $1, store: $2, value: $3) },
        zip(Gen.int(in: 0...(keys.count - 1)), Gen.int(in: 0...1), Gen.uint32(in: 0...2))
            .map { Operation.remove(key: keys[$0], classIndex: $1, store: $2) },
        Gen.always(Operation.removeOdd)
    )

    @Test func agreesWithADictionary() async {
        await propertyCheck(count: 200, input: Self.operations.array(of: 0...600)) { operations in
            var table = ObjectIDTable<Int>()
            var model: [ManagedObjectID: Int] = [:]
            for operation in operations {
                switch operation {
                case let .set(key, classIndex, store, value):
                    let id = Self.id(key, classIndex, store)
                    #expect(table.updateValue(value, forKey: id) == model.updateValue(value, forKey: id))
                case let .remove(key, classIndex, store):
                    let id = Self.id(key, classIndex, store)
                    #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
                case .removeOdd:
                    var seen: [ManagedObjectID: Int] = [:]
                    let removed = table.removeAll { id, value in
                        seen[id] = value
                        return value % 2 == 1
                    }
                    // The closure saw every entry, under its own ID.
                    #expect(seen == model)
                    let expected = model.values.filter { $0 % 2 == 1 }
                    model = model.filter { $0.value % 2 == 0 }
                    #expect(removed.sorted() == expected.sorted())
                }
                #expect(table.count == model.count)
            }
            for key in Self.keys { for classIndex in 0...1 { for store in UInt32(0)...2 {
                let id = Self.id(key, classIndex, store)
                #expect(table[id] == model[id])
            } } }
            #expect(table.allValues.sorted() == model.values.sorted())
        }
    }

    /// The conditional removal removes only what its closure picks, and the
    /// closure sees the value in place.
    @Test func conditionalRemoval() {
        var table = ObjectIDTable<Int>()
        for key in Int64(0)..<100 { table[Self.id(key, 0, 1)] = Int(key) }
        #expect(table.removeValue(forKey: Self.id(3, 0, 1)) { $0 % 2 == 0 } == nil)
        #expect(table[Self.id(3, 0, 1)] == 3)
        #expect(table.removeValue(forKey: Self.id(4, 0, 1)) { $0 % 2 == 0 } == 4)
        #expect(table[Self.id(4, 0, 1)] == nil)
        #expect(table.removeValue(forKey: Self.id(1000, 0, 1)) { _ in true } == nil)
        #expect(table.count == 99)
    }

    /// Emptying the table (a context reset) forgets every entry; the table
    /// takes new ones after, small or large.
    @Test func removeAllThenReuse() {
        var table = ObjectIDTable<Int>()
        for size in [20, 5_000, 20] {
            for key in Int64(0)..<Int64(size) { table[Self.id(key * 37, 0, 1)] = Int(key) }
            #expect(table.count == size)
            #expect(table[Self.id(37, 0, 1)] == 1)
            table.removeAll()
            #expect(table.count == 0 && table.allValues.isEmpty)
            #expect(table[Self.id(37, 0, 1)] == nil)
            // The page written last is gone too (it is remembered).
            #expect(table[Self.id(Int64(size - 1) * 37, 0, 1)] == nil)
            #expect(table.removeValue(forKey: Self.id(Int64(size - 1) * 37, 0, 1)) == nil)
        }
    }

    /// A copy is a value: changing it leaves the original as it was.
    @Test func aCopyIsIndependent() {
        var original = ObjectIDTable<Int>()
        for key in Int64(0)..<40 { original[Self.id(key, 1, 1)] = Int(key) }
        var copy = original
        copy[Self.id(5, 1, 1)] = 500
        copy[Self.id(6, 1, 1)] = nil
        _ = copy.removeAll { _, value in value >= 16 && value < 100 }
        #expect(original.count == 40 && copy.count == 15)
        #expect(original[Self.id(5, 1, 1)] == 5 && original[Self.id(6, 1, 1)] == 6 && original[Self.id(30, 1, 1)] == 30)
        #expect(copy[Self.id(5, 1, 1)] == 500 && copy[Self.id(6, 1, 1)] == nil && copy[Self.id(30, 1, 1)] == nil)
    }

    /// Whichever side of a copy changes first, the other keeps its values:
    /// the original written to after the copy, emptied, and the copy still
    /// writing to the page it shared.
    @Test func eitherSideOfACopyChangesAlone() {
        var original = ObjectIDTable<Int>()
        for key in Int64(0)..<20 { original[Self.id(key, 0, 0)] = Int(key) }
        var copy = original
        original[Self.id(3, 0, 0)] = 300
        copy[Self.id(4, 0, 0)] = 400
        #expect(original[Self.id(3, 0, 0)] == 300 && original[Self.id(4, 0, 0)] == 4)
        #expect(copy[Self.id(3, 0, 0)] == 3 && copy[Self.id(4, 0, 0)] == 400)
        var third = copy
        third.removeAll()
        copy[Self.id(19, 0, 0)] = 1900
        #expect(third.count == 0 && third[Self.id(19, 0, 0)] == nil)
        #expect(copy.count == 20 && copy[Self.id(19, 0, 0)] == 1900 && original[Self.id(19, 0, 0)] == 19)
    }

    /// The original let go of after the copy: the copy goes on writing to
    /// the page it wrote last. A removal the closure declines, after
    /// changing the value in place, and a bulk removal on the original,
    /// leave the copy as it was.
    @Test func aCopyOutlivesTheOriginal() {
        var original = ObjectIDTable<Int>()
        for key in Int64(0)..<20 { original[Self.id(key, 1, 0)] = Int(key) }
        var copy = original
        copy[Self.id(17, 1, 0)] = 170
        original = ObjectIDTable()
        copy[Self.id(18, 1, 0)] = 180
        #expect(copy.count == 20 && copy[Self.id(17, 1, 0)] == 170 && copy[Self.id(18, 1, 0)] == 180)

        original = copy
        let declined = original.removeValue(forKey: Self.id(2, 1, 0)) { value in
            value = -2
            return false
        }
        #expect(declined == nil && original[Self.id(2, 1, 0)] == -2 && copy[Self.id(2, 1, 0)] == 2)
        let removed = original.removeAll { _, value in value < 10 }
        #expect(removed.count == 10 && original.count == 10 && copy.count == 20 && copy[Self.id(0, 1, 0)] == 0)
    }

    final class Box {}

    /// A table holds its values strongly, copies included, and lets go of
    /// each when it is removed, replaced, or the table is.
    @Test func valuesAreReleased() {
        weak var removed: Box?, replaced: Box?, kept: Box?
        do {
            var table = ObjectIDTable<Box>()
            var box = Box()
            removed = box
            table[Self.id(1, 0, 0)] = box
            box = Box()
            replaced = box
            table[Self.id(2, 0, 0)] = box
            box = Box()
            kept = box
            table[Self.id(3, 0, 0)] = box
            var copy = table
            copy[Self.id(1, 0, 0)] = nil
            copy[Self.id(2, 0, 0)] = Box()
            table = copy
            #expect(removed == nil && replaced == nil && kept != nil)
        }
        #expect(kept == nil)
    }

    /// A large sequential key range (as a store issues keys) is found again
    /// after growth, whether room was reserved first or not; emptying most
    /// of it leaves the rest findable.
    @Test func sequentialKeysAcrossGrowthAndShrinking() {
        var grown = ObjectIDTable<Int64>()
        var reserved = ObjectIDTable<Int64>()
        reserved.reserveCapacity(50_000)
        for key in Int64(1)...50_000 {
            grown[Self.id(key, 1, 3)] = key
            reserved[Self.id(key, 1, 3)] = key
        }
        #expect(grown.count == 50_000 && reserved.count == 50_000)
        #expect((Int64(1)...50_000).allSatisfy { grown[Self.id($0, 1, 3)] == $0 && reserved[Self.id($0, 1, 3)] == $0 })
        #expect(grown[Self.id(1, 0, 3)] == nil && grown[Self.id(1, 1, 2)] == nil)
        #expect(grown.removeAll { _, key in key % 1000 != 0 }.count == 49_950)
        #expect(grown.count == 50)
        #expect((Int64(1)...50_000).allSatisfy { grown[Self.id($0, 1, 3)] == ($0 % 1000 == 0 ? $0 : nil) })
    }

    /// IDs and objects hash for sets and dictionaries without `Hasher`;
    /// equal IDs hash alike, and IDs that differ only in their class, store
    /// or temporariness are told apart.
    @Test func objectIDsInSetsAndDictionaries() {
        let ids = (Int64(-20)...20).flatMap { key in
            [Self.id(key, 0, 0), Self.id(key, 0, 1), Self.id(key, 1, 0), Self.id(key, 1, 1)]
        }
        let set = Set(ids)
        #expect(set.count == ids.count)
        for id in ids {
            let twin = ManagedObjectID(objectClass: id.objectClass, storeNumber: id.storeNumber, key: id.key)
            #expect(set.contains(twin))
            #expect(twin._rawHashValue(seed: 7) == id._rawHashValue(seed: 7))
        }
        let objects = (0..<100).map { _ in Server() }
        let objectSet = Set(objects)
        #expect(objectSet.count == 100 && objects.allSatisfy(objectSet.contains))
        #expect(!objectSet.contains(Server()))
    }
}
