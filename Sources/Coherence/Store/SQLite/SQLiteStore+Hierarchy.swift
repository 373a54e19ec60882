import Foundation
internal import GRDB
internal import GRDBSQLite

// Reading rows of entity hierarchies (see `SQLiteSchema+Hierarchy.swift`):
// each row becomes a snapshot of its concrete entity, and destinations of
// relationships to a hierarchy get IDs naming their concrete entity.
extension SQLiteStore {
    /// A snapshot from a row selected with ``SQLiteSchema/hierarchySelectList(_:alias:)``
    /// starting at column `offset`, for an entity in a hierarchy (the row's
    /// `Z_ENT` tells its concrete entity) or referring to one.
    func hierarchySnapshot(from statement: SQLiteStatement, entity requested: EntityDescription, offset: Int) throws -> Snapshot {
        let first = CInt(offset)
        let key = sqlite3_column_int64(statement, first)
        let version = sqlite3_column_int64(statement, first + 1)
        let entity = requested.isInHierarchy
            ? try concreteEntity(named: statement, column: first + 2, root: requested.rootEntity)
            : requested
        let layout = sql(entity).layout ?? SQLiteSchema.rowLayout(entity)
        var values: [StoreValue] = []
        values.reserveCapacity(entity.propertyCount)
        for (index, slot) in entity.attributeSlots.enumerated() {
            if entity.attributes[index].isTransient {
                values.append(entity.attributes[index].defaultValue ?? .null)
                continue
            }
            do {
                let value = try StoreValue(sqliteStatement: statement, index: first + layout.columns[index], type: slot.attributeType)
                if case .null = value, slot.readsNullAsNaN {
                    values.append(.double(.nan))
                } else {
                    values.append(value)
                }
            } catch {
                throw StoreError.invalidStoredValue(entity: entity.name, property: entity.attributes[index].name, reason: "\(error)")
            }
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                values.append(.toManyFault)
                continue
            }
            let column = first + layout.columns[relationship.index]
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL:
                values.append(.null)
            case SQLITE_INTEGER:
                var destinationClass = relationship.destinationType
                let nameColumn = layout.entityNames[relationship.index]
                if nameColumn >= 0, let text = sqlite3_column_text(statement, first + nameColumn),
                   let destination = model.entitiesByName[String(cString: text)] {
                    destinationClass = destination.managedObjectClass
                }
                values.append(.objectID(makeObjectID(destinationClass, key: sqlite3_column_int64(statement, column))))
            default:
                throw StoreError.invalidStoredValue(entity: entity.name, property: relationship.name,
                                                    reason: "a to-one relationship's column holds a row key, found something else")
            }
        }
        return Snapshot(objectID: makeObjectID(entity.managedObjectClass, key: key), values: values, version: version)
    }

    /// The entity whose name is in `column`: `root` or one of its sub-entities.
    private func concreteEntity(named statement: SQLiteStatement, column: CInt, root: EntityDescription) throws -> EntityDescription {
        guard let text = sqlite3_column_text(statement, column),
              let entity = model.entitiesByName[String(cString: text)], entity.isKind(of: root) else {
            throw StoreError.invalidStoredValue(entity: root.name, property: SQLiteSchema.entityColumn,
                                                reason: "the row's entity is not \(root.name) or one of its sub-entities")
        }
        return entity
    }

    /// The ID of row `key` of the entity named `name`.
    private func objectID(key: Int64, entityName name: String?, fallback: ManagedObject.Type) -> ManagedObjectID {
        makeObjectID(name.flatMap { model.entitiesByName[$0]?.managedObjectClass } ?? fallback, key: key)
    }

    /// The IDs of the rows `query` (`FROM … AS t0 …`) selects from a
    /// hierarchy's table, each naming its concrete entity.
    func hierarchyObjectIDs(_ query: String, arguments: StatementArguments, in db: Database) throws -> [ManagedObjectID] {
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let ent = SQLiteSchema.quote(SQLiteSchema.entityColumn)
        return try Row.fetchAll(db, sql: "SELECT t0.\(pk), t0.\(ent) \(query)", arguments: arguments).map { row in
            objectID(key: row[0], entityName: row[1], fallback: ManagedObject.self)
        }
    }

    /// The destinations of a to-many relationship whose destination entity
    /// has sub-entities, each naming its concrete entity.
    func hierarchyRelatedObjectIDs(of objectID: ManagedObjectID, entity: EntityDescription, relationship: RelationshipDescription,
                                   in db: Database) throws -> Set<ManagedObjectID> {
        let pk = SQLiteSchema.quote(SQLiteSchema.primaryKey)
        let ent = SQLiteSchema.quote(SQLiteSchema.entityColumn)
        let destination = SQLiteSchema.table(named: relationship.destinationRootEntityName)
        let sql = if let join = SQLiteSchema.joinTable(relationship, of: entity) {
            "SELECT d.\(pk), d.\(ent) FROM \(join.name) AS j JOIN \(destination) AS d ON d.\(pk) = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) = ?"
        } else {
            "SELECT d.\(pk), d.\(ent) FROM \(destination) AS d WHERE d.\(SQLiteSchema.quote(relationship.inverseName)) = ?"
        }
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [objectID.key])
        return Set(rows.map { row in self.objectID(key: row[0], entityName: row[1], fallback: relationship.destinationType) })
    }
}
