@testable import Coherence
import Foundation
import Testing

/// A snapshot holds its values either in its own buffer (as a fetch makes
/// them, one allocation per row) or in the array it was made from (as a
/// save and custom stores make them); both read the same.
@Suite("Snapshot")
struct SnapshotTests {
    static let id = ManagedObjectID(objectClass: Server.self, storeNumber: 7, key: 42)
    static let values: [StoreValue] = [.string("alpha"), .integer(3), .null, .data(Data([1, 2, 3])), .double(2.5)]

    static func built(_ values: [StoreValue]) -> Snapshot {
        Snapshot(objectID: id, version: 9, capacity: values.count) { append in
            for value in values { append(value) }
        }
    }

    @Test func aBuiltSnapshotAndAnArraySnapshotReadTheSame() {
        let fromArray = Snapshot(objectID: Self.id, values: Self.values, version: 9)
        let built = Self.built(Self.values)
        for snapshot in [fromArray, built] {
            #expect(snapshot.objectID == Self.id)
            #expect(snapshot.version == 9)
            #expect(Array(snapshot.values) == Self.values)
            #expect(snapshot.values.count == Self.values.count)
            #expect(snapshot.values[1] == .integer(3))
            #expect(snapshot.values.withUnsafeBufferPointer { Array($0) } == Self.values)
        }
        #expect(fromArray.values == built.values)
        #expect(built.values != Self.built(Array(Self.values.dropLast())).values)
    }

    /// `replacingValues` makes a new snapshot; the original is unchanged.
    @Test func replacingValuesLeavesTheOriginalAlone() {
        let original = Self.built(Self.values)
        let changed = original.replacingValues { $0[0] = .string("beta") }
        #expect(changed.values[0] == .string("beta"))
        #expect(original.values[0] == .string("alpha"))
        #expect(changed.objectID == original.objectID && changed.version == original.version)
    }

    /// A built snapshot's values are released with its last holder.
    @Test func valuesAreReleasedWithTheSnapshot() {
        weak var storage: Snapshot.Storage?
        do {
            let snapshot = Self.built(Self.values)
            storage = snapshot.storage
            #expect(storage != nil)
        }
        #expect(storage == nil)
    }

    /// Appending past the capacity is a programmer error in Coherence's
    /// stores: it traps, naming the entity.
    @Test func appendingPastTheCapacityTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Snapshot(objectID: ManagedObjectID(objectClass: Server.self, storeNumber: 7, key: 42), version: 1, capacity: 1) { append in
                append(.integer(1))
                append(.integer(2))
            }
        }
        #expect(result.standardError.contains("Server"), "\(result.standardError)")
    }
}
