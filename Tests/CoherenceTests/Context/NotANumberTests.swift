import Coherence
import Foundation
import Testing

/// A NaN cannot be stored so that it reads back: SQLite turns a NaN into
/// NULL (https://www.sqlite.org/c3ref/bind_blob.html: "a NaN ... is
/// converted into a NULL"), so a required `Double` would fail every read,
/// an optional one read back `nil`, and a NaN `Date` or `Decimal` could not
/// be read at all. The reliability campaign (issue 28) found both. Coherence
/// refuses the save, naming the entity and property, on every store (so
/// that code tested on the in-memory store fails the same way); the context
/// keeps its changes.
final class SensorReading: ManagedObject {
    @Attribute var value = 0.0
    @Attribute var ratio: Float?
    @Attribute var takenAt = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var amount: Decimal?
}

@Suite("NaN values")
struct NotANumberTests {
    private func context(_ store: StoreKind) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [SensorReading.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    }

    @Test(arguments: StoreKind.allCases) func aSaveWithNaNIsRefusedNamingTheProperty(store: StoreKind) throws {
        let context = try context(store)
        try context.performAndWait {
            let cases: [(String, (SensorReading) -> Void)] = [
                ("value", { $0.value = .nan }),
                ("ratio", { $0.ratio = .nan }),
                ("takenAt", { $0.takenAt = Date(timeIntervalSinceReferenceDate: .nan) }),
                ("amount", { $0.amount = .nan }),
            ]
            for (property, spoil) in cases {
                let measurement = SensorReading(context: context)
                spoil(measurement)
                #expect(throws: ValidationError.invalidValue(entity: "SensorReading", property: property,
                                                             reason: "NaN (not a number) cannot be stored: no store reads it back as it was")) {
                    try context.save()
                }
                #expect(context.insertedObjects.contains(measurement), "the context keeps its changes")
                context.delete(measurement)
            }
            let fine = SensorReading(context: context)
            fine.value = .infinity
            fine.ratio = -0.5
            try context.save()
            context.refreshAllObjects()
            #expect(try context.fetch(FetchRequest<SensorReading>()).map(\.value) == [.infinity])
        }
    }

    @Test(arguments: StoreKind.allCases) func batchRequestsRefuseNaN(store: StoreKind) throws {
        let context = try context(store)
        try context.performAndWait {
            #expect(throws: ValidationError.invalidValue(entity: "SensorReading", property: "value",
                                                         reason: "NaN (not a number) cannot be stored: no store reads it back as it was")) {
                try context.execute(BatchInsertRequest<SensorReading>(objects: [["value": Double.nan]]))
            }
            try context.execute(BatchInsertRequest<SensorReading>(objects: [["value": 1.0]]))
            #expect(throws: ValidationError.self) {
                try context.execute(BatchUpdateRequest<SensorReading>(propertiesToUpdate: ["takenAt": Date(timeIntervalSinceReferenceDate: .nan)]))
            }
            #expect(try context.fetch(FetchRequest<SensorReading>()).map(\.value) == [1.0])
        }
    }
}
