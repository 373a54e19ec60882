import Foundation

// Reading rows of entity hierarchies (see `SQLSchema+Hierarchy.swift`):
// each row becomes a snapshot of its concrete entity, and destinations of
// relationships to a hierarchy get IDs naming their concrete entity.
extension SQLStore {
    /// A snapshot from a row selected with ``SQLSchema/hierarchySelectList(_:alias:)``
    /// starting at column `offset`, for an entity in a hierarchy (the row's
    /// `Z_ENT` tells its concrete entity) or referring to one.
    func hierarchySnapshot<Row: SQLRow>(from row: Row, entity requested: EntityDescription, offset first: Int) throws -> Snapshot {
        let key = row.int64(first)
        let version = row.int64(first + 1)
        let entity = requested.isInHierarchy
            ? try concreteEntity(named: row, column: first + 2, root: requested.rootEntity)
            : requested
        let layout = sql(entity).layout ?? SQLSchema.rowLayout(entity)
        var values: [StoreValue] = []
        values.reserveCapacity(entity.propertyCount)
        for (index, slot) in entity.attributeSlots.enumerated() {
            if entity.attributes[index].isTransient {
                values.append(entity.attributes[index].defaultValue ?? .null)
                continue
            }
            values.append(try attributeValue(row, first + layout.columns[index], slot: slot, entity: entity, index: index))
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                values.append(.toManyFault)
                continue
            }
            var destinationClass = relationship.destinationType
            let nameColumn = layout.entityNames[relationship.index]
            if nameColumn >= 0, row.columnType(first + nameColumn) == .text,
               let destination = model.entitiesByName[row.string(first + nameColumn)] {
                destinationClass = destination.managedObjectClass
            }
            values.append(try toOneValue(row, first + layout.columns[relationship.index], relationship: relationship,
                                         destination: destinationClass, entity: entity))
        }
        return Snapshot(objectID: makeObjectID(entity.managedObjectClass, key: key), values: values, version: version)
    }

    /// The entity whose name is in `column`: `root` or one of its sub-entities.
    private func concreteEntity<Row: SQLRow>(named row: Row, column: Int, root: EntityDescription) throws -> EntityDescription {
        guard row.columnType(column) == .text,
              let entity = model.entitiesByName[row.string(column)], entity.isKind(of: root) else {
            throw StoreError.invalidStoredValue(entity: root.name, property: SQLSchema.entityColumn,
                                                reason: "the row's entity is not \(root.name) or one of its sub-entities")
        }
        return entity
    }

    /// The ID of the row whose key is in column 0 and entity name in column 1.
    private func objectID(_ row: any SQLRow, fallback: ManagedObject.Type) -> ManagedObjectID {
        let name = row.columnType(1) == .text ? row.string(1) : nil
        return makeObjectID(name.flatMap { model.entitiesByName[$0]?.managedObjectClass } ?? fallback, key: row.int64(0))
    }

    /// The IDs of the rows `query` (`FROM … AS t0 …`) selects from a
    /// hierarchy's table, each naming its concrete entity.
    func hierarchyObjectIDs(_ query: String, arguments: [StoreValue], in db: any SQLDatabase) throws -> [ManagedObjectID] {
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let ent = SQLSchema.quote(SQLSchema.entityColumn)
        var ids: [ManagedObjectID] = []
        try db.forEachRow("SELECT t0.\(pk), t0.\(ent) \(query)", arguments) { ids.append(objectID($0, fallback: ManagedObject.self)) }
        return ids
    }

    /// The destinations of a to-many relationship whose destination entity
    /// has sub-entities, each naming its concrete entity.
    func hierarchyRelatedObjectIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationship: RelationshipDescription,
                                   in db: any SQLDatabase) throws -> [ManagedObjectID] {
        let pk = SQLSchema.quote(SQLSchema.primaryKey)
        let ent = SQLSchema.quote(SQLSchema.entityColumn)
        let destination = SQLSchema.table(named: relationship.destinationRootEntityName)
        let sql = if let join = SQLSchema.joinTable(relationship, of: entity) {
            "SELECT d.\(pk), d.\(ent) FROM \(join.name) AS j JOIN \(destination) AS d ON d.\(pk) = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ?"
        } else {
            "SELECT d.\(pk), d.\(ent) FROM \(destination) AS d WHERE d.\(SQLSchema.quote(relationship.inverseName)) = ?"
                + SQLSchema.orderClause(relationship, alias: "d")
        }
        var ids: [ManagedObjectID] = []
        try db.forEachRow(sql, [.integer(objectID.key)]) { ids.append(self.objectID($0, fallback: relationship.destinationType)) }
        return ids
    }
}
