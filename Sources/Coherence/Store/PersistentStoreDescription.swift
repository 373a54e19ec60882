import Foundation

/// Which store a ``PersistentContainer`` or ``PersistentStoreCoordinator``
/// loads, as Core Data's `NSPersistentStoreDescription`: a type, a file URL
/// and options.
///
/// ```swift
/// let description = PersistentStoreDescription(url: url)  // SQLite
/// description.type = InMemoryStoreType                   // or in memory
/// container.persistentStoreDescriptions = [description]
/// ```
///
/// Like Core Data's, it is a class: `container.persistentStoreDescriptions.first?.url = url`
/// changes the description the container loads. An SQLite description whose
/// URL is `/dev/null` loads an SQLite database in memory, as Core Data does
/// and as Core Data users write for tests: its `type` is SQLite, and nothing
/// is kept after it closes. All members may be used from any thread.
public final class PersistentStoreDescription: @unchecked Sendable, Hashable, CustomStringConvertible {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var _type: String
    private var _url: URL?
    private var _options: [String: NSObject] = [:]

    /// A description of an SQLite store in the file at `url` (created if missing).
    public init(url: URL) {
        _type = SQLiteStoreType
        _url = url
    }

    /// A description of an SQLite store with no URL yet; set ``url``, or set
    /// ``type`` to ``InMemoryStoreType``.
    public init() {
        _type = SQLiteStoreType
        _url = nil
    }

    /// An SQLite store in the file at `url` (created if missing).
    public static func sqlite(_ url: URL) -> PersistentStoreDescription {
        PersistentStoreDescription(url: url)
    }

    /// A new description of a store kept in memory.
    public static var inMemory: PersistentStoreDescription {
        let description = PersistentStoreDescription()
        description.type = InMemoryStoreType
        return description
    }

    /// The store's type string: ``SQLiteStoreType`` (the default) or
    /// ``InMemoryStoreType``. Loading another type throws
    /// ``StoreError/unsupportedStoreType(_:)``.
    public var type: String {
        get { locked { _type } }
        set { locked { _type = newValue } }
    }

    /// The store's file; an in-memory store ignores it.
    public var url: URL? {
        get { locked { _url } }
        set { locked { _url = newValue } }
    }

    /// The options set with ``setOption(_:forKey:)``. The SQL stores read
    /// ``NSPersistentHistoryTrackingKey`` (see ``persistentHistoryTracking``);
    /// others are kept for code written for Core Data.
    public var options: [String: NSObject] {
        locked { _options }
    }

    /// Sets an option, or removes it when `option` is `nil`.
    public func setOption(_ option: NSObject?, forKey key: String) {
        locked { _options[key] = option }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Equal when type, URL and options are equal.
    public static func == (lhs: PersistentStoreDescription, rhs: PersistentStoreDescription) -> Bool {
        lhs === rhs || (lhs.type == rhs.type && lhs.url == rhs.url && lhs.options == rhs.options)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(url)
    }

    public var description: String {
        switch (type, url) {
        case (SQLiteStoreType, let url?): "SQLite store at \(url.path)"
        case (InMemoryStoreType, _): "in-memory store"
        case (let type, let url): "\(type) store" + (url.map { " at \($0.path)" } ?? "")
        }
    }
}
