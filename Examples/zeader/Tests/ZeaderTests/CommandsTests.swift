import Foundation
import Testing
@testable import ZeaderKit

/// The command line's exit statuses: 0 when everything worked, 1 when an
/// import or a read failed (after the other feeds were imported), 2 for a
/// command line zeader cannot read.
@Suite("Commands")
struct CommandsTests {
    @Test @MainActor func exitStatuses() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.url.appendingPathComponent("Zeader.sqlite").path
        let good = Files.feed("queue-and-merge.xml").path
        #expect(await Commands.run(["import", "--store", store, Files.fixture("malformed.xml").path, good]) == 1)
        #expect(await Commands.run(["import", "--store", store, good]) == 0)
        #expect(await Commands.run(["read", "--store", store, "No item is titled like this"]) == 1)
        #expect(await Commands.run(["read", "--store", store, "Two contexts, one conflict"]) == 0)
        #expect(await Commands.run(["import", "--store", store]) == 2)
        #expect(await Commands.run(["serve", "--port", "99999"]) == 2)
        #expect(await Commands.run(["--colour"]) == 2)
        let contents = try await StoreContents(try directory.library())
        #expect(contents.feeds.count == 1)
        #expect(contents.feeds[good]?.unread == 3)
    }

    @Test func optionsGoAnywhere() throws {
        let options = try Options(["import", "a.xml", "--store", "x.sqlite", "--port", "0", "--", "--b.xml"])
        #expect(options.store == "x.sqlite" && options.port == 0)
        #expect(options.positional == ["import", "a.xml", "--b.xml"])
        #expect(throws: UsageError.self) { try Options(["--store"]) }
    }
}
