// Ported from alemar11/CoreDataPlus (commit f71b5f5706d8a17e9701b10d2fa2a56ede7d5e32), by renaming only:
//   Tests/Resources/SampleModel/Entities/Car.swift (BaseEntity, Color, Car, SportCar, ExpensiveSportCar, LuxuryCar)
//   Tests/Resources/SampleModel/Entities/Maker.swift
//   Tests/Resources/SampleModel/Entities/Person.swift
//   Tests/Resources/SampleModel/Entities/NSManagedObject+DelayedDeletable.swift
//   Tests/Resources/SampleModel/Entities/NSManagedObject+UpdateTimestampable.swift
// the classes of Tests/Resources/SampleModel/SampleModel.xcdatamodeld (versions 1 to 3), which
// Fixtures/CoreDataPlus/SampleModel.xcdatamodeld holds byte for byte. CoreDataPlus is MIT-licensed,
// Copyright (c) 2016-2024 Alessandro Marzoli (its LICENSE.md is copied to Fixtures/CoreDataPlus/LICENSE.md).
// Unlike PortedModel.swift (the same classes declared in Swift, before Coherence read model files),
// these take their properties from the model file.
//
// Renaming rules applied:
//   import CoreData -> import Coherence; import CoreDataPlus dropped (the few library helpers the classes and
//   tests call are ported in PortedModelFileTests.swift);
//   @NSManaged -> @Managed; NSManagedObject -> ManagedObject; NSFetchRequestResult -> FetchRequestResult;
//   NSPredicate -> Predicate<Self> (Foundation's Predicate is typed; Predicate(format:) parses the same format);
//   @objc(Name) lines deleted (Coherence matches a class to its entity by name: `String(describing:)`, "Car").
// Departures, each marked `PORT:` where it is:
//   - The classes are nested in `enum CoreDataPlusModelFile`: this test module already has classes named
//     Car and SportCar (Model/SubentityModel.swift).
//   - Person's awakeFromInsert()/willSave() overrides move from `extension Person` into the class body: without
//     Objective-C, Swift rejects an override in an extension ("overriding declarations in extensions is not
//     supported"); Core Data's methods are @objc, so the original compiles on Apple platforms.
//   - DelayedDeletable's batchDeleteMarkedForDeletion is commented out. CoreDataPlus's ColorTransformer (an
//     NSSecureUnarchiveFromDataTransformer subclass, which Linux Foundation does not have) is not ported:
//     Coherence archives Car.color (Transformable) with NSKeyedArchiver and secure coding, as that transformer does.

import Coherence
import Foundation

// PORT: Color stays a top-level class, as in CoreDataPlus: Linux Foundation's NSKeyedArchiver cannot name a
// nested class (NSStringFromClass traps), and a Transformable attribute is archived with it.
// https://github.com/onmyway133/blog/issues/334
public class Color: NSObject, NSSecureCoding {
  public static var supportsSecureCoding: Bool { true }
  public let name: String

  public init(name: String) {
    self.name = name
  }

  public func encode(with coder: NSCoder) {
    coder.encode(name, forKey: "name")
  }

  public required init?(coder decoder: NSCoder) {
    guard let name = decoder.decodeObject(of: [NSString.self], forKey: "name") as? String else { return nil }
    self.name = name
  }
}

public enum CoreDataPlusModelFile {

  // MARK: - Entities/Car.swift

  // Entity hierarchy vs Class hierarchy
  //
  // Managed object models offer the possibility to create entity hierarchies (i.e. we can specify an entity as the parent of another entity).
  // This might sound good if our entities share some common attributes but it’s rarely what you would want to do.
  // What happens behind the scenes is that Core Data stores all entities with the same parent entity in the same table. This quickly creates tables with a large number of attributes, slowing down performance.
  // Often the purpose of creating an entity hierarchy is solely to create a class hierarchy, so that we can put code shared between multiple entities into the base class.
  // This (Class hierarchy) gives us the benefit of being able to move common code into the base class without the performance overhead of storing all entities in a single table.
  // ⚠️ We cannot create class hierarchies deviating from the entity hierarchy with Xcode’s managed object generator though.
  public class BaseEntity: ManagedObject, DelayedDeletable {
    @Managed public var markedForDeletionAsOf: Date?
  }

  public class Car: BaseEntity {
    @Managed public var maker: String?
    @Managed public var model: String?
    @Managed public var numberPlate: String!
    @Managed public var owner: Person?
    @Managed public var currentDrivingSpeed: Int  // transient property
    @Managed public var color: Color?  // transformable property

    // Additional notes
    // - color: in the "Data Model Inspector", the "class name" field is set to Color; this is an optional requirement but quite useful because CoreData will validate the type when assigned to the color property.
  }

  public class SportCar: Car {
  }

  final public class ExpensiveSportCar: SportCar {
    @Managed public var isLimitedEdition: Bool
  }

  // V2
  final public class LuxuryCar: SportCar {
    // Some tests fallback to the string representation of LuxuryCar (fallback of entityName instead of entity().name because
    // entity() is not accessible. If that happens in production, it's better to override the property like so:
    //public override class var entityName: String { "LuxuryCar" }

    @Managed public var isLimitedEdition: Bool
  }

  // MARK: - Entities/Maker.swift

  // V3
  final public class Maker: ManagedObject {
    @Managed public var name: String
    // This is why it must be a NSSet https://twitter.com/an0/status/1157072652290445314 and https://developer.apple.com/forums/thread/651325
    // "The problem is that bridging will cause all the managed objects to be faulted into memory, which can become a serious performance problem when you have more than a thousand (or so) related objects. The generated subclasses have to work for everyone, so we can’t ship that."
    @Managed public var cars: NSSet?

    public var _cars: Set<Car>? {
      get {
        cars as? Set<Car>
      }
      set {
        if let newCars = newValue {
          self.cars = NSSet(set: newCars)
        } else {
          self.cars = nil
        }
      }
    }
  }

  // MARK: - Entities/Person.swift

  final public class Person: ManagedObject {
    @Managed public private(set) var id: UUID  // preserved after deletion (tombstone)
    @Managed public var firstName: String
    @Managed public var lastName: String
    // This is why it must be a NSSet https://twitter.com/an0/status/1157072652290445314 and https://developer.apple.com/forums/thread/651325
    @Managed public var cars: NSSet?
    @Managed public var isDriving: Bool  // transient property

    public var _cars: Set<Car>? {
      get {
        cars as? Set<Car>
      }
      set {
        if let newCars = newValue {
          self.cars = NSSet(set: newCars)
        } else {
          self.cars = nil
        }
      }
    }

    // PORT: these two overrides are in the second `extension Person` in Person.swift (below); moved here
    // unchanged, as Swift cannot override a non-@objc method in an extension.
    public override func awakeFromInsert() {
      super.awakeFromInsert()
      primitiveUpdatedAt = Date()
      //setPrimitiveValue(NSDate(), forKey: "updatedAt") // we can use one of these two options to set the value
      primitiveId = UUID()
    }

    public override func willSave() {
      super.willSave()
      // if only transients properties have changed, don't refresh the update date
      guard hasPersistentChangedValues else { return }

      refreshUpdateDate(observingChanges: false)  // we don't want to get notified when this value changes.
    }
  }

  // MARK: - Entities/NSManagedObject+DelayedDeletable.swift

  /// Objects adopting the `DelayedDeletable` support *two-step* deletion.
  public protocol DelayedDeletable: AnyObject {
    /// Protocol `DelayedDeletable`.
    ///
    /// Checks whether or not the managed object’s `markedForDeletion` property has unsaved changes.
    var hasChangedForDelayedDeletion: Bool { get }

    /// Protocol `DelayedDeletable`.
    ///
    /// This object can be deleted starting from this particular date.
    var markedForDeletionAsOf: Date? { get set }

    /// Protocol `DelayedDeletable`.
    ///
    /// Marks an object to be deleted at a later point in time.
    func markForDelayedDeletion()
  }

  // MARK: - Entities/NSManagedObject+UpdateTimestampable.swift

  /// Objects adopting the `UpdateTimestampable` have an `updateAt` property.
  public protocol UpdateTimestampable: AnyObject {
    var updatedAt: Date { get set }
  }
}

// MARK: - Entities/Person.swift (continued)

extension CoreDataPlusModelFile.Person: CoreDataPlusModelFile.UpdateTimestampable {
  @Managed public var updatedAt: Date
}

extension CoreDataPlusModelFile.Person {

  /// Primitive accessor for `updateAt` property.
  /// It's created by default from Core Data with a *primitive* suffix*.
  @Managed private var primitiveUpdatedAt: Date

  @Managed private var primitiveId: UUID

  // PORT: awakeFromInsert() and willSave() were here; see the class body.
}

// MARK: - Entities/NSManagedObject+DelayedDeletable.swift (continued)

private let markedForDeletionKey = "markedForDeletionAsOf"

// MARK: - DelayedDeletable Extension

extension CoreDataPlusModelFile.DelayedDeletable where Self: ManagedObject {
  /// Protocol `DelayedDeletable`.
  ///
  /// Predicate to filter for objects that haven’t a deletion date.
  public static var notMarkedForLocalDeletionPredicate: Predicate<Self> {
    Predicate<Self>(format: "%K == NULL", markedForDeletionKey)
  }

  /// Protocol `DelayedDeletable`.
  ///
  /// Predicate to filter for objects that have a deletion date.
  public static var markedForLocalDeletionPredicate: Predicate<Self> {
    Predicate<Self>(format: "%K != NULL", markedForDeletionKey)
  }
}

// MARK: - NSManagedObject

extension CoreDataPlusModelFile.DelayedDeletable where Self: ManagedObject {
  /// Protocol `DelayedDeletable`.
  ///
  /// Returns true if `self` has been marked for deletion.
  public var hasChangedForDelayedDeletion: Bool {
    changedValue(forKey: markedForDeletionKey) as? Date != nil
  }

  /// Marks an object to be deleted at a later point in time (if not already marked).
  /// An object marked for local deletion will no longer match the `notMarkedForDeletionPredicate`.
  public func markForDelayedDeletion() {
    guard markedForDeletionAsOf == nil else { return }

    markedForDeletionAsOf = Date()
  }
}

// MARK: - Batch Delete

// PORT: not ported: it calls CoreDataPlus's batchDelete(using:predicate:resultType:) (library code, not Core Data's),
// and no ported test calls it.
// extension FetchRequestResult where Self: ManagedObject & DelayedDeletable {
//   public static func batchDeleteMarkedForDeletion(
//     with context: ManagedObjectContext, olderThan cutOffDate: Date = Date(timeIntervalSinceNow: -TimeInterval(120)),
//     resultType: BatchDeleteRequestResultType = .resultTypeStatusOnly
//   ) throws -> BatchDeleteResult {
//     let predicate = Predicate<Self>(format: "%K <= %@", markedForDeletionKey, cutOffDate as NSDate)
//
//     return try batchDelete(using: context, predicate: predicate, resultType: resultType)
//   }
// }

// MARK: - Entities/NSManagedObject+UpdateTimestampable.swift (continued)

private let updateTimestampKey = "updatedAt"

extension CoreDataPlusModelFile.UpdateTimestampable where Self: ManagedObject {
  /// Protocol `UpdateTimestampable`.
  ///
  /// Refreshes the update date if and only if the object has not unsaved update date.
  /// - Parameter observingTheChange: if `true` Core Data will observe the changes for this value.
  /// - Note: If an object is flagged as deleted, the update date will be not set/refreshed.
  public func refreshUpdateDate(observingChanges: Bool = true) {
    guard !isDeleted else { return }
    guard changedValue(forKey: updateTimestampKey) == nil else { return }

    if observingChanges {
      updatedAt = Date()
    } else {
      setPrimitiveValue(Date(), forKey: updateTimestampKey)
    }
  }
}
