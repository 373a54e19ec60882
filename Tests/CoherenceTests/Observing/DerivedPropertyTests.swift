import Coherence
import Foundation
import PropertyBased
import Testing

/// Random sequences of changes, saves, rollbacks and refreshes: after each
/// step every derived value must equal a recomputation from scratch, and the
/// stored values must too.
@Suite("Derived attributes under random changes")
struct DerivedPropertyTests {
    @Test(arguments: StoreKind.allCases) func derivedValuesMatchARecomputation(store: StoreKind) async throws {
        await propertyCheck(count: 150, input: Gen.int(in: 0...10_000).array(of: 1...60)) { steps in
            do {
                try run(steps, store: store)
            } catch {
                Issue.record("steps \(steps) threw \(error)")
            }
        }
    }

    /// Found by the check above: save, unlink an entry, delete its old feed,
    /// then refresh the entry discarding changes, which points it back at
    /// the deleted feed.
    @Test(arguments: StoreKind.allCases) func refreshBackToADeletedFeed(store: StoreKind) throws {
        try run([3773, 3209, 2181, 2416, 2683, 159], store: store)
    }

    func run(_ steps: [Int], store: StoreKind) throws {
        let context = try DerivedStack.context(store)
        try context.performAndWait {
            var feeds: [Feed] = [Feed(context: context), Feed(context: context)]
            var entries: [Entry] = []
            let publisher = Publisher(context: context)
            publisher.name = "p"
            feeds[0].publisher = publisher
            func live<T: ManagedObject>(_ objects: [T]) -> [T] { objects.filter { $0.managedObjectContext === context && !$0.isDeleted } }
            // `refresh(_:mergeChanges: false)` may restore a relationship to
            // an object deleted since; such a save is refused (Core Data's
            // "Dangling reference to an invalid object", NSValidationError),
            // leaving the changes pending. Anything else is a failure.
            func save() throws {
                do {
                    try context.save()
                } catch let error as ValidationError {
                    let dangling = error.errors.allSatisfy { if case .danglingReference = $0 { true } else { false } }
                    #expect(dangling, "unexpected refusal \(error)")
                    #expect(context.hasChanges, "a refused save keeps the changes")
                    context.rollback()
                }
            }
            for step in steps {
                let pick = step / 16
                let liveEntries = live(entries)
                let liveFeeds = live(feeds)
                switch step % 11 {
                case 0, 1:
                    let entry = Entry(context: context)
                    entry.words = pick % 50
                    entry.read = pick % 3 == 0
                    entry.published = Date(timeIntervalSince1970: Double(pick))
                    entry.feed = liveFeeds.isEmpty ? nil : liveFeeds[pick % liveFeeds.count]
                    entries.append(entry)
                case 2 where !liveEntries.isEmpty:
                    liveEntries[pick % liveEntries.count].read.toggle()
                case 3 where !liveEntries.isEmpty:
                    liveEntries[pick % liveEntries.count].feed = pick % 4 == 0 || liveFeeds.isEmpty ? nil : liveFeeds[pick % liveFeeds.count]
                case 4 where !liveEntries.isEmpty:
                    context.delete(liveEntries[pick % liveEntries.count])
                case 5 where !liveEntries.isEmpty:
                    liveEntries[pick % liveEntries.count].words = pick % 70
                case 6:
                    feeds.append(Feed(context: context))
                case 7 where liveFeeds.count > 1:
                    context.delete(liveFeeds[pick % liveFeeds.count])
                case 8:
                    try save()
                case 9:
                    context.rollback()
                case 10 where !liveEntries.isEmpty:
                    context.refresh(liveEntries[pick % liveEntries.count], mergeChanges: pick % 2 == 0)
                default:
                    if publisher.managedObjectContext === context { publisher.name = "p\(pick)" }
                }
                context.processPendingChanges()
                for feed in live(feeds) {
                    #expect(DerivedStack.actual(feed) == DerivedStack.expected(feed), "after step \(step) of \(steps)")
                }
            }
            try save()
        }
        // What the store holds agrees too.
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: context.persistentStoreCoordinator)
        try reader.performAndWait {
            for feed in try reader.fetch(FetchRequest<Feed>()) {
                #expect(DerivedStack.actual(feed) == DerivedStack.expected(feed), "stored values after \(steps)")
            }
        }
    }
}
