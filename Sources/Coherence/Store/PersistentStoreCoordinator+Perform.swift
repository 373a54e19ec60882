import Dispatch
import Foundation

// Core Data's coordinator blocks. Coherence's coordinator is safe to use
// from any thread without them; they serialize the blocks among
// themselves, as Core Data's coordinator queue does, so code written for
// Core Data (adding and removing stores, reading metadata) ports unchanged.
extension PersistentStoreCoordinator {
    /// Runs `block` on the coordinator's queue and returns at once, as Core
    /// Data's `perform(_:)`. Blocks run one at a time, in the order given.
    /// <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/perform(_:)>
    public func perform(_ block: @escaping @Sendable () -> Void) {
        blockQueue.async { [blockLock] in
            blockLock.withLock(block)
        }
    }

    /// Runs `block` on the calling thread, one at a time with the other
    /// blocks of this coordinator, and returns its result, as Core Data's
    /// `performAndWait(_:)`. Reentrant: a block may call it again.
    /// <https://developer.apple.com/documentation/coredata/nspersistentstorecoordinator/performandwait(_:)>
    @discardableResult
    public func performAndWait<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        blockLock.lock()
        defer { blockLock.unlock() }
        return try block()
    }
}
