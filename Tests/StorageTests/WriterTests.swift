import Foundation
import Testing
@testable import Storage

@Suite struct WriterTests {
    @Test func batchesAreCommittedByFlush() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 30  // only flush commits here
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<2_000 { writer.record(point("dev-\(i % 10)", Double(i), x: Double(i))) }
        #expect(writer.flush(timeout: 10))
        let stats = writer.statistics
        #expect(stats.enqueued == 2_000)
        #expect(stats.written == 2_000)
        #expect(stats.queueDepth == 0)
        #expect(stats.status == .ok)
        #expect(stats.commits >= 1 && stats.commits < 2_000)  // batched, not a commit per point
        #expect(try count("track_points", in: path) == 2_000)
        #expect(try count("devices", in: path) == 10)
        writer.close()
        #expect(writer.record(point("late", 1)) == .closed)
    }

    @Test func queuedWritesAreCommittedWithoutFlush() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 0.2
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<50 { writer.record(point("a", Double(i), x: Double(i))) }
        // The periodic commit, not a flush, makes them visible to another connection.
        // The file may not exist yet when polling starts.
        #expect(eventually(timeout: 5) { (try? count("track_points", in: path)) == 50 })
        #expect(writer.committedTicket == 50)
    }

    @Test func devicesKeepFirstAndLastSeenAndTheirName() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.deviceNames = ["a": "Keys", "never-heard": "Spare"]
        let writer = TrackWriter(path: path, configuration: configuration)
        writer.record(point("a", 100))
        writer.record(point("a", 150))
        writer.record(point("a", 120))
        writer.record(point("b", 110))
        #expect(writer.flush())
        let devices = try TrackReader(path: path).devices()
        // A name alone makes no row: a device is in the table once it was heard.
        #expect(devices.map(\.id) == ["a", "b"])
        #expect(devices.map(\.name) == ["Keys", nil])
        #expect(devices.first?.firstSeen == 100)
        #expect(devices.first?.lastSeen == 150)
        #expect(devices.first?.trackPoints == 3)
    }

    /// The site changed between two runs: rows already there take the new names, and a
    /// device the site no longer names loses its name.
    @Test func reopeningWithOtherNamesRenamesAndClears() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.deviceNames = ["keys": "Keys", "phone": "Alex's phone"]
        var writer = TrackWriter(path: path, configuration: configuration)
        for id in ["keys", "phone", "tag"] { writer.record(point(id, 100)) }
        writer.close()
        #expect(try TrackReader(path: path).devices().map(\.name) == ["Keys", "Alex's phone", nil])
        configuration.deviceNames = ["keys": "Car keys", "tag": "Bag"]
        writer = TrackWriter(path: path, configuration: configuration)
        writer.record(point("keys", 200))   // the writer opens the file at its first commit
        writer.close()
        #expect(try TrackReader(path: path).devices().map(\.name) == ["Car keys", nil, "Bag"])
    }

    /// Names already as the site has them take no write lock at open: a writer opens while
    /// another connection holds the database's write lock (before: BEGIN IMMEDIATE at every
    /// open, which failed busy here).
    @Test func unchangedNamesWriteNothingAtOpen() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        let names = ["keys": "Keys", "spare": "Spare"]
        _ = try BatchWriter(path: path, busyTimeout: 0.1, names: names)
        let holder = try Connection(path: path)
        try holder.execute("INSERT INTO devices(id, name, first_seen, last_seen) VALUES ('keys', 'Keys', 1, 1), ('tag', NULL, 1, 1)")
        try holder.execute("BEGIN IMMEDIATE")
        defer { try? holder.execute("ROLLBACK") }
        #expect(throws: Never.self) { _ = try BatchWriter(path: path, busyTimeout: 0.1, names: names) }
        // A name to change still needs the lock, and waits for it.
        #expect(throws: DatabaseError.self) { _ = try BatchWriter(path: path, busyTimeout: 0.1, names: ["tag": "Bag"]) }
    }

    @Test func eventsAreCommittedAtOnceAndInOrder() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 60  // track points alone would wait a minute
        let commits = LogLines()
        let writer = TrackWriter(path: path, configuration: configuration, onCommit: { commits.sink("\($0)") })
        writer.record(point("a", 10))
        let outcome = writer.openVisit(Visit(device: "a", zone: "kitchen", floor: "ground", enter: 10))
        let ticket = try #require(outcome.ticket)
        #expect(writer.waitUntilCommitted(ticket, timeout: 5))
        #expect(try count("visits", in: path) == 1)
        #expect(try count("track_points", in: path) == 1)  // queued before the event: committed with it
        // The hook runs on the writer thread just after waiters are woken.
        #expect(eventually(timeout: 5) { commits.all.contains("\(ticket)") })
    }

    @Test func closingAVisitSetsExitAndDwellOnce() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        let writer = TrackWriter(path: path, configuration: eagerConfiguration())
        let visit = Visit(device: "a", zone: "hall", floor: "ground", enter: 1_000.25)
        writer.openVisit(visit)
        writer.closeVisit(visit, at: 1_030.75)
        writer.closeVisit(visit, at: 2_000)  // a second exit must not move the first
        writer.openVisit(visit)  // a replayed enter must not reopen it
        // A close whose open never reached the disk still stores the whole visit.
        writer.closeVisit(Visit(device: "b", zone: "hall", floor: nil, enter: 5), at: 7)
        #expect(writer.flush())
        let visits = try TrackReader(path: path).visits()
        #expect(visits == [Visit(device: "b", zone: "hall", floor: nil, enter: 5, exit: 7),
                           Visit(device: "a", zone: "hall", floor: "ground", enter: 1_000.25, exit: 1_030.75)])
        #expect(visits.last?.dwell == 30.5)
    }

    @Test func healthIsStored() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        let writer = TrackWriter(path: path, configuration: eagerConfiguration())
        writer.recordHealth(NodeHealth(node: "kitchen", t: 10, adverts: 500, dropped: 2, buffered: 0, online: true))
        writer.recordHealth(NodeHealth(node: "kitchen", t: 70, adverts: nil, dropped: nil, buffered: nil, online: false))
        #expect(writer.flush())
        #expect(try count("node_health", in: path, where: "online = 1 AND adverts = 500") == 1)
        #expect(try count("node_health", in: path, where: "online = 0 AND adverts IS NULL") == 1)
        #expect(try count("nodes", in: path) == 1)
        #expect(try count("nodes", in: path, where: "name = 'kitchen' AND first_seen = 10 AND last_seen = 70") == 1)
    }

    @Test func aFullQueueRefusesAndCountsInsteadOfStalling() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        // Another connection holds the write lock, so the writer cannot drain its queue.
        let blocker = try Connection(path: path)
        try blocker.execute("BEGIN EXCLUSIVE")
        var configuration = eagerConfiguration()
        configuration.capacity = 100
        configuration.eventReserve = 10
        let writer = TrackWriter(path: path, configuration: configuration)
        var outcomes: [WriteOutcome] = []
        let start = Date()
        for i in 0..<10_000 { outcomes.append(writer.record(point("dev-\(i)", Double(i)))) }
        let elapsed = Date().timeIntervalSince(start)
        let queued = outcomes.filter { $0.ticket != nil }.count
        let dropped = outcomes.filter { $0 == .droppedFull }.count
        #expect(queued == 100)
        #expect(dropped == 9_900)
        #expect(elapsed < 5)  // generous: the point is that no call waited on the locked disk
        // Zone events still find room in their reserve.
        #expect(writer.openVisit(Visit(device: "dev-1", zone: "z", floor: nil, enter: 1)).ticket != nil)
        let stats = writer.statistics
        #expect(stats.droppedFull == 9_900)
        #expect(stats.queueDepth == 101)
        try blocker.execute("COMMIT")
        #expect(writer.flush(timeout: 10))
        #expect(try count("track_points", in: path) == 100)
        #expect(try count("visits", in: path) == 1)
    }

    @Test func aBacklogIsCommittedInBoundedBatchesInOrder() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let blocker = try Connection(path: path)
        try blocker.execute("BEGIN EXCLUSIVE")
        var configuration = eagerConfiguration()
        configuration.capacity = 20_000
        configuration.batchSize = 100
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<10_000 { writer.record(point("dev-\(i % 7)", Double(i), x: Double(i))) }
        let last = try #require(writer.openVisit(Visit(device: "dev-1", zone: "z", floor: nil, enter: 9_999)).ticket)
        #expect(last == 10_001)
        try blocker.execute("COMMIT")
        #expect(writer.waitUntilCommitted(last, timeout: 30))
        let stats = writer.statistics
        #expect(stats.written == 10_001 && stats.queueDepth == 0)
        #expect(stats.commits >= 100)  // never one huge transaction
        #expect(try count("track_points", in: path) == 10_000)
        // Rows went in the order they were queued.
        #expect(try count("track_points AS p", in: path,
                          where: "EXISTS (SELECT 1 FROM track_points q WHERE q.rowid < p.rowid AND q.t > p.t)") == 0)
    }

    @Test func aLockedDatabaseIsReportedAndWritesResume() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let blocker = try Connection(path: path)
        try blocker.execute("BEGIN EXCLUSIVE")
        let log = LogLines()
        let writer = TrackWriter(path: path, configuration: eagerConfiguration(), log: log.sink)
        for i in 0..<20 { writer.record(point("a", Double(i), x: Double(i))) }
        #expect(!writer.flush(timeout: 0.5))
        #expect(eventually { writer.statistics.status == .locked })
        #expect(writer.statistics.writeErrors > 0)
        #expect(writer.statistics.lastError?.resultCode == 5)  // SQLITE_BUSY
        #expect(eventually { log.contains("writes failing (locked)") })
        try blocker.execute("COMMIT")
        #expect(writer.flush(timeout: 10))
        #expect(writer.statistics.status == .ok)
        #expect(log.contains("writes resumed"))
        #expect(try count("track_points", in: path) == 20)
    }
}

@Suite struct ThinningTests {
    private func thinner() -> Thinner { Thinner(trackInterval: 1, stillDistance: 0.3, stillInterval: 60) }

    @Test func aStillDeviceWritesOnceAMinute() {
        var thin = thinner()
        // Two minutes at 10 Hz, wobbling by 0.1 m around one spot.
        let kept = (0...1_200).filter { i in
            thin.admit(point("a", Double(i) / 10, x: i % 2 == 0 ? 0.05 : -0.05))
        }
        #expect(kept == [0, 600, 1_200])
    }

    @Test func aMovingDeviceWritesAtMostEveryTrackInterval() {
        var thin = thinner()
        // Walking at 1 m/s, reported at 10 Hz for 10 s.
        let kept = (0...100).filter { i in thin.admit(point("a", Double(i) / 10, x: Double(i) / 10)) }
        #expect(kept == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100])
    }

    @Test func aRoomChangeIsWrittenAtOnce() {
        var thin = thinner()
        let admitted = [thin.admit(point("a", 0, room: "kitchen")),
                        thin.admit(point("a", 0.1, x: 0.01, room: "kitchen")),
                        thin.admit(point("a", 0.2, x: 0.02, room: "hall")),
                        thin.admit(point("b", 0.2, room: "hall"))]  // devices are thinned apart
        #expect(admitted == [true, false, true, true])
    }

    @Test func theWriterCountsThinnedPoints() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = WriterConfiguration()
        configuration.commitInterval = 0.05
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0...1_200 { writer.record(point("a", Double(i) / 10)) }
        #expect(writer.flush())
        #expect(writer.statistics.thinned == 1_198)
        #expect(try count("track_points", in: path) == 3)
    }
}
