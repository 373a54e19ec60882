import Foundation

/// A store that keeps its rows in memory for the life of the coordinator.
/// Useful for tests, previews and caches; nothing survives the process.
///
/// **Complexity:** reading one object is O(1); reading an entity is O(n) in
/// its objects; a save is O(changes).
public final class InMemoryStore: PersistentStore {
    public let identifier: String
    /// `identifier`'s number, which this store's object IDs carry.
    let storeNumber: UInt32
    public var type: String { "InMemory" }

    private struct Table {
        var rows: [Int64: Snapshot] = [:]
        var nextKey: Int64 = 1
    }

    /// Rows by entity name. A hierarchy of entities takes its keys from its
    /// root entity's table, so that they never collide within it.
    private let tables = Locked<[String: Table]>([:])

    /// Creates an empty store.
    public init(identifier: String = UUID().uuidString) {
        self.identifier = identifier
        storeNumber = StoreNumbers.number(for: identifier)
    }

    public func snapshot(for objectID: ManagedObjectID) throws -> Snapshot? {
        guard objectID.storeNumber == storeNumber else { return nil }
        return tables.withLock { $0[objectID.entityName]?.rows[objectID.key] }
    }

    public func snapshots(of entity: EntityDescription) throws -> [Snapshot] {
        tables.withLock { tables in
            guard let table = tables[entity.name] else { return [] }
            return table.rows.keys.sorted().map { table.rows[$0]! }
        }
    }

    public func relatedObjectIDs(of objectID: ManagedObjectID, relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        // Like a query over rows: an object that is gone has no destinations.
        try snapshot(for: objectID)?.values[relationship.index].referencedIDList ?? []
    }

    public func permanentIDs(for objectIDs: [ManagedObjectID], entities: [EntityDescription]) throws -> [ManagedObjectID] {
        tables.withLock { tables in
            zip(objectIDs, entities).map { id, entity in
                if !id.isTemporaryID { return id }
                let root = entity.rootEntity.name
                let key = tables[root, default: Table()].nextKey
                tables[root, default: Table()].nextKey += 1
                return ManagedObjectID(objectClass: entity.managedObjectClass, storeNumber: storeNumber, key: key)
            }
        }
    }

    public func save(_ request: StoreSaveRequest) throws -> StoreSaveResult {
        try tables.withLock { tables in
            // Check everything before changing anything.
            var conflicts: [StoreConflictError.Conflict] = []
            for update in request.updated {
                guard update.objectID.storeNumber == storeNumber else { throw StoreError.objectNotFound(update.objectID) }
                let row = tables[update.entity.name]?.rows[update.objectID.key]
                if row?.version != update.baseVersion {
                    conflicts.append(.init(objectID: update.objectID, expectedVersion: update.baseVersion, current: row))
                }
            }
            for delete in request.deleted where delete.objectID.storeNumber == storeNumber {
                if let row = tables[delete.entity.name]?.rows[delete.objectID.key], row.version != delete.baseVersion {
                    conflicts.append(.init(objectID: delete.objectID, expectedVersion: delete.baseVersion, current: row))
                }
            }
            if !conflicts.isEmpty { throw StoreConflictError(conflicts: conflicts) }
            // Each constraint's stored values, indexed once per save.
            var lookups: [String: [[ExactValue]: [Snapshot]]] = [:]
            let constraintConflicts = try UniquenessCheck.conflicts(in: request) { entity, indexes, values in
                let name = "\(entity.name) \(indexes)"
                if lookups[name] == nil {
                    // A constraint holds over the entity and its sub-entities.
                    let rows = entity.selfAndDescendants.flatMap { tables[$0.name]?.rows.values ?? [:].values }
                        .sorted { $0.objectID.key < $1.objectID.key }
                    lookups[name] = Dictionary(grouping: rows) { row in indexes.map { ExactValue(row.values[$0]) } }
                }
                return lookups[name]?[values.map(ExactValue.init)] ?? []
            }
            if !constraintConflicts.isEmpty { throw StoreConstraintError(conflicts: constraintConflicts) }
            var result = StoreSaveResult()
            for insert in request.inserted {
                if insert.objectID.isTemporaryID {
                    let root = insert.entity.rootEntity.name
                    let key = tables[root, default: Table()].nextKey
                    tables[root, default: Table()].nextKey += 1
                    result.permanentIDs[insert.objectID] = ManagedObjectID(
                        objectClass: insert.entity.managedObjectClass, storeNumber: storeNumber, key: key)
                } else if insert.objectID.storeNumber != storeNumber {
                    throw StoreError.objectNotFound(insert.objectID)
                }
            }
            let mapping = result.permanentIDs
            for insert in request.inserted {
                let id = mapping[insert.objectID] ?? insert.objectID
                let snapshot = Snapshot(objectID: id, values: try insert.values.map { try $0.remappedForSave(mapping) }, version: 1)
                tables[insert.entity.name, default: Table()].rows[id.key] = snapshot
                result.snapshots[id] = snapshot
            }
            for update in request.updated {
                let old = tables[update.entity.name]!.rows[update.objectID.key]!
                let snapshot = Snapshot(objectID: update.objectID, values: try update.values.map { try $0.remappedForSave(mapping) },
                                        version: old.version + 1)
                tables[update.entity.name]!.rows[update.objectID.key] = snapshot
                result.snapshots[update.objectID] = snapshot
            }
            for delete in request.deleted where delete.objectID.storeNumber == storeNumber {
                tables[delete.entity.name]?.rows[delete.objectID.key] = nil
            }
            return result
        }
    }
}
