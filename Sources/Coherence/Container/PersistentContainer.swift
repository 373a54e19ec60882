import Foundation

/// A model, a coordinator, its stores and a main-queue context, set up in one
/// place, as Core Data's `NSPersistentContainer` does.
///
/// ```swift
/// let container = PersistentContainer(name: "Zeader", managedObjectModel: model)
/// try container.loadPersistentStores()
/// let context = container.viewContext
/// ```
///
/// As in Core Data, apps may subclass it, typically to override
/// ``defaultDirectoryURL()``. Its state is set in `init` or kept under a
/// lock, so it is `Sendable`; a subclass adding mutable state must keep that
/// promise.
open class PersistentContainer: @unchecked Sendable {
    /// The container's name.
    public let name: String
    /// The model of every context.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator every context of the container uses.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context, for the user interface or the main actor.
    public let viewContext: ManagedObjectContext
    private let descriptions: Locked<[PersistentStoreDescription]>

    /// Creates a container. Load its stores with ``loadPersistentStores()``
    /// before using a context.
    public init(name: String, managedObjectModel: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: persistentStoreCoordinator)
        viewContext.name = "viewContext"
        descriptions = Locked([.sqlite(Self.defaultDirectoryURL().appending(path: "\(name).sqlite"))])
    }

    /// Where containers keep their SQLite files unless told otherwise: the
    /// `COHERENCE_STORE_DIRECTORY` environment variable if set, otherwise the
    /// user's application support directory (`~/.local/share` on Linux).
    open class func defaultDirectoryURL() -> URL {
        if let directory = ProcessInfo.processInfo.environment["COHERENCE_STORE_DIRECTORY"], !directory.isEmpty {
            return URL(filePath: directory, directoryHint: .isDirectory)
        }
        return (try? FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: false))
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
    }

    /// The stores ``loadPersistentStores()`` loads: by default one SQLite file,
    /// `<name>.sqlite` in ``defaultDirectoryURL()``. Replace it before loading,
    /// for example with `[.sqlite(url)]` or `[.inMemory]`.
    public var persistentStoreDescriptions: [PersistentStoreDescription] {
        get { descriptions.withLock { $0 } }
        set { descriptions.withLock { $0 = newValue } }
    }

    /// Loads every store in ``persistentStoreDescriptions``.
    /// - Throws: ``StoreError`` for the first store that cannot be loaded.
    public func loadPersistentStores() throws {
        for description in persistentStoreDescriptions {
            try persistentStoreCoordinator.addPersistentStore(description)
        }
    }

    /// Loads every store, calling `completion` once per store with its
    /// description and the error, if any (Core Data's form).
    public func loadPersistentStores(completionHandler completion: (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            do {
                try persistentStoreCoordinator.addPersistentStore(description)
                completion(description, nil)
            } catch {
                completion(description, error)
            }
        }
    }

    /// A new private-queue context on the container's coordinator.
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: persistentStoreCoordinator)
    }

    /// Runs `block` with a new private-queue context on that context's queue,
    /// and returns at once.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` with a new private-queue context on that context's queue,
    /// and returns its `Sendable` result.
    public func performBackgroundTask<T: Sendable, E: Error>(
        _ block: @escaping @Sendable (ManagedObjectContext) throws(E) -> T
    ) async throws(E) -> T {
        let context = newBackgroundContext()
        return try await context.perform { () throws(E) -> T in try block(context) }
    }
}
