import Foundation
internal import GRDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Notices commits to an SQLite file by other connections (this process's
/// other coordinators, other processes), for the remote-change watcher.
///
/// **What it watches.** Every commit in WAL mode writes the `-wal` file
/// (and a checkpoint writes the database file), so on Linux an inotify
/// watch on the file's directory, filtered to those two names, wakes a
/// thread that sleeps otherwise, so the data is not polled: a commit is seen
/// as soon as its event comes. The directory is watched rather than the `-wal` file
/// itself, because SQLite deletes and recreates that file when the last
/// connection closes and a new one opens. Each wake-up is confirmed with
/// `PRAGMA data_version` on a connection of its own, which changes only
/// when another connection committed: a checkpoint, or a read, does not
/// reach the watcher. A commit whose event came long before it was
/// published is caught by a check every second. Without inotify (macOS, or
/// the system's limit of watches reached), the thread checks `data_version`
/// every 100 ms instead.
///
/// **Cost:** one thread (asleep but once a second) and one SQLite connection
/// per watched store; per commit, a `data_version` query every 5 ms for
/// 250 ms (the watcher then reads the history numbers once).
final class SQLiteChangeSignal: SQLChangeSignal, @unchecked Sendable {
    private let url: URL
    private let lock = NSLock()
    // Guarded by `lock`.
    private var stopPipe: (read: Int32, write: Int32)?

    init(url: URL) {
        self.url = url
    }

    deinit {
        stop()
    }

    func start(_ changed: @escaping @Sendable () -> Void) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "Coherence.SQLiteChangeSignal"
        let connection: DatabaseQueue
        do {
            connection = try DatabaseQueue(path: url.path, configuration: configuration)
        } catch let error as DatabaseError {
            throw StoreError(error)
        }
        let version: @Sendable () -> Int? = { try? connection.inDatabase { db in try Int.fetchOne(db, sql: "PRAGMA data_version") } }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw StoreError.cannotWatch(path: url.path, reason: "pipe: \(String(cString: strerror(errno)))") }
        // Not inherited by child processes, which would keep the pipe open
        // after `stop()` closes it.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let events = Self.watchDirectory(of: url)
        let names: Set<String> = [url.lastPathComponent, url.lastPathComponent + "-wal"]
        let stopRead = fds[0]
        // The baseline is taken now, so that a commit after this call is
        // noticed; one check follows at once, for a commit since the watcher
        // read its starting point.
        let baseline = version()
        let thread = Thread {
            var last = baseline
            changed()
            defer {
                close(stopRead)
                if events >= 0 { close(events) }
                try? connection.close()
            }
            // A commit writes its frames to the -wal file before it publishes
            // them, so the event may come before data_version changes: after
            // any event, data_version is checked every 5 ms for 250 ms. A
            // commit published later still (a writer preempted, or syncing
            // before it publishes) is caught by the check made every second.
            var settling: ContinuousClock.Instant?
            while true {
                let timeout: Int32 = settling.map { ContinuousClock.now < $0 ? 5 : 1_000 } ?? 1_000
                guard let woken = Self.waitForChange(events: events, stop: stopRead, names: names, timeout: timeout) else { return }
                if woken { settling = .now + .milliseconds(250) } else if let until = settling, ContinuousClock.now >= until { settling = nil }
                let now = version()
                if now != last {
                    last = now
                    changed()
                }
            }
        }
        thread.name = "Coherence.SQLiteChangeSignal"
        lock.withLock { stopPipe = (fds[0], fds[1]) }
        thread.start()
    }

    func stop() {
        let pipe = lock.withLock { () -> (read: Int32, write: Int32)? in
            defer { stopPipe = nil }
            return stopPipe
        }
        guard let pipe else { return }
        // The thread closes the read end once it sees the write end closed.
        close(pipe.write)
    }

    /// An inotify descriptor watching `url`'s directory for writes, or -1
    /// where there is none (no inotify, or the system's limit of watches
    /// reached): the signal then checks `data_version` every 100 ms.
    private static func watchDirectory(of url: URL) -> Int32 {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)
        guard descriptor >= 0 else { return -1 }
        guard inotify_add_watch(descriptor, url.deletingLastPathComponent().path, mask) >= 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
        #else
        return -1
        #endif
    }

    /// Blocks until `events` reports a write to one of `names` (`true`), or
    /// `timeout` milliseconds pass (`false`; -1 waits without limit, and
    /// without inotify the wait is 100 ms at most); `nil` once `stop` is closed.
    private static func waitForChange(events: Int32, stop: Int32, names: Set<String>, timeout: Int32) -> Bool? {
        while true {
            var descriptors = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
            if events >= 0 { descriptors.append(pollfd(fd: events, events: Int16(POLLIN), revents: 0)) }
            let limit = events >= 0 ? timeout : (timeout < 0 ? 100 : min(timeout, 100))
            let ready = poll(&descriptors, nfds_t(descriptors.count), limit)
            if ready < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if descriptors[0].revents != 0 { return nil }
            if ready == 0 { return false }
            if descriptors[1].revents != 0, readEvents(events, names: names) { return true }
        }
    }

    /// Drains the pending inotify events; whether one names a file of `names`
    /// (or the queue overflowed, which may have lost one).
    private static func readEvents(_ descriptor: Int32, names: Set<String>) -> Bool {
        #if os(Linux)
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return relevant }
            var offset = 0
            // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
            while offset + 16 <= count {
                let (mask, length) = buffer.withUnsafeBytes { bytes in
                    (bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                if length > 0 {
                    let name = buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 }
                    if names.contains(String(decoding: name, as: UTF8.self)) { relevant = true }
                }
                offset += 16 + length
            }
        }
        #else
        return true
        #endif
    }
}
