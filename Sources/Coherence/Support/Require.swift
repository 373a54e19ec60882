/// Stops the program with `message` unless `condition` holds: Swift's
/// `precondition`, except that the message prints in release builds too
/// (`precondition` and `preconditionFailure` print nothing under `-O`).
/// Coherence's traps go through this or `fatalError`, so that a program
/// stopped for a programming error always says why.
///
/// **Complexity:** the condition's; the message is built only on failure.
@inline(__always)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
             file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fatalError(message(), file: file, line: line) }
}
