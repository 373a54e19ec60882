import Coherence
import Foundation
import Glibc
import Testing

/// The I/O fault campaign of issue 28, on SQLite: the disk fills up (a
/// small tmpfs), the store's directory is removed, the write-ahead log is
/// deleted, each while a store is open and saving; the file system is
/// read-only when a store opens. Every failed save must throw a typed error saying what is wrong
/// and leave the context with its changes; every save that returned must
/// be in the store afterwards, whole; the store must open again, and the
/// same context's save must succeed once the fault is gone.
///
/// Mounting needs root (CI runs as root; elsewhere the mount tests are
/// skipped, and say so). Size: `COHERENCE_IO_ROUNDS` rounds of each fault
/// (3 by default; `Reliability/report` runs 50).
@Suite("Reliability campaign: I/O faults", .serialized)
struct IOFaultCampaign {
    static var rounds: Int { ProcessInfo.processInfo.environment["COHERENCE_IO_ROUNDS"].flatMap(Int.init) ?? 3 }

    /// Whether this process can mount a tmpfs (root, and a kernel that lets it).
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let point = TestFiles.newURL("probe").path
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard Glibc.mount("tmpfs", point, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount2(point, Int32(MNT_DETACH))
        return true
    }()

    /// A store's outcome counts, printed per fault.
    struct Tally {
        var tried = 0, lost = 0, untyped = 0, stuck = 0
        func line(_ fault: String) -> String {
            "I/O faults (\(fault)): \(tried) tried, \(lost) lost or partial, \(untyped) untyped errors, \(stuck) not recovered"
        }
        var isClean: Bool { lost == 0 && untyped == 0 && stuck == 0 }
    }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root")) func diskFull() throws {
        var tally = Tally()
        for round in 0..<Self.rounds {
            let mount = try Mount(size: "1m")
            defer { mount.unmount() }
            let filler = mount.path + "/filler"
            let store = URL(fileURLWithPath: mount.path + "/store.sqlite")
            let context = try MigrationKillCampaign.open(store, TestStack.entities)
            // Leave a different amount of free space each round.
            _ = FileManager.default.createFile(atPath: filler, contents: Data(count: 200_000 + 60_000 * (round % 8)))
            var acknowledged = 0
            var failure: (any Error)?
            while failure == nil, acknowledged < 10_000 {
                do {
                    try Self.saveNumbered(acknowledged + 1, in: context)
                    acknowledged += 1
                } catch {
                    failure = error
                }
            }
            tally.tried += 1
            guard let failure else { tally.stuck += 1; Issue.record("the disk never filled"); continue }
            Self.judge(failure, expecting: "the disk is full", tally: &tally)
            #expect(context.performAndWait { context.hasChanges }, "the context keeps the changes its save could not write")
            Self.expectSaves(1...acknowledged, in: store, tally: &tally)
            try FileManager.default.removeItem(atPath: filler)
            do {
                try context.performAndWait { try context.save() }
                Self.expectSaves(1...(acknowledged + 1), in: store, tally: &tally)
            } catch {
                tally.stuck += 1
                Issue.record("the save failed again once space was freed: \(error)")
            }
        }
        print(tally.line("disk full"))
        #expect(tally.isClean)
    }

    /// A store on a file system that turned read-only (remounted while the
    /// store was closed: Linux refuses to remount a file system with files
    /// open for writing). Opening it for writing is a typed error saying
    /// so; opening it read-only (`NSReadOnlyPersistentStoreOption`) reads
    /// every save; once writable again it opens and saves.
    @Test(.enabled(if: canMount, "mounting a tmpfs needs root")) func readOnlyFileSystem() throws {
        var tally = Tally()
        for _ in 0..<Self.rounds {
            let mount = try Mount(size: "4m")
            defer { mount.unmount() }
            let store = URL(fileURLWithPath: mount.path + "/store.sqlite")
            do {
                let context = try MigrationKillCampaign.open(store, TestStack.entities)
                try Self.saveNumbered(1, in: context)
                let coordinator = context.persistentStoreCoordinator!
                try coordinator.remove(coordinator.persistentStores[0])
            }
            try Self.remountReadOnly(mount.path)
            tally.tried += 1
            do {
                _ = try MigrationKillCampaign.open(store, TestStack.entities)
                tally.lost += 1
                Issue.record("a store on a read-only file system opened for writing")
            } catch {
                Self.judge(error, expecting: "read-only", tally: &tally)
            }
            do {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: try TestStack.model())
                let description = PersistentStoreDescription.sqlite(store)
                description.setOption(true as NSNumber, forKey: NSReadOnlyPersistentStoreOption)
                try coordinator.addPersistentStore(description)
                let reader = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
                let count = try reader.performAndWait { try reader.count(for: FetchRequest<Server>()) }
                if count != 1 { tally.lost += 1; Issue.record("read-only, the store holds \(count) saves") }
                try coordinator.remove(coordinator.persistentStores[0])
            } catch {
                tally.stuck += 1
                Issue.record("the store could not be opened read-only on a read-only file system: \(error)")
            }
            try Self.check(Glibc.mount("tmpfs", mount.path, "tmpfs", UInt(MS_REMOUNT), nil), "remount writable")
            do {
                let context = try MigrationKillCampaign.open(store, TestStack.entities)
                try Self.saveNumbered(2, in: context)
                Self.expectSaves(1...2, in: store, tally: &tally)
            } catch {
                tally.stuck += 1
                Issue.record("the store could not be saved to once the file system was writable: \(error)")
            }
        }
        print(tally.line("read-only file system"))
        #expect(tally.isClean)
    }

    /// The store's directory removed while it is open: SQLite refuses to
    /// write to a database file that was unlinked, so no save returns into
    /// a file nobody can open again.
    @Test func directoryRemoved() throws {
        var tally = Tally()
        for _ in 0..<Self.rounds {
            let store = TestFiles.newURL("store.sqlite")
            let context = try MigrationKillCampaign.open(store, TestStack.entities)
            try Self.saveNumbered(1, in: context)
            try FileManager.default.removeItem(at: store.deletingLastPathComponent())
            tally.tried += 1
            do {
                try Self.saveNumbered(2, in: context)
                tally.lost += 1
                Issue.record("a save into a removed directory returned: it is lost")
            } catch {
                Self.judge(error, expecting: "moved or deleted", tally: &tally)
            }
            #expect(context.performAndWait { context.hasChanges })
        }
        print(tally.line("directory removed"))
        #expect(tally.isClean)
    }

    /// The write-ahead log deleted while the store is open (by hand, or a
    /// cleaning tool): the process that has it open goes on saving into it,
    /// and once it closes the store SQLite copies the log into the database,
    /// so every save that returned is there.
    @Test func writeAheadLogDeleted() throws {
        var tally = Tally()
        for _ in 0..<Self.rounds {
            let store = TestFiles.newURL("store.sqlite")
            var saved = 0
            do {
                let context = try MigrationKillCampaign.open(store, TestStack.entities)
                try Self.saveNumbered(1, in: context)
                saved = 1
                try FileManager.default.removeItem(atPath: store.path + "-wal")
                tally.tried += 1
                do {
                    try Self.saveNumbered(2, in: context)
                    saved = 2
                } catch {
                    Self.judge(error, expecting: "", tally: &tally)
                }
                let coordinator = context.persistentStoreCoordinator!
                try coordinator.remove(coordinator.persistentStores[0])
            }
            Self.expectSaves(1...saved, in: store, tally: &tally)
        }
        print(tally.line("write-ahead log deleted"))
        #expect(tally.isClean)
    }

    // MARK: Support

    /// Save `number` (``NumberedSaves``), 4 KB larger, to fill a disk sooner.
    static func saveNumbered(_ number: Int, in context: ManagedObjectContext) throws {
        try NumberedSaves.save(number, in: context, padding: 4000)
    }

    /// The saves in the store (opened anew) are exactly `numbers`, each whole.
    static func expectSaves(_ numbers: ClosedRange<Int>, in store: URL, tally: inout Tally) {
        do {
            let found = try NumberedSaves.found(in: MigrationKillCampaign.open(store, TestStack.entities))
            if Set(found.keys) != Set(numbers) || found.values.contains(where: { $0 != NumberedSaves.itemsPerSave }) {
                tally.lost += 1
                Issue.record("expected saves \(numbers) whole, found \(found.sorted { $0.key < $1.key })")
            }
        } catch {
            tally.stuck += 1
            Issue.record("the store could not be opened: \(error)")
        }
    }

    /// A failed save's error: Coherence's own, saying `words`.
    static func judge(_ error: any Error, expecting words: String, tally: inout Tally) {
        guard error is StoreError, "\(error)".contains(words) else {
            tally.untyped += 1
            Issue.record("expected a StoreError saying \"\(words)\", got \(type(of: error)): \(error)")
            return
        }
    }

    /// Mounts and remounts through the system calls, not `mount(8)`: a
    /// child process's exit could be reaped by the exit tests' monitor
    /// thread before Foundation's `Process` sees it, and waiting would hang.
    /// Remounts `path` read-only. Linux refuses (EBUSY) while a file there
    /// is open for writing: a child process another test started at that
    /// moment can hold the store's descriptors for its first instants, so
    /// the refusal is tried again for up to a second; after that, the error
    /// names the processes holding files there.
    static func remountReadOnly(_ path: String) throws {
        for _ in 0..<50 {
            if Glibc.mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 { return }
            guard errno == EBUSY else { break }
            usleep(20_000)
        }
        let holders = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { pid in
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).contains { fd in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"))?.hasPrefix(path) == true
            }
        } ?? []
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey:
            "remount read-only: \(String(cString: strerror(errno))); processes with files open there: \(holders)"])
    }

    static func check(_ result: Int32, _ what: String) throws {
        guard result == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
        }
    }

    /// A tmpfs of `size` mounted on a new directory.
    struct Mount {
        let path: String
        init(size: String) throws {
            path = TestFiles.newURL("mount").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try IOFaultCampaign.check(Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(size)"), "mount a tmpfs on \(path)")
        }
        func unmount() { umount2(path, Int32(MNT_DETACH)) }
    }
}
