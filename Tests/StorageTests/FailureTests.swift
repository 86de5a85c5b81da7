import Foundation
import Testing
@testable import Storage

/// Real read-only and full filesystems. Root ignores file modes, so as root the test mounts a
/// read-only bind mount or a tiny tmpfs; without the right to mount these tests are skipped.
enum Mounts {
    static let available: Bool = {
        guard getuid() == 0 else { return false }
        let probe = TempDirectory("probe")
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]))?.status == 0 else {
            return false
        }
        _ = try? run("/bin/umount", [probe.path])
        return true
    }()

    static func mount(_ arguments: [String]) throws {
        let result = try run("/bin/mount", arguments)
        guard result.status == 0 else { throw MountError(message: "mount \(arguments): \(result.err)") }
    }

    static func unmount(_ path: String) { _ = try? run("/bin/umount", [path]) }

    struct MountError: Error { let message: String }
}

@Suite(.serialized) struct FailureTests {
    @Test(.enabled(if: getuid() != 0 || Mounts.available, "needs a non-root user or the right to mount"))
    func aReadOnlyDatabaseIsReportedAndWritesResumeWhenWritable() throws {
        let dir = TempDirectory()
        let place = dir.file("ro")
        try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
        let path = place + "/w.db"
        try Schema.prepare(path: path)
        let asRoot = getuid() == 0
        if asRoot {
            try Mounts.mount(["--bind", place, place])
            try Mounts.mount(["-o", "remount,bind,ro", place])
        } else {
            chmod(path, 0o444)
            chmod(place, 0o555)
        }
        defer {
            if asRoot { Mounts.unmount(place) } else { chmod(place, 0o755); chmod(path, 0o644) }
        }
        let log = LogLines()
        let writer = TrackWriter(path: path, configuration: eagerConfiguration(), log: log.sink)
        for i in 0..<30 { writer.record(point("a", Double(i), x: Double(i))) }
        #expect(eventually { writer.statistics.status == .readOnly }, "\(log.all)")
        #expect(writer.statistics.writeErrors > 0)
        #expect(writer.statistics.queueDepth == 30)  // kept, not lost
        #expect(eventually { log.contains("writes failing (read_only)") })
        if asRoot {
            try Mounts.mount(["-o", "remount,bind,rw", place])
        } else {
            chmod(place, 0o755)
            chmod(path, 0o644)
        }
        #expect(writer.flush(timeout: 10))
        #expect(writer.statistics.status == .ok)
        #expect(log.contains("writes resumed"))
        writer.close()
        #expect(try count("track_points", in: path) == 30)
    }

    @Test(.enabled(if: Mounts.available, "needs the right to mount a tmpfs"))
    func aFullDiskIsReportedAndWritesResumeWhenSpaceReturns() throws {
        let dir = TempDirectory()
        let place = dir.file("full")
        try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
        try Mounts.mount(["-t", "tmpfs", "-o", "size=4m", "tmpfs", place])
        defer { Mounts.unmount(place) }
        let path = place + "/w.db", filler = place + "/filler"
        let log = LogLines()
        let writer = TrackWriter(path: path, configuration: eagerConfiguration(), log: log.sink)
        writer.record(point("a", 0))
        #expect(writer.flush())
        // Take every free byte, as a log file running away would.
        let fill = try run("/bin/dd", ["if=/dev/zero", "of=" + filler, "bs=64k"])
        #expect(fill.status != 0 && fill.err.contains("No space"))
        for i in 1...5_000 { writer.record(point("dev-\(i % 50)", Double(i), x: Double(i))) }
        #expect(eventually { writer.statistics.status == .diskFull })
        #expect(eventually { log.contains("writes failing (disk_full)") })
        #expect(!writer.flush(timeout: 0.3))
        try FileManager.default.removeItem(atPath: filler)
        #expect(writer.flush(timeout: 10))
        #expect(writer.statistics.status == .ok)
        writer.close()
        #expect(try count("track_points", in: path) == 5_001)
        #expect(try TrackReader(path: path).integrityCheck() == "ok")
    }
}
