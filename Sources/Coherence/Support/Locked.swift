import Foundation

/// A value guarded by a pthread mutex (`NSLock`).
///
/// Coherence uses this rather than `Synchronization.Mutex`: on Linux, `Mutex`
/// synchronizes through futexes inside the uninstrumented standard library,
/// which ThreadSanitizer cannot see, so every contended `Mutex` shows up as a
/// false data race and hides real ones. `NSLock` is a pthread mutex, which
/// ThreadSanitizer understands.
///
/// **Complexity:** O(1) to take and release, plus `body`.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
