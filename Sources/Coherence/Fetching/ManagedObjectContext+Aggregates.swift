import Foundation

extension ManagedObjectContext {
    /// Core Data's dictionary fetch with computed columns, grouping and
    /// distinct results (`resultType = .dictionaryResultType` with
    /// `propertiesToFetch`, `propertiesToGroupBy`, `havingPredicate` and
    /// `returnsDistinctResults`).
    ///
    /// ```swift
    /// let count = ExpressionDescription(name: "count", expression: .count("make"), resultType: .integer64)
    /// let rows = try context.fetchDictionaries(
    ///     FetchRequest<Car>(sortBy: [SortDescriptor(\.make)]),
    ///     propertiesToFetch: ["make", .expression(count)],
    ///     propertiesToGroupBy: ["make"],
    ///     havingPredicate: .compare("count", .greaterThan, 1))
    /// // [["make": "Tesla", "count": 2], ["make": "Volvo", "count": 2]]
    /// ```
    ///
    /// One dictionary per row, or per group when grouping or fetching
    /// aggregates (aggregates alone give one row over all matching
    /// objects). Keys are the property names and the expressions' names; a
    /// value that is `nil` is absent. The request's predicate selects the
    /// rows before grouping; its sort descriptors order the results and
    /// must name fetched attributes; its limit and offset window the
    /// results. As in Core Data, unsaved changes are not included. Strings
    /// group, are distinct and compare in `min`, `max` and the having
    /// condition by their exact characters, as SQL compares them: a composed
    /// and a decomposed "é" are two groups.
    ///
    /// The SQLite store runs the whole fetch as one SQL query with every
    /// value bound; for other stores (and with
    /// ``FetchRequest/evaluatesPredicateInMemory``) the context computes the
    /// same rows from the matching objects' committed values. Rows equal in
    /// the sort descriptors come in no particular order.
    ///
    /// - Throws: ``ContextError/unknownProperty(entity:property:)`` for a name
    ///   that is not a property of the entity (or, in `havingPredicate`, not a
    ///   result name); ``ContextError/typeMismatch(entity:property:expected:)``
    ///   for a to-many relationship, an aggregate of a type it cannot take
    ///   (a sum of strings), a fetched property that is neither grouped by
    ///   nor aggregated when grouping (Core Data rejects such requests
    ///   too), or a sort by something not fetched; the errors of
    ///   ``fetch(_:)-1kja4``.
    /// <https://developer.apple.com/documentation/coredata/nsfetchrequest/propertiestogroupby>
    public func fetchDictionaries<Result: ManagedObject>(
        _ request: FetchRequest<Result>,
        propertiesToFetch: [PropertyToFetch],
        propertiesToGroupBy: [String] = [],
        havingPredicate: HavingPredicate? = nil,
        returnsDistinctResults: Bool = false
    ) throws -> [[String: Any]] {
        _assertOnQueue()
        let entity = try entity(of: request)
        let plan = try aggregatePlan(request, entity: entity, properties: propertiesToFetch, groupBy: propertiesToGroupBy,
                                     having: havingPredicate, distinct: returnsDistinctResults)
        let rows: [[StoreValue]]
        let stores = coordinator.persistentStores
        let limitedToStores = request.affectedStores.map { affectedStoreFilter($0) != nil } ?? false
        if parent == nil, !request.evaluatesPredicateInMemory, !limitedToStores, stores.count == 1, let store = stores[0] as? AggregatingStore,
           let stored = try store.aggregateRows(plan, predicate: request.predicate?.expression, variable: request.predicate?.variable.key) {
            rows = stored
        } else {
            let committed = request.copy()
            committed.resultType = .managedObjectResultType // the rows are made from the objects
            committed.includesPendingChanges = false
            committed.fetchBatchSize = 0
            committed.sortDescriptors = []
            committed.fetchLimit = 0
            committed.fetchOffset = 0
            // Values in the fetched entity's order: a sub-entity's object
            // holds the parent's relationships further on.
            let snapshots = try fetch(committed).compactMap { object -> Snapshot? in
                guard let snapshot = object._snapshot ?? _committedSnapshot(of: object) else { return nil }
                guard let own = object._entity, own !== entity else { return snapshot }
                let ownValues = snapshot.values
                let values = (0..<entity.propertyCount).map {
                    ownValues[own.localIndex($0, declaredWithAttributeCount: entity.attributes.count)]
                }
                return Snapshot(objectID: snapshot.objectID, values: values, version: snapshot.version)
            }
            rows = plan.rows(of: snapshots)
        }
        return try rows.map { row in
            var dictionary: [String: Any] = [:]
            for (column, value) in zip(plan.columns, row) where value != .null {
                switch column.kind {
                case .property(let index):
                    if entity.relationship(at: index) != nil {
                        if case .objectID(let id) = value { dictionary[column.name] = id }
                    } else {
                        dictionary[column.name] = try entity.attributes[index].access.swiftValue(value)
                    }
                case .aggregate:
                    dictionary[column.name] = Self.aggregateValue(value, as: column.resultType ?? .double)
                }
            }
            return dictionary
        }
    }

    /// An aggregate's value as the expression's result type asks.
    private static func aggregateValue(_ value: StoreValue, as type: AttributeType) -> Any {
        let number = AggregatePlan.number(value)
        switch (type, value) {
        case (.integer16, _), (.integer32, _), (.integer64, _):
            if case .integer(let int) = value { return Int(int) }
            // A Double an Int cannot hold (NaN, infinite, too large) stays a Double.
            if let number, let int = Int(exactly: number.rounded(.towardZero)) { return int }
            return number.map { $0 as Any } ?? value
        case (.double, _): return number ?? value
        case (.float, _): return number.map { Float($0) } ?? value
        case (.decimal, .integer(let int)): return Decimal(int)
        case (.decimal, _): return number.map { Decimal($0) } ?? value
        case (_, .date(let date)): return date
        case (_, .string(let string)): return string
        case (_, .bool(let bool)): return bool
        case (_, .integer(let int)): return Int(int)
        case (_, .double(let double)): return double
        default: return value
        }
    }

    /// Resolves a dictionary fetch's names against `entity`.
    private func aggregatePlan<Result: ManagedObject>(
        _ request: FetchRequest<Result>, entity: EntityDescription, properties: [PropertyToFetch],
        groupBy: [String], having: HavingPredicate?, distinct: Bool
    ) throws -> AggregatePlan {
        func property(_ name: String) throws -> Int {
            guard let index = entity.indexByName[name] else { throw ContextError.unknownProperty(entity: entity.name, property: name) }
            if let relationship = entity.relationship(at: index), relationship.isToMany {
                throw ContextError.typeMismatch(entity: entity.name, property: name, expected: "an attribute or to-one relationship")
            }
            if index < entity.attributes.count, entity.attributes[index].isTransient {
                throw ContextError.transientProperty(entity: entity.name, property: name)
            }
            return index
        }
        let groupIndexes = try groupBy.map(property)
        var columns: [AggregatePlan.Column] = []
        for entry in properties {
            switch entry {
            case .property(let name):
                columns.append(.init(name: name, kind: .property(try property(name)), resultType: nil))
            case .expression(let description):
                let key = description.expression.key, function = description.expression.function
                let index = try property(key)
                let type = index < entity.attributes.count ? entity.attributes[index].attributeType : nil
                let allowed: Bool = switch function {
                case .count: true
                case .sum, .average: [.integer16, .integer32, .integer64, .double, .float].contains(type)
                case .min, .max: [.integer16, .integer32, .integer64, .double, .float, .date, .string].contains(type)
                }
                guard allowed else {
                    throw ContextError.typeMismatch(entity: entity.name, property: key, expected: "an attribute that \(function.rawValue) can take")
                }
                columns.append(.init(name: description.name, kind: .aggregate(function, index), resultType: description.resultType))
            }
        }
        let grouped = !groupIndexes.isEmpty || columns.contains { if case .aggregate = $0.kind { true } else { false } }
        if grouped {
            for column in columns {
                if case .property(let index) = column.kind, !groupIndexes.contains(index) {
                    throw ContextError.typeMismatch(entity: entity.name, property: column.name,
                                                    expected: "a property in propertiesToGroupBy, or an aggregate, when grouping")
                }
            }
        }
        if let having { try checkNames(having, columns: columns, entity: entity) }
        var sort: [StoreSortDescriptor] = []
        for descriptor in request.sortDescriptors {
            let keyed = try descriptor.keyedAttributeIndex(in: entity)
            guard let index = keyed ?? descriptor.keyPath.flatMap({ entity.propertyIndex(for: $0) }), index < entity.attributes.count,
                  columns.contains(where: { if case .property(index) = $0.kind { true } else { false } }),
                  let strings = StoreStringOrder(keyed != nil ? KeyedSortValue.strings : descriptor.stringComparator) else {
                throw ContextError.typeMismatch(entity: entity.name, property: descriptor.keyPath.map { "\($0)" } ?? "?",
                                                expected: "a fetched attribute to sort dictionaries by")
            }
            sort.append(StoreSortDescriptor(propertyIndex: index, ascending: descriptor.order == .forward, strings: strings))
        }
        var plan = AggregatePlan(entity: entity, columns: columns, groupBy: groupIndexes, having: having, distinct: distinct,
                                 sort: sort, fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset)
        plan.includesSubentities = request.includesSubentities
        return plan
    }

    private func checkNames(_ having: HavingPredicate, columns: [AggregatePlan.Column], entity: EntityDescription) throws {
        switch having {
        case .and(let parts), .or(let parts): for part in parts { try checkNames(part, columns: columns, entity: entity) }
        case .not(let part): try checkNames(part, columns: columns, entity: entity)
        case .comparison(let name, _, _):
            guard columns.contains(where: { $0.name == name }) else { throw ContextError.unknownProperty(entity: entity.name, property: name) }
        }
    }
}

/// A store that runs dictionary fetches with grouping and aggregates itself.
package protocol AggregatingStore {
    /// The rows of `plan` over the committed rows matching the predicate, or
    /// `nil` when the store cannot evaluate the predicate (the context then
    /// computes them in memory).
    func aggregateRows(_ plan: AggregatePlan, predicate: (any StandardPredicateExpression<Bool>)?,
                       variable: PredicateExpressions.VariableID?) throws -> [[StoreValue]]?
}
