import Coherence
import Foundation
import Testing

/// Fetched results controllers, batch requests and format predicates on a
/// parent entity cover its sub-entities' objects, as Core Data's
/// `includesSubentities` (default `true`) makes them
/// (https://developer.apple.com/documentation/coredata/nsfetchrequest/includessubentities).
@Suite("Sub-entities: controllers and batch requests")
struct SubentityRequestTests {
    @Test(arguments: StoreKind.allCases) func aControllerOnTheParentTracksSubentityObjects(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            let controller = FetchedResultsController(
                fetchRequest: FetchRequest<Car>(sortBy: [SortDescriptor(\.name)]), managedObjectContext: context, sectionNameKeyPath: nil)
            let delegate = RecordingDelegate()
            controller.delegate = delegate
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.name) == ["Alpine", "Clio", "Zoe"])
            let sport = SportCar(context: context)
            sport.name = "Berlinette"
            let truck = Truck(context: context)
            truck.name = "Atego"
            context.processPendingChanges()
            #expect(controller.fetchedObjects?.map(\.name) == ["Alpine", "Berlinette", "Clio", "Zoe"], "a truck is not a car")
            #expect(delegate.events == ["will", "insert", "did"])
            // Off: only Car's own objects.
            let exact = FetchRequest<Car>(sortBy: [SortDescriptor(\.name)])
            exact.includesSubentities = false
            let cars = FetchedResultsController(fetchRequest: exact, managedObjectContext: context, sectionNameKeyPath: nil)
            try cars.performFetch()
            #expect(cars.fetchedObjects?.map(\.name) == ["Clio", "Zoe"])
            let another = SportCar(context: context)
            another.name = "A110 S"
            let plain = Car(context: context)
            plain.name = "Twingo"
            context.processPendingChanges()
            #expect(cars.fetchedObjects?.map(\.name) == ["Clio", "Twingo", "Zoe"])
        }
    }

    @Test(arguments: StoreKind.allCases) func batchRequestsOnTheParentIncludeSubentities(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            let update = BatchUpdateRequest<Car>(predicate: #Predicate { $0.year >= 2020 }, propertiesToUpdate: ["seats": 5])
            update.resultType = .objectIDs
            let updated = (try context.execute(update) as! BatchUpdateResult)
            #expect(updated.count == 2)
            #expect(Set(updated.objectIDs?.map(\.entityName) ?? []) == ["Car", "SportCar"], "IDs name the concrete entities")
            context.reset()
            #expect(try context.fetch(FetchRequest<Car>(sortBy: [SortDescriptor(\.name)])).map(\.seats) == [5, 4, 5])
            #expect(try context.fetch(FetchRequest<Truck>()).first?.name == "Actros", "a sibling's rows are untouched")
            let delete = BatchDeleteRequest<RoadVehicle>(predicate: #Predicate { $0.year < 2021 })
            delete.resultType = .objectIDs
            let deleted = (try context.execute(delete) as! BatchDeleteResult)
            #expect(Set(deleted.objectIDs?.map(\.entityName) ?? []) == ["Car", "SportCar", "Truck"])
            context.reset()
            #expect(try context.fetch(FetchRequest<RoadVehicle>()).map(\.name) == ["Zoe"])
            #expect(try context.fetch(FetchRequest<Depot>()).first?.vehicleCount == 1, "derived values recomputed")
        }
    }

    /// A format predicate on a parent's attribute, as ported `NSPredicate`
    /// code writes it, matches sub-entity objects.
    @Test(arguments: StoreKind.allCases) func formatPredicatesOnTheParent(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            context.reset()
            let request = FetchRequest<RoadVehicle>(predicate: Predicate<RoadVehicle>(format: "year >= %d AND depot.city == %@", 2020, "Lyon"),
                                                    sortBy: [SortDescriptor(\.name)])
            #expect(try context.fetch(request).map(\.name) == ["Alpine", "Zoe"])
        }
    }

    /// Observers of a parent entity hear about its sub-entities' objects.
    @Test func entityObserversOfTheParentSeeSubentityObjects() throws {
        let context = try SubentityStack.context(.inMemory)
        context.performAndWait {
            var inserted: [String] = []
            let token = context.observe(Car.self) { change in inserted += change.inserted.map(\.name) }
            let sport = SportCar(context: context)
            sport.name = "Alpine"
            let truck = Truck(context: context)
            truck.name = "Actros"
            context.processPendingChanges()
            #expect(inserted == ["Alpine"])
            withExtendedLifetime(token) {}
        }
    }

    /// A nested context sees its parent's unsaved sub-entity objects in a
    /// fetch of the parent entity, and saves them into it.
    @Test(arguments: StoreKind.allCases) func nestedContexts(store: StoreKind) throws {
        let context = try SubentityStoreTests.seeded(store)
        try context.performAndWait { () throws in
            let sport = SportCar(context: context)
            sport.name = "Berlinette"
            let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: context)
            try child.performAndWait { () throws in
                let cars = try child.fetch(FetchRequest<Car>(sortBy: [SortDescriptor(\.name)]))
                #expect(cars.map(\.name) == ["Alpine", "Berlinette", "Clio", "Zoe"])
                #expect(cars.map { $0 is SportCar } == [true, true, false, false])
                let another = SportCar(context: child)
                another.name = "A110"
                try child.save()
            }
            #expect(try context.count(for: FetchRequest<SportCar>()) == 3)
            try context.save()
            context.reset()
            #expect(try context.fetch(FetchRequest<SportCar>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["A110", "Alpine", "Berlinette"])
        }
    }

    /// A uniqueness constraint of a parent entity holds across its
    /// sub-entities: "subentities may extend a superentity's constraint"
    /// (https://developer.apple.com/documentation/coredata/nsentitydescription/uniquenessconstraints).
    @Test(arguments: StoreKind.allCases) func aParentsUniquenessConstraintCoversSubentities(store: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Gadget.self, Phone.self, Watch.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait { () throws in
            let phone = Phone(context: context)
            phone.serial = "A1"
            try context.save()
            let watch = Watch(context: context)
            watch.serial = "A1"
            #expect(throws: MergeError.self) { try context.save() }
            watch.serial = "B2"
            try context.save()
            // Sub-entities' own constraint: only among phones.
            let other = Phone(context: context)
            other.serial = "C3"
            other.imei = "1"
            let watchTwo = Watch(context: context)
            watchTwo.serial = "D4"
            try context.save()
            let clash = Phone(context: context)
            clash.serial = "E5"
            clash.imei = "1"
            #expect(throws: MergeError.self) { try context.save() }
            context.rollback()
            // An upsert across the hierarchy keeps the stored object and
            // takes the shared attributes.
            context.mergePolicy = .mergeByPropertyObjectTrump
            let again = Watch(context: context)
            again.serial = "A1"
            again.label = "new"
            try context.save()
            #expect(again.isDeleted || again.managedObjectContext == nil)
            context.reset()
            let survivors = try context.fetch(FetchRequest<Gadget>(predicate: #Predicate { $0.serial == "A1" }))
            #expect(survivors.count == 1)
            #expect(survivors.first is Phone)
            #expect(survivors.first?.label == "new")
        }
    }
}

class Gadget: ManagedObject {
    override class var uniquenessConstraints: [[String]] { [["serial"]] }
    @Attribute var serial = ""
    @Attribute var label = ""
}

final class Phone: Gadget {
    override class var uniquenessConstraints: [[String]] { [["serial"], ["imei"]] }
    @Attribute var imei: String?
}

final class Watch: Gadget {}
