import Dispatch
import Foundation

/// A document kept in one SQLite file, with Core Data's document stack: a
/// private-queue writer context that saves to the file, and a main-queue
/// child context for the user interface.
///
/// ```swift
/// let document = ManagedDocument(url: fileURL, managedObjectModel: model)
/// let context = try await document.open()      // the main-queue context
/// Server(context: context).name = "new"         // on the main actor
/// try await document.save()                     // child → writer → file
/// ```
///
/// The context exists only as the result of ``open()``: nothing can observe
/// or use it before the document is open. Saving writes the file on the
/// writer's queue, never on the main queue. With ``autosaveDelay`` set, every
/// change of the main context schedules a save after that delay.
public final class ManagedDocument: Sendable {
    /// The document's file.
    public let fileURL: URL
    /// The model of the document's objects.
    public let managedObjectModel: ManagedObjectModel

    private struct State {
        var contexts: (main: ManagedObjectContext, writer: ManagedObjectContext)?
        var autosaveDelay: Duration?
        var autosaveScheduled = false
        var observation: ContextObservation?
        var autosaveError: (any Error)?
    }

    private let state = Locked(State())

    /// A document at `url`; nothing is read until ``open()``.
    public init(url: URL, managedObjectModel: ManagedObjectModel) {
        fileURL = url
        self.managedObjectModel = managedObjectModel
    }

    /// How long after a change of the main context the document saves by
    /// itself; `nil` (the default) turns autosaving off.
    public var autosaveDelay: Duration? {
        get { state.withLock { $0.autosaveDelay } }
        set { state.withLock { $0.autosaveDelay = newValue } }
    }

    /// The error of the last autosave that failed, cleared by the next one
    /// that succeeds. The changes stay pending in the main context.
    public var lastAutosaveError: (any Error)? { state.withLock { $0.autosaveError } }

    /// Whether the document is open.
    public var isOpen: Bool { state.withLock { $0.contexts != nil } }

    /// Opens the file (creating it if needed) on a background queue and
    /// returns the main-queue context. Opening an open document returns the
    /// same context.
    /// - Throws: ``StoreError`` when the file cannot be opened.
    public func open() async throws -> ManagedObjectContext {
        if let contexts = state.withLock({ $0.contexts }) { return contexts.main }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        let url = fileURL
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try coordinator.addPersistentStore(.sqlite(url)) })
            }
        }
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        writer.name = "ManagedDocument.writer"
        let main = ManagedObjectContext(concurrencyType: .mainQueue, parent: writer)
        main.name = "ManagedDocument.main"
        return state.withLock { state in
            if let contexts = state.contexts { return contexts.main }
            state.contexts = (main, writer)
            state.observation = main.addObserver(for: ManagedObjectContext.ObjectsDidChangeMessage.self) { [weak self] _ in self?.scheduleAutosave() }
            return main
        }
    }

    /// ``open()`` for completion-handler code; the handler runs on the main queue.
    public func open(completionHandler: @escaping @MainActor @Sendable (Result<ManagedObjectContext, any Error>) -> Void) {
        Task {
            let result: Result<ManagedObjectContext, any Error>
            do { result = .success(try await open()) } catch { result = .failure(error) }
            await MainActor.run { completionHandler(result) }
        }
    }

    /// Saves the main context into the writer, then the writer to the file
    /// on its own queue.
    /// - Throws: ``DocumentError/notOpen`` before ``open()``, or the save's error.
    public func save() async throws {
        guard let contexts = state.withLock({ $0.contexts }) else { throw DocumentError.notOpen }
        let main = contexts.main, writer = contexts.writer
        try await main.perform { try main.save() }
        try await writer.perform { try writer.save() }
    }

    /// Saves and closes the document; its contexts stay usable but the
    /// document no longer autosaves.
    public func close() async throws {
        try await save()
        state.withLock { state in
            state.observation = nil
            state.contexts = nil
        }
    }

    /// Called on the main queue when the main context changed.
    private func scheduleAutosave() {
        let delay: Duration? = state.withLock { state in
            guard let delay = state.autosaveDelay, !state.autosaveScheduled else { return nil }
            state.autosaveScheduled = true
            return delay
        }
        guard let delay else { return }
        let nanoseconds = Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.autosaveScheduled = false }
            Task {
                do {
                    try await self.save()
                    self.state.withLock { $0.autosaveError = nil }
                } catch {
                    self.state.withLock { $0.autosaveError = error }
                }
            }
        }
    }
}

/// A document operation that was refused.
public enum DocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document is not open.
    case notOpen

    public var description: String {
        switch self {
        case .notOpen: "the document is not open; call open() first"
        }
    }
}
