import Foundation

extension SQLSchema {
    /// Checks, when a store opens, that every table and column `model`
    /// reads is in the database: an entity's table with its key, version
    /// and property columns, and each many-to-many relationship's join
    /// table. A table or column another program dropped or renamed is then
    /// one typed error at open, instead of an error at whichever fetch or
    /// relationship fault first reads it.
    ///
    /// **Complexity:** one column listing per table of the model.
    /// - Throws: ``StoreError/damagedStore(path:reason:)`` naming the
    ///   entity and the missing table or column.
    static func checkTables(of model: ManagedObjectModel, in db: any SQLDatabase, location: String) throws {
        for root in model.entities where root.superentity == nil {
            guard try db.tableExists(root.name) else {
                throw StoreError.damagedStore(path: location, reason: "the table of its entity \(root.name) is missing")
            }
            let present = Set(try db.columnNames(root.name))
            let needed = root.isInHierarchy
                ? [primaryKey, version, entityColumn] + tableColumns(root).map(\.name)
                : [primaryKey, version] + columns(root)
            if let missing = needed.first(where: { !present.contains($0) }) {
                throw StoreError.damagedStore(path: location, reason: "the table of its entity \(root.name) has no column \(missing)")
            }
            for (_, column) in orderColumns(model).filter({ $0.table == root.name }) where !present.contains(column) {
                throw StoreError.damagedStore(path: location, reason: "the table of its entity \(root.name) has no column \(column) for the order of an ordered relationship")
            }
            for entity in root.selfAndDescendants {
                for relationship in entity.relationships {
                    guard let join = joinTable(relationship, of: entity), join.relationshipIsSource else { continue }
                    let name = join.name.trimmingCharacters(in: ["\""])
                    guard try db.tableExists(name), Set(try db.columnNames(name)).isSuperset(of: ["source", "destination"]) else {
                        throw StoreError.damagedStore(path: location, reason: "the join table \(name) of \(entity.name).\(relationship.name) is missing or has lost a column")
                    }
                }
            }
        }
    }
}
