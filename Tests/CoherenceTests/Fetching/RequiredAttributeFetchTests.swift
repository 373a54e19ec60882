import Coherence
import Foundation
import Testing

/// Papers of a vehicle: a `Codable` value whose fields are not all decodable
/// from zero values (`Priority` has no case with the raw value `""`).
struct Papers: Codable, Hashable, Sendable {
    var kind: Priority
    var owners: [String]
    var note: String?
    var issued: Date
}

/// A vehicle whose only attributes are required `Codable` ones.
final class Registration: ManagedObject {
    @Attribute var plate: String
    @Attribute var papers: Papers
}

/// Fetching with predicates and sort descriptors on attributes declared
/// without an initial value (issue 9, part 4). Key paths used to be
/// translated by reading them on a prototype object, which stopped the
/// program ("read before it was set") for every required attribute; the
/// declarations' own key paths need no object now, and these tests keep it
/// so.
@Suite("Fetching on required attributes")
struct RequiredAttributeFetchTests {
    /// Gives vehicle `n` (1 to 3) values that grow with `n`.
    private static func fill(_ vehicle: Vehicle, number n: Int) {
        vehicle.registered = n == 2
        vehicle.seats = n
        vehicle.doors = Int16(n)
        vehicle.mileage = Int32(n * 1_000)
        vehicle.serial = Int64(n) << 40
        vehicle.weight = Double(n) * 1.5
        vehicle.width = Float(n) * 0.25
        vehicle.numberPlate = "\(n)"
        vehicle.builtAt = Date(timeIntervalSince1970: Double(n) * 86_400)
        vehicle.photo = Data([UInt8(n), 0xFF])
        vehicle.vin = UUID(uuidString: "0000000\(n)-0000-0000-0000-000000000000")!
        vehicle.manual = URL(string: "https://example.com/manual/\(n)")!
        vehicle.price = Decimal(n) + Decimal(string: "0.25")!
        vehicle.level = n == 1 ? .one : .two
        vehicle.garage = Address(street: "Street \(n)", zip: n)
    }

    /// Three vehicles saved (inserted as 3, 1, 2), and a second context on
    /// the same store that has never seen them.
    private static func seeded(_ store: StoreKind) throws -> ManagedObjectContext {
        let writer = try TestStack.context(store)
        try writer.performAndWait {
            for number in [3, 1, 2] {
                fill(Vehicle(context: writer), number: number)
            }
            try writer.save()
        }
        return ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: writer.persistentStoreCoordinator)
    }

    @Test(arguments: StoreKind.allCases) func everyRequiredAttributeKindInAPredicate(store: StoreKind) throws {
        let context = try Self.seeded(store)
        let doors: Int16 = 2, mileage: Int32 = 2_000, serial = Int64(2) << 40
        let weight = 3.0, width: Float = 0.5, builtAt = Date(timeIntervalSince1970: 2 * 86_400)
        let photo = Data([2, 0xFF]), vin = UUID(uuidString: "00000002-0000-0000-0000-000000000000")!
        let manual = URL(string: "https://example.com/manual/2")!, price = Decimal(string: "2.25")!
        let level = Level.one, garage = Address(street: "Street 2", zip: 2)
        try context.performAndWait { () throws in
            func plates(_ predicate: Predicate<Vehicle>) throws -> [String] {
                try context.fetch(FetchRequest(predicate: predicate, sortBy: [SortDescriptor(\.numberPlate)])).map(\.numberPlate)
            }
            #expect(try plates(#Predicate { $0.registered }) == ["2"])
            #expect(try plates(#Predicate { $0.seats >= 2 }) == ["2", "3"])
            #expect(try plates(#Predicate { $0.doors == doors }) == ["2"])
            #expect(try plates(#Predicate { $0.mileage < mileage }) == ["1"])
            #expect(try plates(#Predicate { $0.serial == serial }) == ["2"])
            #expect(try plates(#Predicate { $0.weight > weight }) == ["3"])
            #expect(try plates(#Predicate { $0.width == width }) == ["2"])
            #expect(try plates(#Predicate { $0.numberPlate == "1" }) == ["1"])
            #expect(try plates(#Predicate { $0.builtAt <= builtAt }) == ["1", "2"])
            #expect(try plates(#Predicate { $0.photo == photo }) == ["2"])
            #expect(try plates(#Predicate { $0.vin == vin }) == ["2"])
            #expect(try plates(#Predicate { $0.manual == manual }) == ["2"])
            #expect(try plates(#Predicate { $0.price == price }) == ["2"])
            #expect(try plates(#Predicate { $0.level == level }) == ["1"])
            #expect(try plates(#Predicate { $0.garage == garage }) == ["2"])
            #expect(try context.count(for: FetchRequest<Vehicle>(predicate: #Predicate { $0.numberPlate != "2" })) == 2)
        }
    }

    /// `Bool`, `Data`, `URL` and `Codable` structs are not `Comparable`, so
    /// Swift's `SortDescriptor` cannot order by them; every other kind is here.
    @Test(arguments: StoreKind.allCases) func everyComparableRequiredAttributeKindInASortDescriptor(store: StoreKind) throws {
        let context = try Self.seeded(store)
        try context.performAndWait {
            // Built with their order: setting `order` afterwards does not
            // change how Foundation's SortDescriptor compares on Linux.
            func both<Value: Comparable>(_ keyPath: KeyPath<Vehicle, Value> & Sendable) -> [SortDescriptor<Vehicle>] {
                [SortDescriptor(keyPath), SortDescriptor(keyPath, order: .reverse)]
            }
            let sorts: [(String, [SortDescriptor<Vehicle>])] = [
                ("seats", both(\.seats)), ("doors", both(\.doors)), ("mileage", both(\.mileage)),
                ("serial", both(\.serial)), ("weight", both(\.weight)), ("width", both(\.width)),
                ("numberPlate", both(\.numberPlate)), ("builtAt", both(\.builtAt)), ("vin", both(\.vin)),
                ("price", both(\.price)),
            ]
            for (name, pair) in sorts {
                let ascending = try context.fetch(FetchRequest<Vehicle>(sortBy: [pair[0]])).map(\.numberPlate)
                let descending = try context.fetch(FetchRequest<Vehicle>(sortBy: [pair[1]])).map(\.numberPlate)
                #expect(ascending == ["1", "2", "3"], "sorted by \(name)")
                #expect(descending == ["3", "2", "1"], "sorted by \(name), reversed")
            }
            let byLevel = try context.fetch(FetchRequest<Vehicle>(sortBy: [SortDescriptor(\.level, order: .reverse),
                                                                           SortDescriptor(\.numberPlate)]))
            #expect(byLevel.map(\.numberPlate) == ["2", "3", "1"])
            let window = FetchRequest<Vehicle>(predicate: #Predicate { $0.seats > 1 }, sortBy: [SortDescriptor(\.price, order: .reverse)])
            window.fetchLimit = 1
            #expect(try context.fetch(window).map(\.numberPlate) == ["3"])
        }
    }

    @Test(arguments: StoreKind.allCases) func requiredCodableValuesWithoutZeroValuedFields(store: StoreKind) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [Registration.self]))
        try coordinator.addPersistentStore(store.makeDescription())
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let papers = Papers(kind: .high, owners: ["Ann"], note: nil, issued: Date(timeIntervalSince1970: 7))
        try context.performAndWait {
            for (plate, kind) in [("B", Priority.low), ("A", .high)] {
                let registration = Registration(context: context)
                registration.plate = plate
                registration.papers = Papers(kind: kind, owners: ["Ann"], note: nil, issued: Date(timeIntervalSince1970: 7))
            }
            try context.save()
            let found = try context.fetch(FetchRequest<Registration>(
                predicate: #Predicate { $0.papers == papers }, sortBy: [SortDescriptor(\.plate)]))
            #expect(found.map(\.plate) == ["A"])
        }
    }
}
