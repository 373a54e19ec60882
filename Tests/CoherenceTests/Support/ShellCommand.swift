import Foundation

/// Runs a command through bash and returns its exit status and output
/// (standard output and standard error together).
///
/// The end of the output, not the process's exit, says the command
/// finished, with its status echoed last: Swift Testing's exit-test monitor
/// thread waits for any child process and may reap this one before
/// Foundation's `Process` sees it exit, so `waitUntilExit()` could hang.
/// A command that starts a daemon must redirect the daemon's output, or
/// the output never ends.
enum ShellCommand {
    static func run(_ command: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "{ \(command) ; } 2>&1 ; echo \"exit status $?\""]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let status = lines.last.flatMap { $0.hasPrefix("exit status ") ? Int32($0.dropFirst("exit status ".count)) : nil } ?? -1
        return (status, lines.dropLast().joined(separator: "\n"))
    }

    /// Quotes `argument` for bash.
    static func quoted(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
