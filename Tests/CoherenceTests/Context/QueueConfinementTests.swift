import Coherence
import Foundation
import Testing

/// Swift 6 itself refuses to hand a managed object out of `perform` to
/// another queue: only `Sendable` results leave. These tests compile small
/// files against the built Coherence module and read the compiler's verdict.
@Suite("Queue confinement at compile time")
struct QueueConfinementTests {
    /// Type-checks `source` against Coherence; returns the exit status and output.
    private func typecheck(_ source: String) throws -> (status: Int32, output: String) {
        let build = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        let modules = build.appending(path: "Modules")
        // Coherence's own dependency GRDB links the system SQLite through a module map.
        let sqliteModuleMap = build.deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap")
        let file = TestFiles.newURL("Confinement.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        // The property macros' plugin, built beside the tests.
        let macros = build.appending(path: "CoherenceMacros-tool")
        let arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path,
                         "-Xcc", "-fmodule-map-file=\(sqliteModuleMap.path)",
                         "-load-plugin-executable", "\(macros.path)#CoherenceMacros", file.path]
        return try ShellCommand.run(arguments.map(ShellCommand.quoted).joined(separator: " "))
    }

    private let model = """
        import Coherence
        final class Note: ManagedObject {
            @Attribute var text = ""
        }
        """

    @Test func handingAnObjectIDOutOfPerformCompiles() throws {
        let result = try typecheck(model + """

            func handOver(_ context: ManagedObjectContext) async -> ManagedObjectID {
                await context.perform { Note(context: context).objectID }
            }
            """)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func handingAnObjectOutOfPerformDoesNotCompile() throws {
        let result = try typecheck(model + """

            func leak(_ context: ManagedObjectContext) async -> Note {
                await context.perform { Note(context: context) }
            }
            """)
        #expect(result.status != 0)
        #expect(result.output.contains("Sendable"), "\(result.output)")
    }

    @Test func capturingAnObjectInPerformDoesNotCompile() throws {
        let result = try typecheck(model + """

            func smuggle(_ note: Note, into context: ManagedObjectContext) {
                context.perform { note.text = "from another queue" }
            }
            """)
        #expect(result.status != 0)
        #expect(result.output.contains("Sendable"), "\(result.output)")
    }
}
