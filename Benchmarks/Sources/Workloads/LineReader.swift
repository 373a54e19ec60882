import Foundation

/// The lines of a pipe, read as they come (the benchmarks that start
/// processes of their own read their output with it).
package final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    package init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// The next line, without its newline; `nil` at the end of the input.
    package func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}
