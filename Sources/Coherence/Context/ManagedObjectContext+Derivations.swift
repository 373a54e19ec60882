import Foundation

// Keeping `@Derived` properties current.
//
// Every loaded child records what it contributes to each derived property it
// feeds (its parent and its value, or nothing). When a child changes (or is
// inserted, deleted, moved, refreshed) it is marked dirty; bringing derived
// values up to date compares its new contribution with the recorded one and
// adjusts the parents it left and joined — O(1) for count and sum, through a
// running aggregate for min, max and average. This runs in
// `processPendingChanges()` before the notification is built, so parents are
// reported as updated in the same notification.
extension ManagedObjectContext {
    /// Marks an object whose change may move derived values.
    func derivationTouched(_ object: ManagedObject) {
        guard object._withEntity({ $0.hasDerivations }) == true else { return }
        derivations.dirty.insert(object)
    }

    /// Records a freshly loaded child's contributions (they are part of the
    /// parents' stored values already).
    func derivationLoaded(_ object: ManagedObject) {
        guard let entity = object._entity, !entity.dependentDerivations.isEmpty,
              derivations.contributions[ObjectIdentifier(object)] == nil else { return }
        var record: [Int: Contribution] = [:]
        for derivation in entity.dependentDerivations where derivation.kind != .copy {
            record[derivation.id] = contribution(of: object, to: derivation)
        }
        derivations.contributions[ObjectIdentifier(object)] = record
    }

    /// Recomputes a parent's derived values from its children (after its
    /// stored value was replaced by a refresh or a merge).
    func derivationStale(_ object: ManagedObject) {
        guard let entity = object._entity, !entity.derivations.isEmpty else { return }
        derivations.stale.insert(object)
    }

    /// Forgets an object (invalidated or turned into a fault with its values).
    func derivationForget(_ object: ManagedObject) {
        derivations.contributions[ObjectIdentifier(object)] = nil
        derivations.dirty.remove(object)
        derivations.stale.remove(object)
        for derivation in object._entity?.derivations ?? [] {
            derivations.aggregates[.init(parent: ObjectIdentifier(object), derivation: derivation.id)] = nil
        }
    }

    /// Takes the current contributions of the dirty objects as their
    /// records without adjusting any parent: after a rollback, a child save
    /// or a conflict resolution set values that are already consistent.
    func resyncDerivations() {
        for object in derivations.takeDirty() {
            guard let entity = object._entity else { continue }
            if !object._belongs(to: self) {
                derivationForget(object)
                continue
            }
            var record: [Int: Contribution] = [:]
            for derivation in entity.dependentDerivations where derivation.kind != .copy {
                record[derivation.id] = contribution(of: object, to: derivation)
            }
            if !record.isEmpty { derivations.contributions[ObjectIdentifier(object)] = record }
        }
        derivations.aggregates = [:]
    }

    /// Whether derived values wait to be brought up to date.
    var hasPendingDerivations: Bool { !derivations.dirty.isEmpty || !derivations.stale.isEmpty }

    /// Brings every derived value up to date with the changes made since.
    func applyDerivations() {
        // Updating a parent can dirty further objects (copies of it): round
        // after round until nothing is left. Each object leaves `dirty` only
        // when its turn comes: a running aggregate built meanwhile counts
        // the objects still waiting by their records.
        while !derivations.dirty.isEmpty {
            for object in Array(derivations.dirty) where derivations.dirty.remove(object) != nil {
                applyDerivations(of: object)
            }
        }
        // A new empty set: the emptied one keeps the capacity of the largest
        // round (a large save's millions of buckets), which every later
        // iteration of it would scan.
        derivations.dirty = []
        while !derivations.stale.isEmpty {
            for parent in derivations.takeStale() where parent._belongs(to: self) && !parent.isDeleted {
                recompute(parent)
            }
        }
    }

    /// Brings the derived values `object` feeds up to date with it.
    private func applyDerivations(of object: ManagedObject) {
        guard object._belongs(to: self), let entity = object._entity else { return }
        if object.isFault, !object.isDeleted, object._snapshot != nil || !object.objectID.isTemporaryID,
           !fulfillIfInStore(object) {
            return
        }
        for derivation in entity.dependentDerivations {
            if derivation.kind == .copy {
                updateCopies(from: object, derivation)
            } else {
                updateAggregate(child: object, derivation)
            }
        }
        for derivation in entity.derivations where derivation.kind == .copy && !object.isDeleted {
            updateCopy(of: object, derivation)
        }
    }

    /// What `child` contributes to `derivation` now.
    func contribution(of child: ManagedObject, to derivation: DerivationDescription) -> Contribution {
        guard !child.isDeleted, child._belongs(to: self), let entity = child._entity,
              let relationship = derivation.inverse(in: entity),
              let parent = relationship.storage(of: child).loadedIDs?.first else { return .none }
        guard derivation.matches(child) else { return Contribution(parent: parent, value: nil) }
        let value: StoreValue = if let index = derivation.childAttributeIndex {
            child._currentValue(at: index) ?? .null
        } else {
            .integer(1)
        }
        return Contribution(parent: parent, value: value)
    }

    private func updateAggregate(child: ManagedObject, _ derivation: DerivationDescription) {
        let key = ObjectIdentifier(child)
        let old = derivations.contributions[key]?[derivation.id] ?? .none
        let new = contribution(of: child, to: derivation)
        guard old != new else { return }
        // The record says `old` while parents adjust: a running aggregate
        // built now counts this child as `old`, then moves it.
        derivations.contributions[key, default: [:]][derivation.id] = old
        if let parent = old.parent, let value = old.value { adjust(parent, derivation, removing: value, for: child) }
        if let parent = new.parent, let value = new.value { adjust(parent, derivation, adding: value, for: child) }
        derivations.contributions[key, default: [:]][derivation.id] = new
    }

    private func adjust(_ parentID: ManagedObjectID, _ derivation: DerivationDescription,
                        adding added: StoreValue? = nil, removing removed: StoreValue? = nil, for child: ManagedObject) {
        guard let parent = registered[parentID] ?? (parentID.isTemporaryID ? nil : object(with: parentID)),
              parent._belongs(to: self), !parent.isDeleted else { return }
        if parent.isFault {
            guard faultIsInStore(parent) else { return }
            _fulfillFault(parent)
        }
        guard parent._entity != nil else { return }
        let current = parent._currentValue(at: derivation.propertyIndex) ?? .null
        let updated: StoreValue
        switch derivation.kind {
        case .count, .sum:
            updated = current.adding(added ?? .integer(0)).adding(removed ?? .integer(0), negated: true)
        case .min, .max, .average:
            var aggregate = aggregate(of: parent, derivation, including: child)
            if let removed { aggregate.remove(removed) }
            if let added { aggregate.add(added) }
            derivations.aggregates[.init(parent: ObjectIdentifier(parent), derivation: derivation.id)] = aggregate
            updated = aggregate.value(for: derivation.kind)
        case .copy:
            return
        }
        setDerived(updated, on: parent, derivation)
    }

    /// The running aggregate of a parent, built the first time from what
    /// the records say it holds: its children, and changed objects (still to
    /// be processed, or `current`) that were counted for it before they moved.
    private func aggregate(of parent: ManagedObject, _ derivation: DerivationDescription,
                           including current: ManagedObject) -> Aggregate {
        let key = DerivationState.AggregateKey(parent: ObjectIdentifier(parent), derivation: derivation.id)
        if let aggregate = derivations.aggregates[key] { return aggregate }
        var candidates = Set(children(of: parent, derivation))
        candidates.insert(current)
        for object in derivations.dirty where derivation.isChild(object) {
            candidates.insert(object)
        }
        var aggregate = Aggregate()
        for child in candidates {
            let counted = derivations.contributions[ObjectIdentifier(child)]?[derivation.id] ?? .none
            if counted.parent == parent.objectID, let value = counted.value { aggregate.add(value) }
        }
        return aggregate
    }

    /// Fulfills `object` when it is a fault whose row is in the store;
    /// `false` when another writer deleted the row since this context last
    /// read it. Such an object is left out: the merge of its deletion,
    /// still to come, updates what it fed.
    private func fulfillIfInStore(_ object: ManagedObject) -> Bool {
        guard object.isFault else { return true }
        guard faultIsInStore(object) else { return false }
        _fulfillFault(object)
        return true
    }

    /// The children of a parent along a derivation's relationship that are
    /// still in the store.
    private func children(of parent: ManagedObject, _ derivation: DerivationDescription) -> [ManagedObject] {
        guard let entity = parent._entity, let relationship = derivation.relationship(in: entity) else { return [] }
        return relatedIDs(of: parent, relationship).compactMap { id in
            let child = object(with: id)
            return fulfillIfInStore(child) ? child : nil
        }
    }

    /// Recomputes all derived values of a parent from its children.
    private func recompute(_ parent: ManagedObject) {
        guard let entity = parent._entity, fulfillIfInStore(parent) else { return }
        for derivation in entity.derivations {
            if derivation.kind == .copy {
                updateCopy(of: parent, derivation)
                continue
            }
            derivations.aggregates[.init(parent: ObjectIdentifier(parent), derivation: derivation.id)] = nil
            var aggregate = Aggregate()
            var total: StoreValue = .integer(0)
            var count: Int64 = 0
            // Changed objects counted for this parent before they moved away
            // are counted nowhere now: recomputing from the children settles it.
            for object in derivations.dirty where derivation.isChild(object) {
                let key = ObjectIdentifier(object)
                if derivations.contributions[key]?[derivation.id]?.parent == parent.objectID {
                    derivations.contributions[key]?[derivation.id] = Contribution.none
                }
            }
            for child in children(of: parent, derivation) {
                let current = contribution(of: child, to: derivation)
                derivations.contributions[ObjectIdentifier(child), default: [:]][derivation.id] = current
                guard current.parent == parent.objectID, let value = current.value else { continue }
                aggregate.add(value)
                total = total.adding(value)
                count += 1
            }
            let value: StoreValue = switch derivation.kind {
            case .count: .integer(count)
            case .sum: count == 0 ? zero(of: parent, derivation) : total
            default: aggregate.value(for: derivation.kind)
            }
            if derivation.kind != .count, derivation.kind != .sum {
                derivations.aggregates[.init(parent: ObjectIdentifier(parent), derivation: derivation.id)] = aggregate
            }
            setDerived(value, on: parent, derivation)
        }
    }

    /// The empty sum in the attribute's own number kind.
    private func zero(of parent: ManagedObject, _ derivation: DerivationDescription) -> StoreValue {
        guard let attribute = parent._entity?.attributes[derivation.propertyIndex] else { return .integer(0) }
        return attribute.attributeType == .double || attribute.attributeType == .float ? .double(0) : .integer(0)
    }

    /// Copies a source's attribute into every object that copies it.
    private func updateCopies(from source: ManagedObject, _ derivation: DerivationDescription) {
        guard let entity = source._entity, let relationship = derivation.inverse(in: entity) else { return }
        let value: StoreValue = source.isDeleted ? .null
            : derivation.childAttributeIndex.flatMap { source._currentValue(at: $0) } ?? .null
        for id in relatedIDs(of: source, relationship) {
            let dependent = object(with: id)
            guard dependent._belongs(to: self), !dependent.isDeleted, fulfillIfInStore(dependent) else { continue }
            setDerived(value, on: dependent, derivation)
        }
    }

    /// Recomputes one object's copied value from its current destination.
    private func updateCopy(of object: ManagedObject, _ derivation: DerivationDescription) {
        guard let entity = object._entity, let relationship = derivation.relationship(in: entity) else { return }
        var value: StoreValue = .null
        if let id = relationship.storage(of: object).loadedIDs?.first {
            let source = self.object(with: id)
            if !source.isDeleted, fulfillIfInStore(source), source._entity != nil, let index = derivation.childAttributeIndex {
                value = source._currentValue(at: index) ?? .null
            }
        }
        setDerived(value, on: object, derivation)
    }

    /// Sets a derived value with change tracking, when it differs. Only on
    /// an object of the derivation's entity (or a sub-entity): an inverse
    /// relationship declared on a parent entity also leads to the parent's
    /// other sub-entities, which hold another property at that index.
    private func setDerived(_ value: StoreValue, on object: ManagedObject, _ derivation: DerivationDescription) {
        guard let entity = object._entity, entity.isKind(ofEntityNamed: derivation.parentEntityName),
              object._currentValue(at: derivation.propertyIndex) != value else { return }
        _recordWrite(of: object, property: derivation.propertyIndex)
        try? entity.attributes[derivation.propertyIndex].setStoreValue(value, of: object)
    }
}

extension Aggregate {
    mutating func add(_ value: StoreValue) {
        counts[value, default: 0] += 1
        sum = sum.adding(value)
        number += 1
    }

    mutating func remove(_ value: StoreValue) {
        if let count = counts[value] {
            counts[value] = count > 1 ? count - 1 : nil
        }
        sum = sum.adding(value, negated: true)
        number -= 1
    }

    /// The derived value for min, max or average.
    func value(for kind: DerivationKind) -> StoreValue {
        switch kind {
        case .min: counts.keys.min(by: StoreValue.isLess) ?? .null
        case .max: counts.keys.max(by: StoreValue.isLess) ?? .null
        case .average: number > 0 ? .double((sum.doubleValue ?? 0) / Double(number)) : .null
        default: .null
        }
    }
}
