import Foundation
import Testing
@testable import Storage

/// The visit journal (`<db>.pending`): the visit writes a close could not store, kept for the
/// next start, whose events were published already (docs/protocol.md#mqtt-topics-and-payloads: one `exit` per `enter`, also at a
/// clean stop on a failing database).
@Suite struct JournalTests {
    let keys = Visit(device: "keys", zone: "west", floor: "main", enter: 100.25, exit: 106.875)
    let phone = Visit(device: "phone", zone: "hall\tway \\ \n end", floor: nil, enter: 1_796_034_824.382)

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

    @Test func aCloseTheDatabaseRefusesKeepsItsVisitsAndTheNextStartStoresThem() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let log = LogLines()
        let stats = try closeLocked(path, log: log) { writer in
            writer.openVisit(Visit(device: "keys", zone: "west", floor: "main", enter: 100.25))
            writer.record(point("keys", 101))
            writer.closeVisit(Visit(device: "keys", zone: "west", floor: "main", enter: 100.25), at: 106.875)
            writer.openVisit(phone)
        }
        #expect(stats.journaled == 3 && stats.lostVisits == 0, "\(log.all)")
        #expect(log.contains("3 visit writes kept in \(path).pending"), "\(log.all)")
        #expect(try count("visits", in: path) == 0)
        // The open is left out: its close stores the whole visit.
        let journal = VisitJournal(database: path)
        #expect(try journal.visits() == [keys, phone])

        let writer = TrackWriter(path: path, configuration: eagerConfiguration(), log: log.sink)
        #expect(try writer.resumeJournal() == [keys, phone])
        #expect(writer.flush())
        #expect(eventually { !FileManager.default.fileExists(atPath: journal.path) }, "\(log.all)")
        writer.close()
        #expect(try TrackReader(path: path).visits() == [keys, phone])
        #expect(writer.statistics.journaled == 0)
    }

    /// A journal nobody resumed yet (a writer that never read it) keeps its visits when a
    /// later close adds its own.
    @Test func aSecondCloseAddsToAJournalNotYetResumed() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let log = LogLines()
        _ = try closeLocked(path, log: log) { $0.closeVisit(keys, at: keys.exit ?? 0) }
        _ = try closeLocked(path, log: log) { $0.openVisit(phone) }
        #expect(try VisitJournal(database: path).visits() == [keys, phone], "\(log.all)")
    }

    /// Where even the journal cannot be written (here a directory stands where its temporary
    /// file goes), the loss is logged and counted.
    @Test func aJournalThatCannotBeWrittenIsLoggedAndCounted() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        try FileManager.default.createDirectory(atPath: path + ".pending.tmp", withIntermediateDirectories: false)
        let log = LogLines()
        let stats = try closeLocked(path, log: log) { $0.openVisit(phone); $0.closeVisit(phone, at: phone.enter + 2) }
        #expect(stats.lostVisits == 2 && stats.journaled == 0)
        #expect(log.contains("ERROR: 2 visit writes stored nowhere"), "\(log.all)")
        #expect(!FileManager.default.fileExists(atPath: path + ".pending"))
    }

    @Test func aMissingJournalIsEmptyAndADamagedOneIsRefused() throws {
        let dir = TempDirectory()
        let journal = VisitJournal(database: dir.file("w.db"))
        #expect(try journal.visits().isEmpty)
        let damaged = [
            "some other file\n",
            "whereabouts-pending-visits 1\nkeys\twest\tmain\t100\n",           // four fields
            "whereabouts-pending-visits 1\nkeys\twest\tmain\tnan\t\\N\n",      // not a time
            "whereabouts-pending-visits 1\nkeys\twest\tmain\t100\tinf\n",
            "whereabouts-pending-visits 1\nke\\ys\twest\tmain\t100\t\\N\n",    // an escape never written
        ]
        for text in damaged {
            try text.write(toFile: journal.path, atomically: true, encoding: .utf8)
            #expect(throws: JournalError.self, "\(text)") { try journal.visits() }
        }
    }
}
