import Foundation

// Turning one didChangeObjects into the controller's precise changes.
extension AnyFetchedResultsController {
    /// One object the notification may move.
    private struct Candidate {
        let object: ManagedObject
        let oldKey: SortKey?
        let oldIndex: Int?
        var newKey: SortKey?
        var oldNeighbors = Neighbors(before: nil, after: nil)
    }

    /// The nearest unchanged objects before and after a changed one.
    private struct Neighbors: Hashable {
        let before: ObjectIdentifier?
        let after: ObjectIdentifier?
    }

    /// A reset of the context forgets every object: Core Data's controller
    /// tells its delegate nothing of it (the objects were not deleted, and
    /// Apple's `reset()` asks the app to discard what it fetched). The
    /// controller fetches again, silently, so that its results hold the
    /// context's new objects rather than invalidated ones; a failed fetch
    /// leaves it as before its first `performFetch()` (no results, no
    /// sections), to be fetched again.
    /// <https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/reset()>
    private func refetchAfterReset() {
        do {
            try performFetch()
        } catch {
            entries = nil
            keys = [:]
            tracked = [:]
            dependents = [:]
            dependentTargets = [:]
            destinations = [:]
            sectionRanges = []
        }
    }

    func process(_ change: ManagedObjectContext.ObjectsDidChangeMessage) {
        guard entries != nil else { return }
        if !change.invalidatedAllIDs.isEmpty {
            refetchAfterReset()
            return
        }
        let context = managedObjectContext

        // 1. The objects that may have entered, left, moved or changed.
        var found: [ObjectIdentifier: ManagedObject] = [:]
        func consider(_ object: ManagedObject) {
            if entity.matches(object._entity, subentities: includesSubentities) { found[ObjectIdentifier(object)] = object }
        }
        for object in change.inserted { consider(object) }
        for object in change.updated { consider(object) }
        for object in change.refreshed { consider(object) }
        for object in change.deleted { consider(object) }
        for object in change.invalidated { consider(object) }
        if !dependents.isEmpty {
            for object in change.updated.union(change.refreshed) {
                for dependent in dependents[ObjectIdentifier(object)] ?? [] {
                    if let result = tracked[dependent] { found[dependent] = result }
                }
            }
        }
        guard !found.isEmpty else { return }

        // 2. Where each was, and where it belongs now. Objects still there
        // with the key they were placed with stay where they are: updated in
        // place, and no neighbour of the others.
        var candidates: [Candidate] = found.values.map { object in
            let oldKey = keys[ObjectIdentifier(object)]
            return Candidate(object: object, oldKey: oldKey, oldIndex: oldKey.flatMap { position(of: $0, object: object) })
        }
        // Objects the notification reports deleted or invalidated leave, also
        // those a merge deleted, which are still registered while it announces them.
        for index in candidates.indices {
            let object = candidates[index].object
            let matches = object._belongs(to: context) && !object.isDeleted
                && !change.deleted.contains(object) && !change.invalidated.contains(object)
                && matchesPredicate(object)
            candidates[index].newKey = matches ? key(for: object) : nil
        }
        var inPlace: [Candidate] = []
        candidates.removeAll { candidate in
            guard candidate.oldIndex != nil, candidate.newKey != nil, candidate.newKey == candidate.oldKey else { return false }
            inPlace.append(candidate)
            return true
        }
        for candidate in inPlace {
            found[ObjectIdentifier(candidate.object)] = nil
            untrack(candidate.object)
            track(candidate.object)
        }
        let oldNeighbors = neighbors(ofCandidatesAt: candidates.compactMap(\.oldIndex))
        for index in candidates.indices {
            if let oldIndex = candidates[index].oldIndex {
                candidates[index].oldNeighbors = oldNeighbors[oldIndex]!
            }
        }
        let oldSections = sectionRanges.map(\.name)
        let oldIndexPaths = Dictionary(uniqueKeysWithValues: (candidates + inPlace).compactMap { candidate in
            candidate.oldIndex.map { (ObjectIdentifier(candidate.object), indexPath(at: $0)) }
        })

        // 3. Move them: out of their old places, into their new ones. A few
        // move one by one; many are merged in with one pass over the list.
        for candidate in candidates where candidate.oldIndex != nil {
            keys[ObjectIdentifier(candidate.object)] = nil
            tracked[ObjectIdentifier(candidate.object)] = nil
            untrack(candidate.object)
        }
        if candidates.count > Self.bulkThreshold {
            mergeEntries(candidates.compactMap { candidate in candidate.newKey.map { (candidate.object, $0) } },
                         removing: found)
        } else {
            for candidate in candidates.filter({ $0.oldIndex != nil }).sorted(by: { $0.oldIndex! > $1.oldIndex! }) {
                removeEntry(at: candidate.oldIndex!)
            }
            for candidate in candidates {
                guard let newKey = candidate.newKey else { continue }
                insertEntry((candidate.object, newKey), at: insertionIndex(for: newKey))
            }
        }
        for candidate in candidates {
            guard let newKey = candidate.newKey else { continue }
            keys[ObjectIdentifier(candidate.object)] = newKey
            tracked[ObjectIdentifier(candidate.object)] = candidate.object
            track(candidate.object)
        }

        // 4. Classify: a remaining object moved if its unchanged neighbours
        // (or its order among changed objects between the same neighbours)
        // differ; otherwise, if it changed, it is updated in place.
        var changes: [(object: ManagedObject, type: FetchedResultsChangeType, old: IndexPath?, new: IndexPath?)] = []
        for candidate in inPlace {
            let newIndex = position(of: candidate.newKey!, object: candidate.object)!
            changes.append((candidate.object, .update, oldIndexPaths[ObjectIdentifier(candidate.object)]!, indexPath(at: newIndex)))
        }
        var stayers: [(candidate: Candidate, newIndex: Int)] = []
        let newIndexes = candidates.map { candidate in candidate.newKey.flatMap { position(of: $0, object: candidate.object) } }
        let newNeighbors = neighbors(ofCandidatesAt: newIndexes.compactMap { $0 })
        for (candidate, newIndex) in zip(candidates, newIndexes) {
            let old = oldIndexPaths[ObjectIdentifier(candidate.object)]
            switch (old, newIndex) {
            case (nil, nil): continue
            case (let old?, nil): changes.append((candidate.object, .delete, old, nil))
            case (nil, let newIndex?): changes.append((candidate.object, .insert, nil, indexPath(at: newIndex)))
            case (let old?, let newIndex?):
                if newNeighbors[newIndex]! != candidate.oldNeighbors || changedSection(candidate) {
                    changes.append((candidate.object, .move, old, indexPath(at: newIndex)))
                } else {
                    stayers.append((candidate, newIndex))
                }
            }
        }
        // Objects sharing a gap between the same neighbours must keep their order.
        let groups = Dictionary(grouping: stayers) { $0.candidate.oldNeighbors }
        for group in groups.values {
            let oldOrder = group.sorted { $0.candidate.oldIndex! < $1.candidate.oldIndex! }.map { ObjectIdentifier($0.candidate.object) }
            let newOrder = group.sorted { $0.newIndex < $1.newIndex }.map { ObjectIdentifier($0.candidate.object) }
            for stayer in group {
                let old = oldIndexPaths[ObjectIdentifier(stayer.candidate.object)]!
                if oldOrder != newOrder {
                    changes.append((stayer.candidate.object, .move, old, indexPath(at: stayer.newIndex)))
                } else {
                    changes.append((stayer.candidate.object, .update, old, indexPath(at: stayer.newIndex)))
                }
            }
        }

        // 5. Sections that appeared or emptied.
        let newSections = sectionRanges.map(\.name)
        var sectionChanges: [(name: String, type: FetchedResultsChangeType, index: Int)] = []
        for (index, name) in oldSections.enumerated() where !newSections.contains(name) { sectionChanges.append((name, .delete, index)) }
        for (index, name) in newSections.enumerated() where !oldSections.contains(name) { sectionChanges.append((name, .insert, index)) }

        report(sectionChanges: sectionChanges, changes: changes)
    }

    /// Whether a remaining candidate's section changed (it then always moves).
    private func changedSection(_ candidate: Candidate) -> Bool {
        candidate.oldKey?.section != candidate.newKey?.section
    }

    /// Above this many changed objects, one pass over the list
    /// (``mergeEntries(_:removing:)``) beats moving them one by one.
    static var bulkThreshold: Int { 64 }

    /// For each of `indexes` (the positions of every candidate in the list),
    /// the nearest objects before and after it that are not candidates.
    /// Consecutive candidates share them. **O(k log k)** for k indexes.
    private func neighbors(ofCandidatesAt indexes: [Int]) -> [Int: Neighbors] {
        guard let entries else { return [:] }
        let sorted = indexes.sorted()
        var result: [Int: Neighbors] = Dictionary(minimumCapacity: sorted.count)
        var runStart = 0
        while runStart < sorted.count {
            var runEnd = runStart
            while runEnd + 1 < sorted.count, sorted[runEnd + 1] == sorted[runEnd] + 1 { runEnd += 1 }
            let before = sorted[runStart] - 1
            let after = sorted[runEnd] + 1
            let pair = Neighbors(before: before >= 0 ? ObjectIdentifier(entries[before].object) : nil,
                                 after: after < entries.count ? ObjectIdentifier(entries[after].object) : nil)
            for position in runStart...runEnd { result[sorted[position]] = pair }
            runStart = runEnd + 1
        }
        return result
    }

    /// Replaces the entries of `removing` with `incoming` in one pass: keeps
    /// the others in order, sorts the incoming ones and merges both.
    /// **O(n + k log k)**.
    private func mergeEntries(_ incoming: [(object: ManagedObject, key: SortKey)], removing: [ObjectIdentifier: ManagedObject]) {
        let kept = entries!.filter { removing[ObjectIdentifier($0.object)] == nil }
        let sortedIncoming = incoming.sorted { less($0.key, $1.key) }
        var merged: [(object: ManagedObject, key: SortKey)] = []
        merged.reserveCapacity(kept.count + sortedIncoming.count)
        var keptIndex = 0, incomingIndex = 0
        while keptIndex < kept.count || incomingIndex < sortedIncoming.count {
            if incomingIndex < sortedIncoming.count,
               keptIndex == kept.count || less(sortedIncoming[incomingIndex].key, kept[keptIndex].key) {
                merged.append(sortedIncoming[incomingIndex])
                incomingIndex += 1
            } else {
                merged.append(kept[keptIndex])
                keptIndex += 1
            }
        }
        entries = merged
        rebuildSections()
    }

    /// Removes one entry, keeping section ranges in step. **O(sections)** plus the array move.
    private func removeEntry(at index: Int) {
        entries!.remove(at: index)
        guard let section = sectionRanges.firstIndex(where: { index < $0.start + $0.count }) else { return }
        sectionRanges[section].count -= 1
        for later in (section + 1)..<sectionRanges.count { sectionRanges[later].start -= 1 }
        if sectionRanges[section].count == 0, sectionKey.makesSections { sectionRanges.remove(at: section) }
    }

    /// Inserts one entry, keeping section ranges in step. **O(sections)** plus the array move.
    private func insertEntry(_ entry: (object: ManagedObject, key: SortKey), at index: Int) {
        entries!.insert(entry, at: index)
        let name = entry.key.section
        if let section = sectionRanges.firstIndex(where: { $0.name == name }) {
            sectionRanges[section].count += 1
            for later in (section + 1)..<sectionRanges.count { sectionRanges[later].start += 1 }
            return
        }
        // A new section starts at `index`.
        let section = sectionRanges.firstIndex { $0.start >= index } ?? sectionRanges.count
        for later in section..<sectionRanges.count { sectionRanges[later].start += 1 }
        sectionRanges.insert((name, index, 1), at: section)
    }

    private func report(sectionChanges: [(name: String, type: FetchedResultsChangeType, index: Int)],
                        changes: [(object: ManagedObject, type: FetchedResultsChangeType, old: IndexPath?, new: IndexPath?)]) {
        guard !sectionChanges.isEmpty || !changes.isEmpty else { return }
        // Core Data's order: deletions, insertions, moves, updates, each by
        // index path. Sorted on plain integers, computed once per change.
        func rank(_ type: FetchedResultsChangeType) -> Int {
            switch type {
            case .delete: 0
            case .insert: 1
            case .move: 2
            case .update: 3
            }
        }
        let sortKeys = changes.map { change -> (Int, Int, Int) in
            let path = change.old ?? change.new!
            return (rank(change.type), path.sectionIndex, path.itemIndex)
        }
        let sortedChanges = changes.indices.sorted { sortKeys[$0] < sortKeys[$1] }.map { changes[$0] }
        let sortedSections = sectionChanges.sorted { ($0.type == .delete ? 0 : 1, $0.index) < ($1.type == .delete ? 0 : 1, $1.index) }
        if let delegate {
            delegate.controllerWillChangeContent(self)
            for change in sortedSections {
                let info = change.type == .insert
                    ? section(at: change.index)
                    : FetchedResultsSection(name: change.name, indexTitle: indexTitle(forSectionName: change.name), objects: [])
                delegate.controller(self, didChange: info, atSectionIndex: change.index, for: change.type)
            }
            for change in sortedChanges {
                delegate.controller(self, didChange: change.object, at: change.old, for: change.type,
                                    newIndexPath: change.type == .update ? nil : change.new)
            }
            delegate.controllerDidChangeContent(self)
        }
        guard snapshotStreams.hasListeners else { return }
        snapshotStreams.yield(snapshot(
            sectionChanges: sortedSections.map { .init(name: $0.name, type: $0.type, index: $0.index) },
            changes: sortedChanges.map {
                .init(objectID: $0.object.objectID, type: $0.type, indexPath: $0.old, newIndexPath: $0.type == .update ? nil : $0.new)
            }))
    }

    func snapshot(sectionChanges: [FetchedResultsSnapshot.SectionChange], changes: [FetchedResultsSnapshot.Change]) -> FetchedResultsSnapshot {
        let sections = entries.map { entries in
            sectionRanges.map { range in
                FetchedResultsSnapshot.Section(name: range.name, objectIDs: entries[range.start..<(range.start + range.count)].map(\.object.objectID))
            }
        } ?? []
        return FetchedResultsSnapshot(sections: sections, sectionChanges: sectionChanges, changes: changes)
    }
}

/// The continuations of a controller's snapshot streams.
final class SnapshotStreams: Sendable {
    private let continuations = Locked<[Int: AsyncStream<FetchedResultsSnapshot>.Continuation]>([:])
    private let nextID = Locked(0)
    private let latest = Locked<Int?>(nil)

    var hasListeners: Bool { continuations.withLock { !$0.isEmpty } }

    func add() -> AsyncStream<FetchedResultsSnapshot> {
        let (stream, continuation) = AsyncStream<FetchedResultsSnapshot>.makeStream()
        let id = nextID.withLock { value in
            value += 1
            return value
        }
        continuation.onTermination = { [weak self] _ in _ = self?.continuations.withLock { $0.removeValue(forKey: id) } }
        continuations.withLock { $0[id] = continuation }
        latest.withLock { $0 = id }
        return stream
    }

    func yield(_ snapshot: FetchedResultsSnapshot, toLatest: Bool = false) {
        let targets: [AsyncStream<FetchedResultsSnapshot>.Continuation]
        if toLatest {
            let id = latest.withLock { $0 }
            targets = continuations.withLock { current in id.flatMap { current[$0] }.map { [$0] } ?? [] }
        } else {
            targets = continuations.withLock { Array($0.values) }
        }
        for continuation in targets { continuation.yield(snapshot) }
    }
}
