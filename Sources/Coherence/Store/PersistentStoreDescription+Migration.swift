import Foundation

/// Core Data's option that lets a store be migrated to the model when it
/// opens (`NSMigratePersistentStoresAutomaticallyOption`); with
/// ``PersistentStoreDescription/shouldMigrateStoreAutomatically``.
/// <https://developer.apple.com/documentation/coredata/nsmigratepersistentstoresautomaticallyoption>
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"

/// Core Data's option that lets the migration be inferred from the two
/// models (`NSInferMappingModelAutomaticallyOption`); with
/// ``PersistentStoreDescription/shouldInferMappingModelAutomatically``.
/// <https://developer.apple.com/documentation/coredata/nsinfermappingmodelautomaticallyoption>
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"

extension PersistentStoreDescription {
    /// Whether a store saved with another model is migrated to this one when
    /// it opens: ``NSMigratePersistentStoresAutomaticallyOption``, `true` by
    /// default as in Core Data. Coherence's migrations are lightweight
    /// (inferred from the two models). Off, an SQLite store saved with
    /// another model is refused with ``StoreError/incompatibleModel(reason:)``
    /// and left untouched.
    public var shouldMigrateStoreAutomatically: Bool {
        get { (options[NSMigratePersistentStoresAutomaticallyOption] as? NSNumber)?.boolValue ?? true }
        set { setOption(NSNumber(value: newValue), forKey: NSMigratePersistentStoresAutomaticallyOption) }
    }

    /// Whether the migration may be inferred from the two models:
    /// ``NSInferMappingModelAutomaticallyOption``, `true` by default as in
    /// Core Data. Coherence has no mapping models, so turning it off refuses
    /// every migration, as ``shouldMigrateStoreAutomatically`` off does.
    public var shouldInferMappingModelAutomatically: Bool {
        get { (options[NSInferMappingModelAutomaticallyOption] as? NSNumber)?.boolValue ?? true }
        set { setOption(NSNumber(value: newValue), forKey: NSInferMappingModelAutomaticallyOption) }
    }

    /// Whether opening the store may migrate it.
    var allowsMigration: Bool {
        shouldMigrateStoreAutomatically && shouldInferMappingModelAutomatically
    }
}

extension SQLiteStore {
    /// Throws when the file at `url` was saved with a model other than
    /// `model`: for stores opened without automatic migration. Reads only.
    static func checkNeedsNoMigration(url: URL, model: ManagedObjectModel) throws {
        guard let (_, stored) = try inspect(url: url, model: nil), stored != StoredModel(model) else { return }
        throw StoreError.incompatibleModel(reason: "the store at \(url.path) was saved with another model, and automatic migration is off "
            + "(shouldMigrateStoreAutomatically or shouldInferMappingModelAutomatically is false)")
    }
}
