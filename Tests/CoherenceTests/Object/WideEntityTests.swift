import Coherence
import Foundation
import Testing

/// An entity with more properties than an object's inline change masks hold
/// (32) and than one word of a property mask holds (64): writes of its
/// properties from the 33rd and the 65th on are tracked, announced, undone
/// and saved like the first ones. Core Data announces a saved object whose
/// values changed under `NSUpdatedObjectsKey` whatever its number of
/// properties.
/// https://developer.apple.com/documentation/coredata/nsupdatedobjectskey
@Suite("Entities with many properties")
struct WideEntityTests {
    /// 69 attributes (indexes 0 to 68), then the relationship `peer` (69).
    final class WideRecord: ManagedObject {
        @Attribute var a00 = 0; @Attribute var a01 = 0; @Attribute var a02 = 0; @Attribute var a03 = 0; @Attribute var a04 = 0
        @Attribute var a05 = 0; @Attribute var a06 = 0; @Attribute var a07 = 0; @Attribute var a08 = 0; @Attribute var a09 = 0
        @Attribute var a10 = 0; @Attribute var a11 = 0; @Attribute var a12 = 0; @Attribute var a13 = 0; @Attribute var a14 = 0
        @Attribute var a15 = 0; @Attribute var a16 = 0; @Attribute var a17 = 0; @Attribute var a18 = 0; @Attribute var a19 = 0
        @Attribute var a20 = 0; @Attribute var a21 = 0; @Attribute var a22 = 0; @Attribute var a23 = 0; @Attribute var a24 = 0
        @Attribute var a25 = 0; @Attribute var a26 = 0; @Attribute var a27 = 0; @Attribute var a28 = 0; @Attribute var a29 = 0
        @Attribute var a30 = 0; @Attribute var a31 = 0; @Attribute var a32 = 0; @Attribute var a33 = 0; @Attribute var a34 = 0
        @Attribute var a35 = 0; @Attribute var a36 = 0; @Attribute var a37 = 0; @Attribute var a38 = 0; @Attribute var a39 = 0
        @Attribute var a40 = 0; @Attribute var a41 = 0; @Attribute var a42 = 0; @Attribute var a43 = 0; @Attribute var a44 = 0
        @Attribute var a45 = 0; @Attribute var a46 = 0; @Attribute var a47 = 0; @Attribute var a48 = 0; @Attribute var a49 = 0
        @Attribute var a50 = 0; @Attribute var a51 = 0; @Attribute var a52 = 0; @Attribute var a53 = 0; @Attribute var a54 = 0
        @Attribute var a55 = 0; @Attribute var a56 = 0; @Attribute var a57 = 0; @Attribute var a58 = 0; @Attribute var a59 = 0
        @Attribute var a60 = 0; @Attribute var a61 = 0; @Attribute var a62 = 0; @Attribute var a63 = 0; @Attribute var a64 = 0
        @Attribute var a65 = 0; @Attribute var a66 = 0; @Attribute var a67 = 0; @Attribute var a68 = 0
        @Relationship var peer: WidePeer?
    }

    final class WidePeer: ManagedObject {
        @Attribute var name = ""
        @Relationship(inverse: \WideRecord.peer) var records: Set<WideRecord>
    }

    static func coordinator(_ store: StoreKind) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [WideRecord.self, WidePeer.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    @Test(arguments: StoreKind.allCases) func writesOnEitherSideOfThe32ndAnd64thPropertyAreTrackedAnnouncedAndSaved(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator)
        let log = context.performAndWait { ChangeLog(context) }
        let id = try context.performAndWait {
            let record = WideRecord(context: context)
            try context.save()
            log.clear()
            record.a05 = 5
            record.a40 = 40
            record.a66 = 66
            #expect(record.isUpdated)
            #expect(Set(record.changedValues().keys) == ["a05", "a40", "a66"])
            context.processPendingChanges()
            #expect(log.last?.updated == [record])
            try context.save()
            #expect(!record.hasChanges && record.changedValues().isEmpty, "a save clears every mask")
            return record.objectID
        }
        let reader = Self.context(coordinator)
        try reader.performAndWait {
            let record = try #require(try reader.existingObject(with: id) as? WideRecord)
            #expect([record.a05, record.a40, record.a66, record.a41] as [Int] == [5, 40, 66, 0])
        }
    }

    @Test(arguments: StoreKind.allCases) func aWriteUndoneBeforeTheNotificationIsNotAnnounced(store: StoreKind) throws {
        let context = Self.context(try Self.coordinator(store))
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let record = WideRecord(context: context)
            try context.save()
            log.clear()
            record.a66 = 1
            record.a66 = 0
            context.processPendingChanges()
            #expect(log.changes.isEmpty, "a66 is as it was announced")
            record.a40 = 1
            context.processPendingChanges()
            #expect(log.last?.updated == [record])
            #expect(Set(record.changedValues().keys) == ["a40"])
            log.clear()
            record.a40 = 0
            context.processPendingChanges()
            #expect(log.last?.updated == [record], "a40 differs from what the last notification announced")
            #expect(!record.isUpdated, "nothing differs from the committed values")
        }
    }

    @Test(arguments: StoreKind.allCases) func rollbackRestoresPropertiesPastThe32nd(store: StoreKind) throws {
        let context = Self.context(try Self.coordinator(store))
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let record = WideRecord(context: context)
            record.a50 = 7
            record.a67 = 8
            try context.save()
            record.a50 = 70
            record.a67 = 80
            record.a01 = 10
            context.processPendingChanges()
            log.clear()
            context.rollback()
            #expect([record.a50, record.a67, record.a01] as [Int] == [7, 8, 0])
            #expect(!record.hasChanges)
            #expect(log.last?.updated == [record])
        }
    }

    /// The last property of the inline masks (31), the first of the extras
    /// (32), and the two sides of the extras' second word (63, 64).
    @Test(arguments: StoreKind.allCases) func writesAtTheMasksBoundariesAreAnnouncedAndRolledBack(store: StoreKind) throws {
        let context = Self.context(try Self.coordinator(store))
        let log = context.performAndWait { ChangeLog(context) }
        try context.performAndWait {
            let record = WideRecord(context: context)
            try context.save()
            for (position, keyPath) in [\WideRecord.a31, \WideRecord.a32, \WideRecord.a63, \WideRecord.a64].enumerated() {
                log.clear()
                record[keyPath: keyPath] = position + 1
                #expect(record.isUpdated)
                context.processPendingChanges()
                #expect(log.last?.updated == [record], "write \(position) announced")
                log.clear()
                context.rollback()
                #expect(record[keyPath: keyPath] == 0)
                #expect(!record.hasChanges && record.changedValues().isEmpty)
                #expect(log.last?.updated == [record], "the rollback announced")
            }
        }
    }

    /// `refresh(_:mergeChanges: false)` discards the object's changes, those
    /// past the 32nd property included; `mergeChanges: true` keeps them.
    /// https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/refresh(_:mergechanges:)
    @Test(arguments: StoreKind.allCases) func refreshKeepsOrDiscardsChangesPastThe32ndProperty(store: StoreKind) throws {
        let context = Self.context(try Self.coordinator(store))
        try context.performAndWait {
            let record = WideRecord(context: context)
            try context.save()
            record.a40 = 4
            record.a66 = 6
            context.refresh(record, mergeChanges: true)
            #expect(Set(record.changedValues().keys) == ["a40", "a66"])
            #expect(record.a40 == 4 && record.a66 == 6)
            context.refresh(record, mergeChanges: false)
            #expect(record.isFault)
            #expect(record.a40 == 0 && record.a66 == 0)
            #expect(!record.hasChanges && !context.hasChanges)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRelationshipPastThe64thPropertyToAnotherContextFailsTheSave(store: StoreKind) throws {
        let coordinator = try Self.coordinator(store)
        let context = Self.context(coordinator)
        let other = Self.context(coordinator)
        let stranger = other.performAndWait { WidePeer(context: other) }
        try context.performAndWait {
            let record = WideRecord(context: context)
            record.peer = stranger
            do {
                try context.save()
                Issue.record("the save should have thrown")
            } catch let error as ValidationError {
                guard case .crossContextRelationship(let entity, let property, _) = error else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(entity == "WideRecord" && property == "peer")
            }
            record.peer = nil
            try context.save()
            #expect(!context.hasChanges)
        }
    }
}
