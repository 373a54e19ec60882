import Coherence

/// The least bookkeeping a change can have: a plain class, mutated, and
/// recorded in a set that is then handed to one observer.
package final class PlainItem {
    package var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    package var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0
    package init() {}
}

/// The change-tracking workloads, for `count-instructions` (the timed
/// benchmark, `change/…`, runs the same steps with the benchmark tool's
/// setup and measurement).
package enum ChangeWorkloads {
    /// Baseline: `count` plain objects, one property changed on each and the
    /// object recorded in a `Set`, handed to one observer. Returns how many
    /// the observer heard of.
    package static func plain(count: Int, meter: any Meter) -> Int {
        let items = (0..<count).map { _ in PlainItem() }
        let observer: (Set<ObjectIdentifier>) -> Int = { $0.count }
        meter.start()
        var changed = Set<ObjectIdentifier>()
        for item in items {
            item.i1 &+= 1
            changed.insert(ObjectIdentifier(item))
        }
        let heard = observer(changed)
        meter.stop()
        keep(items)
        return heard
    }

    /// Coherence: `count` saved items in an in-memory store, one attribute
    /// changed on each, then one `processPendingChanges()` posting its
    /// didChangeObjects to one observer, then a rollback; measured the second
    /// time, as the timed benchmark's iterations after the first reuse their
    /// context. Returns how many updated objects the observer heard of.
    package static func coherence(count: Int, meter: any Meter) throws -> Int {
        let context = try Stack.context(Stack.itemModel, .inMemory)
        return try context.performAndWait {
            let items = Stack.insertItems(count, in: context)
            try context.save()
            var heard = 0, measuring = false
            let token = context.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) {
                if measuring { heard = $0.updated.count }
            }
            for measured in [false, true] {
                measuring = measured
                if measured { meter.start() }
                for item in items { item.i1 &+= 1 }
                context.processPendingChanges()
                if measured { meter.stop() }
                measuring = false
                context.rollback()
            }
            withExtendedLifetime(token) {}
            return heard
        }
    }
}
