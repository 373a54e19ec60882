@testable import Coherence

/// A custom store of a test that wraps another store: everything but what
/// the test changes (its `save`) goes to `base`.
protocol WrappingStore: PersistentStore {
    var base: any PersistentStore { get }
}

extension WrappingStore {
    var identifier: String { base.identifier }
    func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? { try base.snapshot(for: objectID) }
    func snapshots(of entity: EntityDescription) throws -> [Snapshot] { try base.snapshots(of: entity) }
    func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        try base.relatedObjectIDs(of: objectID, relationship: relationship)
    }
    func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        try base.permanentIDs(for: objectIDs, entities: entities)
    }
    func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? { try base.fetch(request) }
    func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? { try base.fetchObjectIDs(request) }
    func count(_ request: StoreFetchRequest) throws -> Int? { try base.count(request) }
}
