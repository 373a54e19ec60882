/// What one child (or copy source) currently contributes to one derived
/// property: the parent it feeds and the value it adds (`nil` when it does
/// not match the predicate, or has no parent).
struct Contribution: Equatable {
    var parent: ManagedObjectID?
    var value: StoreValue?

    static let none = Contribution(parent: nil, value: nil)
}

/// The running aggregate of one parent's derived property, for the kinds
/// that cannot be updated from the stored value alone.
struct Aggregate {
    /// min / max: how many contributing children hold each value.
    var counts: [StoreValue: Int] = [:]
    /// average: the sum and number of contributions.
    var sum: StoreValue = .integer(0)
    var number = 0
}

/// A context's bookkeeping for `@Derived` properties. Confined to the
/// context's queue.
struct DerivationState {
    /// The last contribution of each loaded child, by derivation.
    var contributions: [ObjectIdentifier: [Int: Contribution]] = [:]
    /// Objects changed since derived values were last brought up to date.
    var dirty: Set<ManagedObject> = []
    /// Parents whose derived values must be recomputed from their children
    /// (after a refresh or merge replaced the stored value).
    var stale: Set<ManagedObject> = []
    /// Running aggregates by parent object and derivation.
    var aggregates: [AggregateKey: Aggregate] = [:]

    struct AggregateKey: Hashable {
        let parent: ObjectIdentifier
        let derivation: Int
    }

    /// Empties ``dirty`` and returns what it held. Taking the whole set,
    /// rather than popping one object at a time, matters: `Set.popFirst()`
    /// scans the set's capacity from the start, which after a large save is
    /// millions of empty buckets per call.
    mutating func takeDirty() -> Set<ManagedObject> {
        defer { dirty = [] }
        return dirty
    }

    /// Empties ``stale`` and returns what it held (see ``takeDirty()``).
    mutating func takeStale() -> Set<ManagedObject> {
        defer { stale = [] }
        return stale
    }

    mutating func removeAll() {
        self = DerivationState()
    }

    /// Follows objects to their permanent IDs after a save.
    mutating func remap(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        for (object, record) in contributions {
            var remapped = record
            for (derivation, contribution) in record {
                if let parent = contribution.parent, let permanent = mapping[parent] {
                    remapped[derivation] = Contribution(parent: permanent, value: contribution.value)
                }
            }
            contributions[object] = remapped
        }
    }
}

extension StoreValue {
    /// `self + other` for numbers (`.null` counts as zero).
    func adding(_ other: StoreValue, negated: Bool = false) -> StoreValue {
        switch (self, other) {
        case (.integer(let a), .integer(let b)): .integer(negated ? a - b : a + b)
        case (.double(let a), .double(let b)): .double(negated ? a - b : a + b)
        case (.integer(let a), .double(let b)): .double(negated ? Double(a) - b : Double(a) + b)
        case (.double(let a), .integer(let b)): .double(negated ? a - Double(b) : a + Double(b))
        case (_, .null): self
        case (.null, _): StoreValue.integer(0).adding(other, negated: negated)
        default: self
        }
    }

    /// The number as a Double, for averages.
    var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// Orders comparable store values (numbers, strings, dates, booleans).
    static func isLess(_ lhs: StoreValue, _ rhs: StoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a < b
        case (.double(let a), .double(let b)): a < b
        case (.string(let a), .string(let b)): a < b
        case (.date(let a), .date(let b)): a < b
        case (.bool(let a), .bool(let b)): !a && b
        default: (lhs.doubleValue ?? 0) < (rhs.doubleValue ?? 0)
        }
    }
}
