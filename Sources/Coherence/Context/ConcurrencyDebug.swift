import Foundation

/// Whether Coherence checks that contexts and their objects are used on
/// their queues: Core Data's `-com.apple.CoreData.ConcurrencyDebug 1` launch
/// argument, as the environment variable `COHERENCE_CONCURRENCY_DEBUG`.
///
/// - `COHERENCE_CONCURRENCY_DEBUG=1` turns the check on in any build,
///   release builds included.
/// - `COHERENCE_CONCURRENCY_DEBUG=0` turns it off in any build.
/// - Unset (or any other value), it is on in debug builds and off in release
///   builds.
///
/// Read once, when the first context is created. A use off the
/// queue then stops the program with a message naming the entity, the
/// object and the context, release builds included.
enum ConcurrencyDebug {
    /// The environment variable that switches the check.
    static let environmentVariable = "COHERENCE_CONCURRENCY_DEBUG"

    static let isEnabled: Bool = {
        switch ProcessInfo.processInfo.environment[environmentVariable] {
        case "1": return true
        case "0": return false
        default:
            #if DEBUG
            return true
            #else
            return false
            #endif
        }
    }()
}
