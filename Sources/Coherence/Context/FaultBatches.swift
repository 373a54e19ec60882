/// Faults fetched with a ``FetchRequest/fetchBatchSize``: each remembers the
/// fetch result it came from and its place in it, so that firing one loads
/// the values of the next batch of that result with one store query, as
/// Core Data's batched fetches do. Confined to the context's queue.
///
/// **Complexity:** O(1) to look up a fault's batch; memory O(fetched IDs)
/// until their values are loaded.
struct FaultBatches {
    /// One batched fetch result: its IDs in order, and the batch size.
    private final class Result {
        let ids: [ManagedObjectID]
        let size: Int

        init(ids: [ManagedObjectID], size: Int) {
            self.ids = ids
            self.size = size
        }
    }

    private var places: [ObjectIdentifier: (result: Result, index: Int)] = [:]

    /// Remembers the faults of one fetch result; `objects[i]` has `ids[i]`.
    /// Objects whose values are loaded already are left out.
    mutating func add(_ objects: [ManagedObject], ids: [ManagedObjectID], size: Int) {
        let result = Result(ids: ids, size: size)
        for (index, object) in objects.enumerated() where object.isFault && object._snapshot == nil {
            places[ObjectIdentifier(object)] = (result, index)
        }
    }

    /// The IDs of the batch of its fetch result that holds `object`: fixed
    /// slices of the result (positions 0 to size - 1, size to 2 × size - 1, …,
    /// so that walking the result in any direction costs one query per
    /// batch), or `nil` for a fault fetched without a batch size.
    mutating func takeBatch(containing object: ManagedObject) -> [ManagedObjectID]? {
        guard let place = places.removeValue(forKey: ObjectIdentifier(object)) else { return nil }
        let ids = place.result.ids, size = place.result.size
        let start = place.index / size * size
        return Array(ids[start..<min(start + size, ids.count)])
    }

    /// Forgets `object` (its values were loaded, or it left the context).
    mutating func forget(_ object: ManagedObject) {
        places[ObjectIdentifier(object)] = nil
    }

    var isEmpty: Bool { places.isEmpty }

    mutating func removeAll() {
        places = [:]
    }
}
