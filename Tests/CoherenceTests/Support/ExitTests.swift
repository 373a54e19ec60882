import Testing

extension Optional where Wrapped == ExitTest.Result {
    /// What a trapping child process wrote to standard error (empty when the
    /// exit test did not run or did not capture it).
    var standardError: String {
        String(decoding: self?.standardErrorContent ?? [], as: UTF8.self)
    }
}
