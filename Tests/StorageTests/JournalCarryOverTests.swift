import Foundation
import Testing
@testable import Storage

/// The journal over several stops and starts: what a stop finds there is never lost, it does
/// not grow by copies, and a file too large to read does not stop a start.
@Suite struct JournalCarryOverTests {
    let keys = Visit(device: "keys", zone: "west", floor: "main", enter: 100.25)

    /// A writer on a database another connection keeps write-locked, closed after `writes`.
    private func closeLocked(_ path: String, log: LogLines, _ writes: (TrackWriter) -> Void) throws -> WriterStatistics {
        let holder = try Connection(path: path)
        try holder.execute("BEGIN IMMEDIATE")
        defer { try? holder.execute("ROLLBACK") }
        var configuration = eagerConfiguration()
        configuration.shutdownGrace = 0.3
        let writer = TrackWriter(path: path, configuration: configuration, log: log.sink)
        writes(writer)
        writer.close()
        return writer.statistics
    }

    /// Files beside the database whose name starts with `prefix`.
    private func files(in dir: TempDirectory, startingWith prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(prefix) }
    }

    /// A damaged journal (a start refuses it) is moved aside by a stop, not overwritten: its
    /// visits stay for an operator, and the new journal holds the stop's own.
    @Test func aStopSetsADamagedJournalAsideInsteadOfOverwritingIt() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let damaged = "whereabouts-pending-visits 1\nphone\thall\tmain\t5\n"
        try damaged.write(toFile: path + ".pending", atomically: true, encoding: .utf8)
        let log = LogLines()
        let stats = try closeLocked(path, log: log) { $0.openVisit(keys) }
        #expect(stats.journaled == 1, "\(log.all)")
        #expect(try VisitJournal(database: path).visits() == [keys])
        let aside = try files(in: dir, startingWith: "w.db.pending.damaged-")
        #expect(aside.count == 1, "\(log.all)")
        #expect(try aside.map { try String(contentsOfFile: dir.file($0), encoding: .utf8) } == [damaged])
        #expect(log.contains("moved it to \(dir.file(aside.first ?? "-"))"), "\(log.all)")
    }

    /// Journaled visits are counted as journaled, not also as dropped for a full queue.
    @Test func journaledWritesAreNotCountedAsDropped() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let log = LogLines()
        let stats = try closeLocked(path, log: log) { writer in
            writer.openVisit(keys)
            writer.record(point("keys", 101))
        }
        #expect(stats.journaled == 1)
        #expect(stats.droppedFull == 1, "the track point alone: \(stats)")
    }

    /// A stop that finds the journal it resumed still unstored writes each visit once, its
    /// open left out where its close is there: restarts on a failing database add visits to
    /// it, never copies.
    @Test func restartsOnAFailingDatabaseDoNotGrowTheJournalByCopies() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let log = LogLines()
        var closed = keys
        closed.exit = 110
        _ = try closeLocked(path, log: log) { $0.openVisit(keys) }
        for _ in 0..<3 {
            _ = try closeLocked(path, log: log) { writer in
                _ = try? writer.resumeJournal()
                writer.closeVisit(keys, at: 110)
            }
        }
        #expect(try VisitJournal(database: path).visits() == [closed], "\(log.all)")
    }

    /// A journal larger than the reader takes is set aside at start with an error line, and
    /// the start goes on (before: every start failed on it, and systemd restarted it forever).
    @Test func anOversizedJournalIsSetAsideAndTheStartGoesOn() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        #expect(FileManager.default.createFile(atPath: path + ".pending", contents: nil))
        let file = try #require(FileHandle(forWritingAtPath: path + ".pending"))
        try file.truncate(atOffset: UInt64(VisitJournal.maxBytes) + 1)
        try file.close()
        let log = LogLines()
        let writer = TrackWriter(path: path, configuration: eagerConfiguration(), log: log.sink)
        #expect(try writer.resumeJournal().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path + ".pending"))
        #expect(try files(in: dir, startingWith: "w.db.pending.oversized-").count == 1)
        #expect(log.contains("larger than \(VisitJournal.maxBytes) bytes; moved it to"), "\(log.all)")
        writer.openVisit(keys)
        #expect(writer.flush())
        writer.close()
        #expect(try TrackReader(path: path).visits() == [keys])
    }

    /// The last track point of a device, for a journaled open a crash recovery closes.
    @Test func theReaderGivesADevicesLastTrackPoint() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        let writer = TrackWriter(path: path, configuration: eagerConfiguration())
        writer.record(point("keys", 101))
        writer.record(point("keys", 107.5))
        writer.record(point("phone", 200))
        #expect(writer.flush())
        writer.close()
        let reader = try TrackReader(path: path)
        #expect(try reader.lastTrackPoint(device: "keys") == 107.5)
        #expect(try reader.lastTrackPoint(device: "unknown") == nil)
    }
}
