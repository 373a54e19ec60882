import Foundation

/// A dictionary fetch with its names resolved against the entity: what a
/// store runs as `SELECT [DISTINCT] … GROUP BY … HAVING …`, and what the
/// context evaluates on snapshots for stores that cannot. Both give the
/// same rows: one value (store form) per column.
package struct AggregatePlan {
    enum Kind {
        /// An attribute or to-one relationship, by property index.
        case property(Int)
        /// An aggregate of the property at the index.
        case aggregate(AggregateExpression.Function, Int)
    }

    struct Column {
        let name: String
        let kind: Kind
        /// For aggregates, the dictionary value's type.
        let resultType: AttributeType?
    }

    let entity: EntityDescription
    /// Whether rows of the entity's sub-entities are aggregated too
    /// (``FetchRequest/includesSubentities``).
    var includesSubentities = true
    let columns: [Column]
    /// Property indexes to group by.
    let groupBy: [Int]
    let having: HavingPredicate?
    let distinct: Bool
    /// Sort keys: attributes among the fetched or grouped properties.
    let sort: [StoreSortDescriptor]
    let fetchLimit: Int
    let fetchOffset: Int

    /// Whether the rows are groups (by properties, or one of all rows when
    /// only aggregates are fetched).
    var isGrouped: Bool {
        !groupBy.isEmpty || columns.contains { if case .aggregate = $0.kind { true } else { false } }
    }

    /// The column index of a result name.
    func column(named name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }

    // MARK: Evaluating in memory

    /// The rows for `snapshots` (the matching rows, in store order).
    func rows(of snapshots: [Snapshot]) -> [[StoreValue]] {
        var rows: [[StoreValue]]
        if isGrouped {
            var order: [[ExactValue]] = []
            var groups: [[ExactValue]: [Snapshot]] = [:]
            for snapshot in snapshots {
                let values = snapshot.values
                let key = groupBy.map { ExactValue(values[$0]) }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(snapshot)
            }
            // Aggregates without grouping: one row, even over no rows.
            if groupBy.isEmpty, order.isEmpty { order = [[]] }
            rows = order.map { key in
                let members = groups[key] ?? []
                return columns.map { column in
                    switch column.kind {
                    case .property(let index): members.first?.values[index] ?? .null
                    case .aggregate(let function, let index): Self.aggregate(function, members.map { $0.values[index] })
                    }
                }
            }
            if let having { rows = rows.filter { Self.holds(having, on: $0, plan: self) == true } }
        } else {
            rows = snapshots.map { snapshot in
                let values = snapshot.values
                return columns.map { column in
                    if case .property(let index) = column.kind { return values[index] }
                    return .null
                }
            }
        }
        if distinct {
            var seen = Set<[ExactValue]>()
            rows = rows.filter { seen.insert($0.map(ExactValue.init)).inserted }
        }
        if !sort.isEmpty {
            let keys = sort.map { descriptor in
                (columns.firstIndex { if case .property(descriptor.propertyIndex) = $0.kind { true } else { false } }!, descriptor)
            }
            rows = rows.enumerated().sorted { lhs, rhs in
                for (column, descriptor) in keys {
                    let a = SortValue(storeValue: lhs.element[column]) ?? .none, b = SortValue(storeValue: rhs.element[column]) ?? .none
                    var order = SortValue.compare(a, b, strings: descriptor.strings.standardComparator)
                    if !descriptor.ascending { order = order == .orderedAscending ? .orderedDescending : (order == .orderedDescending ? .orderedAscending : .orderedSame) }
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return lhs.offset < rhs.offset
            }.map(\.element)
        }
        let start = min(max(fetchOffset, 0), rows.count)
        let end = fetchLimit > 0 ? min(start + fetchLimit, rows.count) : rows.count
        return Array(rows[start..<end])
    }

    /// An aggregate of values as SQLite computes it: `NULL`s left out;
    /// `count` an integer; `sum` an integer of integers, otherwise a double;
    /// `average` a double; `min` and `max` by SQLite's order (numbers by
    /// value, strings by their UTF-8 bytes).
    static func aggregate(_ function: AggregateExpression.Function, _ values: [StoreValue]) -> StoreValue {
        let present = values.filter { $0 != .null }
        switch function {
        case .count:
            return .integer(Int64(present.count))
        case .sum, .average:
            guard !present.isEmpty else { return .null }
            if function == .sum, present.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                return .integer(present.reduce(0) { total, value in if case .integer(let int) = value { total &+ int } else { total } })
            }
            let total = present.reduce(0.0) { $0 + (number($1) ?? 0) }
            return .double(function == .sum ? total : total / Double(present.count))
        case .min, .max:
            guard var best = present.first else { return .null }
            for value in present.dropFirst() {
                let order = compare(value, best)
                if function == .min ? order == .orderedAscending : order == .orderedDescending { best = value }
            }
            return best
        }
    }

    /// A number's value as a double (booleans as 0 and 1).
    static func number(_ value: StoreValue) -> Double? {
        switch value {
        case .integer(let int): Double(int)
        case .double(let double): double
        case .bool(let bool): bool ? 1 : 0
        default: nil
        }
    }

    /// Two values of one column as SQLite orders them; `nil` when they
    /// cannot be compared.
    static func compare(_ lhs: StoreValue, _ rhs: StoreValue) -> ComparisonResult? {
        func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult { a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending) }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return .orderedSame }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending
        case (.date(let a), .date(let b)): return order(a, b)
        default:
            guard let a = number(lhs), let b = number(rhs) else { return nil }
            return order(a, b)
        }
    }

    /// Whether a row meets a having condition, in SQL's three-valued
    /// logic: `nil` (unknown) for a comparison with no value, which `not`
    /// keeps unknown; only `true` keeps the row.
    static func holds(_ condition: HavingPredicate, on row: [StoreValue], plan: AggregatePlan) -> Bool? {
        switch condition {
        case .and(let parts):
            let results = parts.map { holds($0, on: row, plan: plan) }
            if results.contains(false) { return false }
            return results.contains(nil) ? nil : true
        case .or(let parts):
            let results = parts.map { holds($0, on: row, plan: plan) }
            if results.contains(true) { return true }
            return results.contains(nil) ? nil : false
        case .not(let part):
            return holds(part, on: row, plan: plan).map { !$0 }
        case .comparison(let name, let op, let value):
            guard let column = plan.column(named: name), let order = compare(row[column], value) else { return nil }
            switch op {
            case .equal: return order == .orderedSame
            case .notEqual: return order != .orderedSame
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqual: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            case .greaterThanOrEqual: return order != .orderedAscending
            }
        }
    }
}
