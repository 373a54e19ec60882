import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stores on a file system mounted read-only (a read-only volume, a
/// container's read-only layer, an application bundle).
///
/// - Opened for writing, such a store is refused up front with
///   ``StoreError/readOnlyStore(path:reason:)`` saying so, rather than with
///   SQLite's "unable to open database file".
/// - Opened read-only (`NSReadOnlyPersistentStoreOption`), it is read as an
///   immutable file when its `-shm` file is absent and no `-wal` or
///   `-journal` file holds changes (then a typed error says so): SQLite cannot read a
///   WAL-mode database without creating one otherwise
///   (<https://www.sqlite.org/wal.html#readonly>), and nothing can change a
///   file on a read-only file system, which is what `immutable` promises
///   SQLite (<https://www.sqlite.org/uri.html#uriimmutable>).
extension SQLiteStore {
    /// Whether the file system holding `url` (or its directory, for a file
    /// not created yet) is mounted read-only.
    static func isOnReadOnlyFileSystem(_ url: URL) -> Bool {
        var info = statvfs()
        let path = FileManager.default.fileExists(atPath: url.path) ? url.path : url.deletingLastPathComponent().path
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }

    /// Refuses to open for writing a store on a read-only file system.
    static func checkWritableFileSystem(_ url: URL) throws {
        if isOnReadOnlyFileSystem(url) {
            throw StoreError.readOnlyStore(path: url.path, reason: "its file system is mounted read-only; open it with NSReadOnlyPersistentStoreOption to read it")
        }
    }

    /// The path SQLite opens for reading `url` without writing: an
    /// `immutable` URI on a read-only file system without the `-shm` file,
    /// the plain path otherwise.
    /// - Throws: ``StoreError/readOnlyStore(path:reason:)`` when the store
    ///   has changes not yet in its main file (a `-wal` or hot `-journal`
    ///   file beside it), which an immutable read would silently miss.
    static func readingPath(_ url: URL) throws -> String {
        guard isOnReadOnlyFileSystem(url), !FileManager.default.fileExists(atPath: url.path + "-shm") else { return url.path }
        let pending = ["-wal", "-journal"].first { suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path + suffix)
            return (attributes?[.size] as? Int ?? 0) > 0
        }
        if let pending {
            throw StoreError.readOnlyStore(path: url.path, reason: "its file system is mounted read-only and its \(pending) file holds changes not yet in the store file, which SQLite cannot read without its -shm file; open it once where it can be written")
        }
        // Built from the path alone (percent-encoded), so that a query the
        // caller's URL may carry is not passed to SQLite.
        return URL(fileURLWithPath: url.path).absoluteString + "?immutable=1"
    }
}
