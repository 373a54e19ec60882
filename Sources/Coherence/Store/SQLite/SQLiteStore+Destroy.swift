import Foundation
internal import GRDB

extension SQLiteStore {
    /// Closes the database; every later use of the store throws.
    func close() throws {
        do {
            try database.close()
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
    }

    /// Truncates the store file at `url` and its `-wal` companion to zero
    /// bytes, as Core Data's SQLite store "deletes (or truncates)": they
    /// stay, so code that removes them afterwards (`FileManager.removeItem`)
    /// still finds them, and a store added at the URL again starts empty.
    /// The `-shm` file is removed rather than truncated: connections still
    /// open on the database (a store removed but not yet released) map it
    /// into memory, and a truncated mapping would crash them. A non-empty
    /// file must be a Coherence store; any other file is left untouched. A
    /// missing file is not an error.
    static func destroyFiles(at url: URL) throws {
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > 0 {
            try checkIsCoherenceStore(at: url)
        }
        for path in [url.path, url.path + "-wal"] where FileManager.default.fileExists(atPath: path) {
            guard truncate(path, 0) == 0 else {
                throw StoreError.cannotDestroy(path: path, reason: String(cString: strerror(errno)))
            }
        }
        let sharedMemory = url.path + "-shm"
        if FileManager.default.fileExists(atPath: sharedMemory) {
            do {
                try FileManager.default.removeItem(atPath: sharedMemory)
            } catch {
                throw StoreError.cannotDestroy(path: sharedMemory, reason: "\(error)")
            }
        }
    }

    /// Throws unless the non-empty file at `url` is an SQLite database that
    /// Coherence created. Reads only.
    private static func checkIsCoherenceStore(at url: URL) throws {
        _ = try inspect(url: url, model: nil)
    }
}
