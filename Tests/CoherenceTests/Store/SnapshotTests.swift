@testable import Coherence
import Foundation
import Testing

/// A snapshot holds its values either in its own buffer, as its layout says
/// (as a fetch makes them: one allocation per row, fixed-width values in a
/// word), or in the array it was made from (as a save and custom stores make
/// them); both read the same.
@Suite("Snapshot")
struct SnapshotTests {
    static let id = ManagedObjectID(objectClass: Server.self, storeNumber: 7, key: 42)
    static let date = Date(timeIntervalSinceReferenceDate: 123_456.75)
    /// Every kind of slot, each with a value and with `.null`; 70 values,
    /// so that the null bitmap takes two words.
    static let kinds: [SnapshotLayout.Kind] = Array(repeating: [.integer, .double, .bool, .date, .whole, .whole, .whole], count: 10).flatMap { $0 }
    static let values: [StoreValue] = (0..<10).flatMap { round -> [StoreValue] in
        let present: [StoreValue] = [.integer(Int64(round) - 5), .double(Double(round) / 3), .bool(round % 2 == 0), .date(date.addingTimeInterval(Double(round))),
                                     .string("row \(round) " + String(repeating: "x", count: round * 10)), .data(Data(repeating: UInt8(round), count: round)),
                                     .objectIDs([ManagedObjectID(objectClass: FeedItem.self, storeNumber: 7, key: Int64(round))])]
        // Every third value of a round is null.
        return present.enumerated().map { $0.offset % 3 == round % 3 ? .null : $0.element }
    }

    static func built(_ values: [StoreValue], _ kinds: [SnapshotLayout.Kind] = kinds) -> Snapshot {
        Snapshot(objectID: id, version: 9, layout: SnapshotLayout(kinds)) { builder in
            for value in values { builder.append(value) }
        }
    }

    @Test func aBuiltSnapshotAndAnArraySnapshotReadTheSame() {
        let fromArray = Snapshot(objectID: Self.id, values: Self.values, version: 9)
        let built = Self.built(Self.values)
        for snapshot in [fromArray, built] {
            #expect(snapshot.objectID == Self.id)
            #expect(snapshot.version == 9)
            #expect(Array(snapshot.values) == Self.values)
            #expect(snapshot.values.count == 70)
            #expect(snapshot.values[7] == .integer(-4))
            #expect(snapshot.values[69] == .null)
        }
        #expect(fromArray.values == built.values)
        #expect(built.values != Self.built(Array(Self.values.dropLast()), Array(Self.kinds.dropLast())).values)
    }

    /// Special floating-point values keep their bits.
    @Test func floatingPointValuesKeepTheirBits() {
        let values: [StoreValue] = [.double(.nan), .double(-0.0), .double(.infinity), .date(Date(timeIntervalSinceReferenceDate: -1e9))]
        let built = Self.built(values, [.double, .double, .double, .date])
        guard case .double(let nan) = built.values[0], case .double(let zero) = built.values[1] else {
            Issue.record("not doubles: \(built)")
            return
        }
        #expect(nan.isNaN)
        #expect(zero == 0 && zero.sign == .minus)
        #expect(Array(built.values.dropFirst(2)) == Array(values.dropFirst(2)))
    }

    /// `replacingValues` makes a new snapshot; the original is unchanged.
    @Test func replacingValuesLeavesTheOriginalAlone() {
        let original = Self.built(Self.values)
        let changed = original.replacingValues { $0[0] = .integer(99) }
        #expect(changed.values[0] == .integer(99))
        #expect(original.values[0] == .null)
        #expect(Array(changed.values.dropFirst()) == Array(original.values.dropFirst()))
        #expect(changed.objectID == original.objectID && changed.version == original.version)
    }

    /// A built snapshot is released with its last holder.
    @Test func theBufferIsReleasedWithTheSnapshot() {
        weak var storage: Snapshot.Storage?
        do {
            let snapshot = Self.built(Self.values)
            storage = snapshot.storage
            #expect(storage != nil)
        }
        #expect(storage == nil)
    }

    /// Appending past the layout's slots, or a value of another kind than
    /// its slot's, is a programmer error in Coherence's stores: it traps,
    /// naming the entity.
    @Test func appendingPastTheLayoutTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Snapshot(objectID: ManagedObjectID(objectClass: Server.self, storeNumber: 7, key: 42), version: 1,
                         layout: SnapshotLayout([.integer])) { builder in
                builder.append(integer: 1)
                builder.append(.integer(2))
            }
        }
        #expect(result.standardError.contains("Server"), "\(result.standardError)")
    }

    @Test func appendingAValueOfAnotherKindTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Snapshot(objectID: ManagedObjectID(objectClass: Server.self, storeNumber: 7, key: 42), version: 1,
                         layout: SnapshotLayout([.integer])) { builder in
                builder.append(.string("one"))
            }
        }
        #expect(result.standardError.contains("Server"), "\(result.standardError)")
    }
}
