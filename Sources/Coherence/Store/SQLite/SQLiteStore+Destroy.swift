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

    /// Truncates the store file at `url` and its `-wal` and `-shm`
    /// companions to zero bytes, as Core Data's SQLite store "deletes (or
    /// truncates)": the files stay, so code that removes them afterwards
    /// (`FileManager.removeItem`) still finds them, and a store added at the
    /// URL again starts empty. A non-empty file must be a Coherence store;
    /// any other file is left untouched. A missing file is not an error.
    static func destroyFiles(at url: URL) throws {
        let files = [url.path, url.path + "-wal", url.path + "-shm"]
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > 0 {
            try checkIsCoherenceStore(at: url)
        }
        for path in files where FileManager.default.fileExists(atPath: path) {
            guard truncate(path, 0) == 0 else {
                throw StoreError.cannotDestroy(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// Throws unless the non-empty file at `url` is an SQLite database that
    /// Coherence created. Reads only.
    private static func checkIsCoherenceStore(at url: URL) throws {
        _ = try inspect(url: url, model: nil)
    }
}
