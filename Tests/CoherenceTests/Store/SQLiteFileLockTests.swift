import Coherence
import Foundation
import GRDB
import Testing

/// Opening a store does not release the locks this process holds on its
/// file. POSIX advisory locks belong to the process: closing any descriptor
/// of the file releases all of them (https://www.sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_).
/// Coherence read the file's header with a descriptor of its own at every
/// open; a connection of another process, closing, then took the file for
/// the last one, checkpointed and deleted the WAL under this process's
/// connections, whose next read failed with SQLITE_IOERR_SHORT_READ (the
/// concurrency campaign found it).
@Suite("SQLite file locks")
struct SQLiteFileLockTests {
    @Test("Opening a store again leaves this process's locks in place: another process's closing connection keeps the WAL")
    func openingAgainKeepsTheLocks() async throws {
        let url = TestFiles.newURL("store.sqlite")
        let context = try TestDatabase.sqlite(url).context()
        try context.performAndWait {
            Server(context: context).name = "kept"
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        // A second coordinator on the file, as a reader or a watcher opens one.
        _ = try TestDatabase.sqlite(url).coordinator()

        // Another process opens the file, reads and closes: it checkpoints
        // and deletes the WAL only when it finds no other connection.
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [path = url.path as String] in
            let queue = try DatabaseQueue(path: path)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try queue.close()
        }
        #expect(result?.exitStatus == .exitCode(EXIT_SUCCESS), "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"),
                "the other process deleted the WAL: it found no lock of this process on the file")
        let names = try context.performAndWait {
            context.refreshAllObjects()
            return try context.fetch(FetchRequest<Server>()).map(\.name)
        }
        #expect(names == ["kept"])
    }
}
