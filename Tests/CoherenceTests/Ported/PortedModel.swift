// Ported from alemar11/CoreDataPlus (commit f71b5f5706d8a17e9701b10d2fa2a56ede7d5e32), by renaming only:
//   Tests/Resources/SampleModel/Entities/Car.swift, Person.swift (the entities of SampleModel.xcdatamodel, version 1)
//   Tests/Resources/SampleModel/NSManagedObjectContext+SampleModel.swift (fillWithSampleData)
//   Tests/Utils/InMemoryTestCase.swift, OnDiskTestCase.swift, Utils.swift, BaseTestCase.swift
// plus the XCTest -> Swift Testing shims the ported tests need (PortedExpectation,
// fulfillment(of:timeout:), expectation(description:)), which are not Coherence API.
//
// Translation rules applied everywhere (see /work/ported/REPORT.md):
//   NSX -> X; @NSManaged -> @Attribute / @Relationship; @objc(Name) -> `override class var entityName`;
//   the model file's options (optional/transient/default/constraints) -> Coherence's declaration options;
//   #keyPath(Car.x) -> "x" (no #keyPath without the Objective-C runtime);
//   Combine's publisher(for:object:).sink -> NotificationCenter.addObserver(forName:object:queue:using:)
//   (no Combine on Linux), mutable locals captured by the sink -> `nonisolated(unsafe) var`;
//   XCTest -> Swift Testing (#expect, #require, Issue.record, async fulfillment(of:timeout:)).
// Nothing here was changed to fit Coherence: lines that do not compile are gaps, listed in REPORT.md.

import Coherence
import Foundation
import Testing

// MARK: - Entities (SampleModel.xcdatamodel, version 1: Car, SportCar, ExpensiveSportCar, Person)

// Core Data: `public class BaseEntity: NSManagedObject, DelayedDeletable` — a class hierarchy that
// deviates from the entity hierarchy: BaseEntity is NOT an entity of the model, Car is a root entity.
// Ported as it is: a superclass that is not listed in the model is an ordinary base class, and the
// attribute it declares belongs to each entity below it (DelayedDeletable is a test-resource protocol
// no ported test uses).
public class PortedBaseEntity: ManagedObject {
  @Attribute public var markedForDeletionAsOf: Date?
}

// Core Data: `@objc(Car) public class Car: BaseEntity`
public class PortedCar: PortedBaseEntity {
  override public class var entityName: String { "Car" }  // @objc(Car)
  @Attribute public var maker: String?
  @Attribute public var model: String?
  @Attribute public var numberPlate: String  // required in the model file (attributeType="String", not optional); Core Data: `String!`
  @Relationship public var owner: PortedPerson?  // inverse: Person.cars, Nullify
  @Attribute(.transient) public var currentDrivingSpeed: Int = 0  // transient property (model: Integer 64, default 0)
  // @NSManaged public var color: Color?  // transformable (ColorTransformer / NSSecureCoding): not ported
  override public class var uniquenessConstraints: [[String]] { [["numberPlate"]] }
}

// Core Data: `@objc(SportCar) public class SportCar: Car {}` (entity SportCar, parentEntity Car)
public class PortedSportCar: PortedCar {
  override public class var entityName: String { "SportCar" }
}

// Core Data: `@objc(ExpensiveSportCar) final public class ExpensiveSportCar: SportCar`
final public class PortedExpensiveSportCar: PortedSportCar {
  override public class var entityName: String { "ExpensiveSportCar" }
  @Attribute public var isLimitedEdition: Bool = false  // model: Boolean, default NO
}

// Core Data: `@objc(Person) final public class Person: NSManagedObject`
final public class PortedPerson: ManagedObject {
  override public class var entityName: String { "Person" }  // @objc(Person)
  // preserved after deletion (tombstone). Core Data: required, no default, set in awakeFromInsert.
  @Attribute(.preservesValueInHistoryOnDeletion) public private(set) var id: UUID
  @Attribute public var firstName: String
  @Attribute public var lastName: String
  // Core Data: `@NSManaged public var cars: NSSet?` (to-many, inverse Car.owner, Nullify)
  @Relationship(inverse: \PortedCar.owner) public var cars: Set<PortedCar>
  @Attribute(.transient) public var isDriving: Bool = false  // transient property (model: default NO)

  // Core Data (Person.swift): `public var _cars: Set<Car>?`; renamed, as `_cars` is the field the
  // `@Relationship` macro adds for `cars`.
  public var optionalCars: Set<PortedCar>? {
    get {
      cars
    }
    set {
      if let newCars = newValue {
        self.cars = newCars
      } else {
        self.cars = []
      }
    }
  }

  // Core Data: `extension Person: UpdateTimestampable { @NSManaged public var updatedAt: Date }`
  // (UpdateTimestampable is a one-property test-resource protocol; the conformance is dropped.) Declared here:
  // A macro-declared property adds stored fields, which Swift allows only in the class body.
  @Attribute public var updatedAt: Date

  // Core Data: these two overrides are in an extension of Person; Swift cannot override a non-@objc method from
  // an extension, so they are declared in the class.
  // `@NSManaged private var primitiveUpdatedAt: Date` and `@NSManaged private var primitiveId: UUID`
  // are Core Data's dynamic primitive accessors (Objective-C runtime); the original's own alternative,
  // setPrimitiveValue(_:forKey:), is used instead.

  public override func awakeFromInsert() {
    super.awakeFromInsert()
    setPrimitiveValue(Date(), forKey: "updatedAt")  // primitiveUpdatedAt = Date()
    setPrimitiveValue(UUID(), forKey: "id")  // primitiveId = UUID()
  }

  public override func willSave() {
    super.willSave()
    // if only transients properties have changed, don't refresh the update date
    guard hasPersistentChangedValues else { return }

    // refreshUpdateDate(observingChanges: false) — test-resource helper (UpdateTimestampable), inlined:
    guard !isDeleted else { return }
    guard changedValues()["updatedAt"] == nil else { return }
    setPrimitiveValue(Date(), forKey: "updatedAt")  // we don't want to get notified when this value changes.
  }

  override public class var uniquenessConstraints: [[String]] { [["firstName", "lastName"]] }
}

/// SampleModelVersion.version1's model (Core Data loads it from SampleModel.momd).
let model1 = try! ManagedObjectModel(entities: [
  PortedCar.self, PortedExpensiveSportCar.self, PortedPerson.self, PortedSportCar.self,
])

// MARK: - Sample data (Tests/Resources/SampleModel/NSManagedObjectContext+SampleModel.swift)

extension ManagedObjectContext {
  /// Fills the context with a sample data set. (145 objects)
  func fillWithSampleData() {
    let context = self

    let person1 = PortedPerson(context: context)
    person1.firstName = "Edythe"
    person1.lastName = "Moreton"

    let person2 = PortedPerson(context: context)
    person2.firstName = "Ellis"
    person2.lastName = "Khoury"

    let person3 = PortedPerson(context: context)
    person3.firstName = "Faron"
    person3.lastName = "Moreton"

    let person4 = PortedPerson(context: context)
    person4.firstName = "Darin"
    person4.lastName = "Meadow"

    let person5 = PortedPerson(context: context)
    person5.firstName = "Juliana"
    person5.lastName = "Pyke"

    let person6 = PortedPerson(context: context)
    person6.firstName = "Victoria"
    person6.lastName = "Distefano"

    let person7 = PortedPerson(context: context)
    person7.firstName = "Wardell"
    person7.lastName = "Reynolds"

    let person8 = PortedPerson(context: context)
    person8.firstName = "Morgan"
    person8.lastName = "Wigner"

    let person9 = PortedPerson(context: context)
    person9.firstName = "Gavin"
    person9.lastName = "Chuang"

    let person10 = PortedPerson(context: context)
    person10.firstName = "Bret"
    person10.lastName = "Munger"

    let person11 = PortedPerson(context: context)
    person11.firstName = "Theodora"
    person11.lastName = "Stone"

    let person12 = PortedPerson(context: context)
    person12.firstName = "Bishop"
    person12.lastName = "Boosalis"

    let person13 = PortedPerson(context: context)
    person13.firstName = "Jerrod"
    person13.lastName = "Wade"

    let person14 = PortedPerson(context: context)
    person14.firstName = "Ross"
    person14.lastName = "Hurowitz"

    let person15 = PortedPerson(context: context)
    person15.firstName = "Victoria"
    person15.lastName = "Coster"

    let person16 = PortedPerson(context: context)
    person16.firstName = "Lorayne"
    person16.lastName = "Gleaves"

    let person17 = PortedPerson(context: context)
    person17.firstName = "Bret"
    person17.lastName = "Nabokov"

    let person18 = PortedPerson(context: context)
    person18.firstName = "Vaughn"
    person18.lastName = "Gleaves"

    let person19 = PortedPerson(context: context)
    person19.firstName = "Mark"
    person19.lastName = "Alves"

    let person20 = PortedPerson(context: context)
    person20.firstName = "Alex"
    person20.lastName = "Rathbun"

    /// FIAT
    let car1 = PortedCar(context: context)
    car1.maker = "FIAT"
    car1.model = "Panda"
    car1.numberPlate = "1"

    let car2 = PortedCar(context: context)
    car2.maker = "FIAT"
    car2.model = "Punto"
    car2.numberPlate = "2"

    let car3 = PortedCar(context: context)
    car3.maker = "FIAT"
    car3.model = "Tipo"
    car3.numberPlate = "3"

    /// Alfa Romeo
    let car4 = PortedCar(context: context)
    car4.maker = "Alfa Romeo"
    car4.model = "Giulietta"
    car4.numberPlate = "4"

    let car5 = PortedCar(context: context)
    car5.maker = "Alfa Romeo"
    car5.model = "Giulia"
    car5.numberPlate = "5"

    let car6 = PortedCar(context: context)
    car6.maker = "Alfa Romeo"
    car6.model = "Mito"
    car6.numberPlate = "6"

    /// Volkswagen
    let car7 = PortedCar(context: context)
    car7.maker = "Volkswagen"
    car7.model = "Golf"
    car7.numberPlate = "7"

    let car8 = PortedCar(context: context)
    car8.maker = "Volkswagen"
    car8.model = "Polo"
    car8.numberPlate = "8"

    /// Kia
    let car9 = PortedCar(context: context)
    car9.maker = "Kia"
    car9.model = "Rio"
    car9.numberPlate = "9"

    let car10 = PortedCar(context: context)
    car10.maker = "Kia"
    car10.model = "Sportage"
    car10.numberPlate = "10"

    let car11 = PortedCar(context: context)
    car11.maker = "Kia"
    car11.model = "Soul"
    car11.numberPlate = "11"

    let car12 = PortedCar(context: context)
    car12.maker = "Kia"
    car12.model = "Carens"
    car12.numberPlate = "12"

    /// Renault
    let car13 = PortedCar(context: context)
    car13.maker = "Renault"
    car13.model = "Twingo"
    car13.numberPlate = "13"

    let car14 = PortedCar(context: context)
    car14.maker = "Renault"
    car14.model = "Clio"
    car14.numberPlate = "14"

    let car15 = PortedCar(context: context)
    car15.maker = "Renault"
    car15.model = "Megane"
    car15.numberPlate = "15"

    /// Sport Car
    let sportCar1 = PortedSportCar(context: context)
    sportCar1.maker = "BMW"
    sportCar1.model = "M6 Coupe"
    sportCar1.numberPlate = "200"

    let sportCar2 = PortedSportCar(context: context)
    sportCar2.maker = "Mercedes-Benz"
    sportCar2.model = "AMG GT S"
    sportCar2.numberPlate = "201"

    let sportCar3 = PortedSportCar(context: context)
    sportCar3.maker = "Maserati"
    sportCar3.model = "GranTurismo MC"
    sportCar3.numberPlate = "202"

    let sportCar4 = PortedSportCar(context: context)
    sportCar4.maker = "McLaren"
    sportCar4.model = "570GT"
    sportCar4.numberPlate = "203"

    let sportCar5 = PortedSportCar(context: context)
    sportCar5.maker = "Lamborghini"
    sportCar5.model = "Aventador LP750-4"
    sportCar5.numberPlate = "204"

    /// Expensive Sport Car
    let expensiveSportCar1 = PortedExpensiveSportCar(context: context)
    expensiveSportCar1.maker = "BMW"
    expensiveSportCar1.model = "M6 Coupe"
    expensiveSportCar1.numberPlate = "300"
    expensiveSportCar1.isLimitedEdition = true

    let expensiveSportCar2 = PortedExpensiveSportCar(context: context)
    expensiveSportCar2.maker = "Mercedes-Benz"
    expensiveSportCar2.model = "AMG GT S"
    expensiveSportCar2.numberPlate = "301"
    expensiveSportCar2.isLimitedEdition = true

    let expensiveSportCar3 = PortedExpensiveSportCar(context: context)
    expensiveSportCar3.maker = "Maserati"
    expensiveSportCar3.model = "GranTurismo MC"
    expensiveSportCar3.numberPlate = "302"
    expensiveSportCar3.isLimitedEdition = false

    let expensiveSportCar4 = PortedExpensiveSportCar(context: context)
    expensiveSportCar4.maker = "McLaren"
    expensiveSportCar4.model = "570GT"
    expensiveSportCar4.numberPlate = "303"
    expensiveSportCar4.isLimitedEdition = false

    let expensiveSportCar5 = PortedExpensiveSportCar(context: context)
    expensiveSportCar5.maker = "Lamborghini"
    expensiveSportCar5.model = "Aventador LP750-4"
    expensiveSportCar5.numberPlate = "304"
    expensiveSportCar5.isLimitedEdition = false

    /// car15, sportCar5, expensiveSportCar4 and expensiveSportCar5 do not have an owner
    person1.cars = [car1]
    person2.cars = [car2]
    person3.cars = [car3, expensiveSportCar1]
    person4.cars = [car4]
    person5.cars = [car5, expensiveSportCar2, expensiveSportCar3]
    person6.cars = [car6]
    person7.cars = [sportCar1, sportCar2]
    person8.cars = [car7]
    person9.cars = [sportCar3]
    person10.cars = [car8, car9]
    person11.cars = [car10, car11, car12]  // and a lots of panda 🚗
    person12.cars = [sportCar4]
    person13.cars = [car13, car14]
    person14.cars = [car13, car14]

    var cars = [PortedCar]()
    for i in 100..<200 {
      let car = PortedCar(context: context)
      car.maker = "FIAT"
      car.model = "Panda"
      car.numberPlate = "\(i)"
      cars.append(car)
    }
    person11.optionalCars = Set(cars)
  }
}

// MARK: - Containers (Tests/Utils/InMemoryTestCase.swift, OnDiskTestCase.swift)

// MARK: In Memory NSPersistentContainer

final class PortedInMemoryPersistentContainer: PersistentContainer, @unchecked Sendable {
  static func makeNew(named: String? = nil) -> PortedInMemoryPersistentContainer {
    // "/dev/null" it's the same URL we get by default when we create a description like so: let description = NSPersistentStoreDescription()
    var url = URL(fileURLWithPath: "/dev/null")
    if let named = named {
      url.appendPathComponent(named)
    }
    let container = PortedInMemoryPersistentContainer(name: "SampleModel", managedObjectModel: model1)
    let description = container.persistentStoreDescriptions.first!
    description.url = url
    //description.type = NSInMemoryStoreType // Setting this value will fail some tests at the moment

    // Enable history tracking and remote notifications
    container.persistentStoreDescriptions[0].setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    container.persistentStoreDescriptions[0].setOption(
      true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)

    container.loadPersistentStores { (description, error) in
      #expect(error == nil)
    }
    return container
  }
}

// MARK: On Disk NSPersistentContainer

final class PortedOnDiskPersistentContainer: PersistentContainer, @unchecked Sendable {

  static func makeNew() -> PortedOnDiskPersistentContainer {
    Self.makeNew(id: UUID())
  }

  static func makeNew(id: UUID) -> PortedOnDiskPersistentContainer {
    let url = URL.newDatabaseURL(withID: id)
    let container = PortedOnDiskPersistentContainer(name: "SampleModel", managedObjectModel: model1)
    let description = container.persistentStoreDescriptions.first!
    description.url = url
    // disable automatic migration (true by default)
    // tests works fine even if they are left to true
    description.shouldMigrateStoreAutomatically = false
    description.shouldInferMappingModelAutomatically = false

    // Enable history tracking and remote notifications
    container.persistentStoreDescriptions[0].setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
    container.persistentStoreDescriptions[0].setOption(
      true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)

    container.loadPersistentStores { (description, error) in
      #expect(error == nil)
    }
    return container
  }

  /// Destroys the database and reset all the registered contexts.
  func destroy() throws {
    guard let url = persistentStoreDescriptions[0].url else { return }
    guard !url.absoluteString.starts(with: "/dev/null") else { return }

    // unload each store from the used context to avoid the sqlite3 bug warning.
    do {
      if let store = persistentStoreCoordinator.persistentStores.first {
        try persistentStoreCoordinator.remove(store)
      }
      try PersistentStoreCoordinator.destroyStore(at: url)
    } catch {
      fatalError("\(error) while destroying the store.")
    }
  }
}

extension PersistentStoreCoordinator {
  // CoreDataPlus's NSPersistentStoreCoordinator.destroyStore(at:options:) (Sources/NSPersistentStoreCoordinator+Utils.swift),
  // a four-line wrapper over Core Data calls, inlined here once because two harness types and three tests call it.
  static func destroyStore(at url: URL, options: [String: NSObject]? = nil) throws {
    let persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel())
    try persistentStoreCoordinator.destroyPersistentStore(at: url, type: .sqlite, options: options)

    let fileManager = FileManager.default
    let storePath = url.path
    try fileManager.removeItem(atPath: storePath)
    let writeAheadLog = storePath + "-wal"
    _ = try? fileManager.removeItem(atPath: writeAheadLog)
    let sharedMemoryfile = storePath + "-shm"
    _ = try? fileManager.removeItem(atPath: sharedMemoryfile)
  }
}

// MARK: - URL (Tests/Utils/Utils.swift; a temporary directory instead of the caches directory)

extension URL {
  static func newDatabaseURL(withID id: UUID) -> URL {
    newDatabaseURL(withName: id.uuidString)
  }

  static func newDatabaseURL(withName name: String) -> URL {
    let testsURL = FileManager.default.temporaryDirectory.appendingPathComponent("PortedCoreDataPlus")
    try! FileManager.default.createDirectory(at: testsURL, withIntermediateDirectories: true, attributes: nil)
    let databaseURL = testsURL.appendingPathComponent("\(name).sqlite")
    return databaseURL
  }
}

// MARK: - XCTestCase equivalents (harness, not Coherence API)

/// All ported suites nest here and run one at a time: XCTest runs tests serially, and several
/// ported tests observe notifications with `object: nil`, which tests running in parallel would post.
@Suite(.serialized) struct PortedCoreDataPlus {}

/// XCTestExpectation. `assertForOverFulfill` is `false` for expectations made directly, `true` for
/// those made by `expectation(description:)`, as in XCTest.
final class PortedExpectation: @unchecked Sendable {
  let expectationDescription: String
  private let lock = NSLock()
  private var _count = 0
  private var _expectedFulfillmentCount = 1
  private var _assertForOverFulfill = false
  private var _isInverted = false

  init(description: String) {
    expectationDescription = description
  }

  var expectedFulfillmentCount: Int {
    get { lock.withLock { _expectedFulfillmentCount } }
    set { lock.withLock { _expectedFulfillmentCount = newValue } }
  }
  var assertForOverFulfill: Bool {
    get { lock.withLock { _assertForOverFulfill } }
    set { lock.withLock { _assertForOverFulfill = newValue } }
  }
  var isInverted: Bool {
    get { lock.withLock { _isInverted } }
    set { lock.withLock { _isInverted = newValue } }
  }
  var isFulfilled: Bool { lock.withLock { _count >= _expectedFulfillmentCount } }

  func fulfill(sourceLocation: SourceLocation = #_sourceLocation) {
    let overFulfilled = lock.withLock { () -> Bool in
      _count += 1
      return _assertForOverFulfill && !_isInverted && _count > _expectedFulfillmentCount
    }
    if overFulfilled {
      Issue.record("API violation - multiple calls made to fulfill() for \(expectationDescription)", sourceLocation: sourceLocation)
    }
  }
}

/// XCTestCase: `expectation(description:)` and `wait(for:timeout:)`, whose async form is
/// `fulfillment(of:timeout:)`. Waiting suspends the main actor, so main-queue work (a main-queue
/// context's end-of-turn processing, `perform` blocks) runs meanwhile, as XCTest's run-loop wait lets it.
@MainActor class PortedBaseTestCase {
  init() {}

  func expectation(description: String) -> PortedExpectation {
    let expectation = PortedExpectation(description: description)
    expectation.assertForOverFulfill = true
    return expectation
  }

  func fulfillment(
    of expectations: [PortedExpectation], timeout seconds: TimeInterval = 60, enforceOrder: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let deadline = Date(timeIntervalSinceNow: seconds)
    let waitsForTimeout = expectations.contains { $0.isInverted }
    while Date() < deadline {
      if expectations.contains(where: { $0.isInverted && $0.isFulfilled }) { break }
      if !waitsForTimeout, expectations.allSatisfy(\.isFulfilled) { break }
      try? await Task.sleep(for: .milliseconds(5))
    }
    for expectation in expectations {
      if expectation.isInverted, expectation.isFulfilled {
        Issue.record("Fulfilled inverted expectation \"\(expectation.expectationDescription)\"", sourceLocation: sourceLocation)
      } else if !expectation.isInverted, !expectation.isFulfilled {
        Issue.record("Exceeded timeout of \(seconds) seconds, with unfulfilled expectation \"\(expectation.expectationDescription)\"", sourceLocation: sourceLocation)
      }
    }
  }
}

/// InMemoryTestCase: a new in-memory container per test (setUp -> init).
@MainActor class PortedInMemoryTestCase: PortedBaseTestCase {
  var container: PersistentContainer!

  override init() {
    super.init()
    container = PortedInMemoryPersistentContainer.makeNew()
  }
}

/// OnDiskTestCase: a new SQLite container per test, destroyed afterwards (tearDown -> deinit).
@MainActor class PortedOnDiskTestCase: PortedBaseTestCase {
  nonisolated(unsafe) var container: PersistentContainer!  // read by the nonisolated deinit (tearDown)

  override init() {
    super.init()
    container = PortedOnDiskPersistentContainer.makeNew()
  }

  deinit {
    do {
      if let onDiskContainer = container as? PortedOnDiskPersistentContainer {
        try onDiskContainer.destroy()
      }
    } catch {
      Issue.record("The persistent container couldn't be destroyed.")
    }
  }
}
