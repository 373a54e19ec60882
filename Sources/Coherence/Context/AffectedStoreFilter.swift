import Foundation

/// Which objects a request limited to some stores
/// (``FetchRequest/affectedStores``) may return: those saved in one of the
/// stores, and unsaved insertions when the coordinator's first store is
/// among them (Core Data assigns a new object to the first store that can
/// hold it).
struct AffectedStoreFilter {
    let storeNumbers: Set<UInt32>
    let includesUnsaved: Bool

    func contains(_ id: ManagedObjectID) -> Bool {
        id.isTemporaryID ? includesUnsaved : storeNumbers.contains(id.storeNumber)
    }

    /// `request` without its store limit and window, which are applied to
    /// its results.
    func unwindowed<Result>(_ request: FetchRequest<Result>) -> FetchRequest<Result> {
        let copy = request.copy()
        copy.affectedStores = nil
        copy.fetchLimit = 0
        copy.fetchOffset = 0
        return copy
    }
}

extension ManagedObjectContext {
    /// The filter for `stores`; `nil` when they include every store of the
    /// coordinator, so nothing needs filtering.
    func affectedStoreFilter(_ stores: [any PersistentStore]) -> AffectedStoreFilter? {
        let loaded = coordinator.persistentStores
        if loaded.allSatisfy({ store in stores.contains { $0 === store } }) { return nil }
        let includesUnsaved = loaded.first.map { first in stores.contains { $0 === first } } ?? false
        return AffectedStoreFilter(storeNumbers: Set(stores.map { StoreNumbers.number(for: $0.identifier) }), includesUnsaved: includesUnsaved)
    }

    /// Traps when a typed request asks for results other than its objects,
    /// naming the types, where Core Data's cast of the results would fail.
    func requireObjectResults<Result: ManagedObject>(_ request: FetchRequest<Result>) {
        let resultType = request.resultType
        guard resultType == .managedObjectResultType else {
            fatalError("Coherence: a FetchRequest<\(Result.self)> returns \(Result.self) objects, but its resultType is \(resultType); "
                       + "make it a FetchRequest<ManagedObjectID>, FetchRequest<NSDictionary>, FetchRequest<NSNumber> or FetchRequest<FetchRequestResult>")
        }
    }
}
