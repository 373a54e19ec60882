import Foundation
import Testing

/// Every trap says why in release builds too: Swift's `precondition` and
/// `preconditionFailure` print nothing under `-O`, so Coherence's sources
/// trap only through `fatalError` and `require` (which calls `fatalError`).
/// Where Core Data raises an exception, Coherence stops the program with a
/// message naming the entity; a message that prints only in debug builds
/// would leave a release-built server's crash unexplained.
@Suite("Trap messages")
struct TrapMessageTests {
    @Test func noTrapIsSilentInReleaseBuilds() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 100, "the sources were found at \(sources.path)")
        var silent: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                if code.range(of: #"\bprecondition(Failure)?\("#, options: .regularExpression) != nil {
                    silent.append("\(file.lastPathComponent):\(number + 1): \(code)")
                }
            }
        }
        #expect(silent.isEmpty, "traps that print nothing under -O:\n\(silent.joined(separator: "\n"))")
    }
}
