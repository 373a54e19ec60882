@testable import Coherence
import PropertyBased
import Testing

/// The identity map's and the row cache's hash table agrees with a
/// `Dictionary` under random insertions, replacements and removals, with
/// keys dense enough that entries share runs of slots (so that removals
/// shift entries back across wrap-arounds).
@Suite("Object ID table")
struct ObjectIDTableTests {
    enum Operation {
        case set(key: Int64, classIndex: Int, store: UInt32, value: Int)
        case remove(key: Int64, classIndex: Int, store: UInt32)
        case removeOdd
    }

    static let classes: [ManagedObject.Type] = [Server.self, FeedItem.self]

    static func id(_ key: Int64, _ classIndex: Int, _ store: UInt32) -> ManagedObjectID {
        ManagedObjectID(objectClass: classes[classIndex], storeNumber: store, key: key)
    }

    static let operations: Generator<Operation, some SendableSequenceType> = Gen.oneOf(
        zip(Gen.int64(in: 0...200), Gen.int(in: 0...1), Gen.uint32(in: 0...2), Gen.int(in: 0...1_000))
            .map { Operation.set(key: $0, classIndex: $1, store: $2, value: $3) },
        zip(Gen.int64(in: 0...200), Gen.int(in: 0...1), Gen.uint32(in: 0...2))
            .map { Operation.remove(key: $0, classIndex: $1, store: $2) },
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
                    let removed = table.removeAll { _, value in value % 2 == 1 }
                    let expected = model.values.filter { $0 % 2 == 1 }
                    model = model.filter { $0.value % 2 == 0 }
                    #expect(removed.sorted() == expected.sorted())
                }
                #expect(table.count == model.count)
            }
            for (id, value) in model { #expect(table[id] == value) }
            for key in Int64(0)...200 { for classIndex in 0...1 { for store in UInt32(0)...2 {
                let id = Self.id(key, classIndex, store)
                #expect(table[id] == model[id])
            } } }
            var seen: [ManagedObjectID: Int] = [:]
            table.forEach { id, value in seen[id] = value }
            #expect(seen == model)
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
        #expect(table.withValue(forKey: Self.id(5, 0, 1)) { value in value += 10; return value } == 15)
        #expect(table[Self.id(5, 0, 1)] == 15)
        #expect(table.count == 99)
    }

    /// A large sequential key range (as a store issues keys) is found again
    /// after growth, and reserving room first gives the same table.
    @Test func sequentialKeysAcrossGrowth() {
        var grown = ObjectIDTable<Int64>()
        var reserved = ObjectIDTable<Int64>(minimumCapacity: 50_000)
        for key in Int64(1)...50_000 {
            grown[Self.id(key, 1, 3)] = key
            reserved[Self.id(key, 1, 3)] = key
        }
        #expect(grown.count == 50_000 && reserved.count == 50_000)
        #expect((Int64(1)...50_000).allSatisfy { grown[Self.id($0, 1, 3)] == $0 && reserved[Self.id($0, 1, 3)] == $0 })
        #expect(grown[Self.id(1, 0, 3)] == nil && grown[Self.id(1, 1, 2)] == nil)
    }
}
