import Coherence
import Foundation

/// The model of the run-time query tests: cars at dealers, as a Core Data
/// user's inventory app has them.
final class Automobile: ManagedObject {
    @Attribute var make = ""
    @Attribute var model: String?
    @Attribute var year = 0
    @Attribute var price = 0.0
    @Attribute var isElectric = false
    @Attribute var photo = Data()
    @Relationship var dealer: CarDealer?
}

final class CarDealer: ManagedObject {
    @Attribute var name = ""
    @Relationship(inverse: \Automobile.dealer, deleteRule: .nullify)
    var cars: Set<Automobile>
}

enum RunTimeQueryStack {
    /// (make, model, year, price, electric)
    static let inventory: [(String, String?, Int, Double, Bool)] = [
        ("Tesla", "Model 3", 2021, 40_000, true),
        ("Volvo", "XC40", 2019, 30_000, false),
        ("Tesla", "Model Y", 2023, 50_000, true),
        ("Fiat", nil, 2019, 12_000, false),
        ("Volvo", "EX30", 2024, 36_000, true),
        ("BMW", "i3", 2019, 25_000, true),
        ("fiat", "500", 2021, 15_000, false),
    ]

    /// A private-queue context on a new store of `store`'s kind, holding the
    /// inventory, saved; cars of even index at dealer "North", the others
    /// at "South".
    static func seeded(_ store: StoreKind, inventory: [(String, String?, Int, Double, Bool)] = inventory) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Automobile.self, CarDealer.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        try context.performAndWait {
            let north = CarDealer(context: context), south = CarDealer(context: context)
            north.name = "North"
            south.name = "South"
            for (index, car) in inventory.enumerated() {
                let automobile = Automobile(context: context)
                (automobile.make, automobile.model, automobile.year, automobile.price, automobile.isElectric) = car
                automobile.dealer = index.isMultiple(of: 2) ? north : south
            }
            try context.save()
        }
        return context
    }
}
