import Foundation

// Fetch requests, counts and prefetching as SQL queries.
extension SQLStore {
    /// `FROM … WHERE … ORDER BY … LIMIT …` for a request, with its arguments.
    func query(for request: StoreFetchRequest) throws -> (sql: String, arguments: [StoreValue]) {
        let entity = request.entity
        var sql = "FROM \(SQLSchema.table(entity)) AS t0"
        var arguments: [StoreValue] = []
        var conditions: [String] = []
        if let restriction = SQLSchema.entityRestriction(entity, subentities: request.includesSubentities) {
            conditions.append(restriction)
        }
        if let predicate = request.predicate, let variable = request.variable {
            var compiler = SQLPredicateCompiler(model: model, storeNumber: storeNumber, dialect: dialect, entity: entity)
            conditions.append(try compiler.condition(for: predicate, variable: variable))
            arguments = compiler.arguments
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.map { conditions.count > 1 ? "(\($0))" : $0 }.joined(separator: " AND ") }
        if request.sortDescriptors.contains(where: { !dialect.canOrder($0.strings) }) {
            throw SQLDialectCannotEvaluate(construct: "a string order", entity: entity.name)
        }
        let order = request.sortDescriptors.map { descriptor in
            let column = SQLSchema.orderedColumn(entity.attributes[descriptor.propertyIndex], strings: descriptor.strings, alias: "t0", dialect: dialect)
            return "\(column) \(dialect.direction(ascending: descriptor.ascending))"
        } + ["t0.\(SQLSchema.quote(SQLSchema.primaryKey))"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments += [.integer(request.fetchLimit > 0 ? Int64(request.fetchLimit) : dialect.noLimit), .integer(Int64(request.fetchOffset))]
        }
        return (sql, arguments)
    }

    /// `query(for:)`, or `nil` when the dialect cannot evaluate the
    /// predicate (the context then does, see ``SQLDialectCannotEvaluate``).
    private func queryIfEvaluable(for request: StoreFetchRequest) throws -> (sql: String, arguments: [StoreValue])? {
        do {
            return try query(for: request)
        } catch is SQLDialectCannotEvaluate {
            return nil
        }
    }

    package func fetch(_ request: StoreFetchRequest) throws -> [Snapshot]? {
        guard let (query, arguments) = try queryIfEvaluable(for: request) else { return nil }
        let entity = request.entity
        return try read { db in
            let snapshots = try snapshots(db, "SELECT \(SQLSchema.selectList(entity, alias: "t0")) \(query)", arguments, entity: entity)
            noteRowsRead(snapshots.count)
            return snapshots
        }
    }

    package func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID]? {
        guard let (query, arguments) = try queryIfEvaluable(for: request) else { return nil }
        let entity = request.entity
        return try read { db in
            if entity.isInHierarchy { return try hierarchyObjectIDs(query, arguments: arguments, in: db) }
            let keys = try db.int64s("SELECT t0.\(SQLSchema.quote(SQLSchema.primaryKey)) \(query)", arguments)
            return keys.map { makeObjectID(entity.managedObjectClass, key: $0) }
        }
    }

    package func count(_ request: StoreFetchRequest) throws -> Int? {
        guard let (query, arguments) = try queryIfEvaluable(for: request) else { return nil }
        return try read { db in
            Int(try db.int64("SELECT COUNT(*) FROM (SELECT 1 \(query)) AS counted", arguments) ?? 0)
        }
    }

    package func snapshots(for objectIDs: [ManagedObjectID]) throws -> [Snapshot] {
        var byEntity: [ObjectIdentifier: (EntityDescription, [Int64])] = [:]
        for id in objectIDs where id.storeNumber == storeNumber {
            let entity = try entity(of: id)
            byEntity[ObjectIdentifier(entity), default: (entity, [])].1.append(id.key)
        }
        guard !byEntity.isEmpty else { return [] }
        let wanted = byEntity.values.contains { $0.0.isInHierarchy } ? Set(objectIDs) : []
        return try read { db in
            var snapshots: [Snapshot] = []
            for (entity, keys) in byEntity.values {
                for chunk in chunked(keys) {
                    let sql = "SELECT \(SQLSchema.selectList(entity, alias: "t0")) FROM \(SQLSchema.table(entity)) AS t0 WHERE t0.\(SQLSchema.quote(SQLSchema.primaryKey)) IN (\(placeholders(chunk.count)))"
                    let read = try self.snapshots(db, sql, chunk.map { .integer($0) }, entity: entity)
                    snapshots += entity.isInHierarchy ? read.filter { wanted.contains($0.objectID) } : read
                }
            }
            noteRowsRead(snapshots.count)
            return snapshots
        }
    }

    package func relatedSnapshots(of objectIDs: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [Snapshot]] {
        let owners = objectIDs.filter { $0.storeNumber == storeNumber }
        guard let first = owners.first else { return [:] }
        let ownerEntity = try entity(of: first)
        guard let destination = model.entitiesByName[relationship.destinationEntityName] else {
            throw StoreError.unknownEntity(relationship.destinationEntityName)
        }
        let ownersByKey = Dictionary(owners.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return try read { db in
            var result: [ManagedObjectID: [Snapshot]] = Dictionary(uniqueKeysWithValues: owners.map { ($0, []) })
            for chunk in chunked(Array(ownersByKey.keys)) {
                let list = placeholders(chunk.count)
                let sql: String
                if let join = SQLSchema.joinTable(relationship, of: ownerEntity) {
                    sql = "SELECT j.\(join.sourceColumn), \(SQLSchema.selectList(destination, alias: "t0")) FROM \(join.name) AS j JOIN \(SQLSchema.table(destination)) AS t0 ON t0.\(SQLSchema.quote(SQLSchema.primaryKey)) = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN (\(list))"
                } else {
                    sql = "SELECT t0.\(SQLSchema.quote(relationship.inverseName)), \(SQLSchema.selectList(destination, alias: "t0")) FROM \(SQLSchema.table(destination)) AS t0 WHERE t0.\(SQLSchema.quote(relationship.inverseName)) IN (\(list))"
                        + SQLSchema.orderClause(relationship, alias: "t0")
                }
                for (key, snapshot) in try keyedSnapshots(db, sql, chunk.map { .integer($0) }, entity: destination) {
                    guard let owner = ownersByKey[key] else { continue }
                    result[owner, default: []].append(snapshot)
                }
            }
            noteRowsRead(result.values.reduce(0) { $0 + $1.count })
            return result
        }
    }
}
