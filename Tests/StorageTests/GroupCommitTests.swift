import Foundation
import Testing
@testable import Storage

/// Events gathered into one commit, and interned devices (`TrackedDevice`).
@Suite struct GroupCommitTests {
    @Test func anEventAfterAQuietSpellIsCommittedAtOnceAndOnesRightAfterItShareTheNextCommit() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 600  // only events and flush commit here
        configuration.eventCommitGap = 600  // events after the first wait for the next commit
        let writer = TrackWriter(path: path, configuration: configuration)
        let first = try #require(writer.openVisit(Visit(device: "a", zone: "hall", floor: nil, enter: 1)).ticket)
        // No flush (it would commit at once): the writer commits the first event by itself.
        #expect(eventually { writer.committedTicket >= first })
        #expect(writer.statistics.commits == 1)
        let second = writer.openVisit(Visit(device: "b", zone: "hall", floor: nil, enter: 2))
        let third = writer.closeVisit(Visit(device: "a", zone: "hall", floor: nil, enter: 1), at: 3)
        #expect(second.ticket != nil && third.ticket != nil)
        // Within the gap these two wait, together, for the next commit: here the flush's.
        #expect(writer.statistics.commits == 1)
        #expect(writer.flush())
        #expect(writer.statistics.commits == 2)
        #expect(try count("visits", in: path) == 2)
        #expect(try count("visits", in: path, where: "exit_t = 3") == 1)
    }

    @Test func withNoGapEveryEventIsCommittedByItself() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 600
        configuration.eventCommitGap = 0
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<3 {
            let ticket = try #require(writer.openVisit(Visit(device: "d\(i)", zone: "hall", floor: nil, enter: 1)).ticket)
            #expect(eventually { writer.committedTicket >= ticket })
        }
        #expect(writer.statistics.commits == 3)
    }

    @Test func pointsWrittenManyToAnInsertKeepEveryValueAndTheirOrder() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 600
        configuration.eventCommitGap = 600
        let writer = TrackWriter(path: path, configuration: configuration)
        // One commit first, so that the visits below come right after it and wait for the
        // flush's commit: an event after a quiet spell is committed at once, and would race
        // this loop for the first few writes.
        writer.record(point("w", 0))
        #expect(writer.flush())
        // 77 points (chunks of 32, 32, then 8 + 4 + 1) of three devices, visits and a nameless
        // floor in between, all in one batch.
        let handle = writer.device("c")
        for i in 0..<77 {
            let t = Double(i)
            switch i % 3 {
            case 0: writer.record(point("a", t, x: t, y: -t))
            case 1: writer.record(TrackPoint(device: "b", t: t, x: t, y: 2 * t, z: 0.5, floor: nil, room: nil, confidence: 0.25))
            default: writer.record(handle, t: t, x: t, y: 0, z: 0, floor: "ground", room: "hall \(i)", confidence: 1)
            }
            if i % 10 == 0 { writer.openVisit(Visit(device: "a", zone: "z\(i)", floor: nil, enter: t)) }
        }
        #expect(writer.flush())
        #expect(writer.statistics.commits == 2)
        #expect(try count("track_points", in: path, where: "device <> (SELECT key FROM devices WHERE id = 'w')") == 77)
        #expect(try count("visits", in: path) == 8)
        var a: [TrackPoint] = [], b: [TrackPoint] = [], c: [TrackPoint] = []
        try TrackReader(path: path).history(device: "a") { a.append($0) }
        try TrackReader(path: path).history(device: "b") { b.append($0) }
        try TrackReader(path: path).history(device: "c") { c.append($0) }
        #expect(a == stride(from: 0, to: 77, by: 3).map { point("a", Double($0), x: Double($0), y: -Double($0)) })
        #expect(b == stride(from: 1, to: 77, by: 3).map {
            TrackPoint(device: "b", t: Double($0), x: Double($0), y: 2 * Double($0), z: 0.5, floor: nil, room: nil, confidence: 0.25)
        })
        #expect(c.map(\.room) == stride(from: 2, to: 77, by: 3).map { "hall \($0)" })
        // Rows are inserted in queue order.
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.integer("SELECT count(*) FROM track_points p JOIN track_points q ON q.rowid = p.rowid + 1 WHERE q.t < p.t") == 0)
    }

    @Test func anInternedDeviceIsThinnedOnTheCallersSideAndStored() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        var configuration = WriterConfiguration()
        configuration.commitInterval = 0.05
        let writer = TrackWriter(path: path, configuration: configuration)
        let a = writer.device("iBeacon:a")
        // Two minutes at 10 Hz, wobbling by 0.1 m around one spot: a point a minute.
        var kept: [Int] = []
        for i in 0...1_200 {
            let outcome = writer.record(a, t: 100 + Double(i) / 10, x: i % 2 == 0 ? 0.05 : -0.05, y: 0, z: 1,
                                        floor: "ground", room: "kitchen", confidence: 0.8)
            if outcome.ticket != nil { kept.append(i) }
        }
        #expect(kept == [0, 600, 1_200])
        #expect(writer.flush())
        #expect(writer.statistics.thinned == 1_198)
        #expect(writer.statistics.enqueued == 3)
        #expect(try count("track_points", in: path) == 3)
        #expect(try times("iBeacon:a", in: path) == [100, 160, 220])
        #expect(try count("devices", in: path, where: "id = 'iBeacon:a' AND first_seen = 100") == 1)
    }

    @Test func aHandleNeverCarriesAKeyIntoAnotherDatabase() throws {
        let dir = TempDirectory()
        let first = TrackWriter(path: dir.file("one.db"), configuration: eagerConfiguration())
        let a = first.device("a")
        first.record(a, t: 1, x: 0, y: 0, z: 0, floor: nil, room: "hall", confidence: 1)
        #expect(first.flush())
        first.close()
        // In the second file another device takes key 1 first: `a` must get its own row there.
        let second = TrackWriter(path: dir.file("two.db"), configuration: eagerConfiguration())
        second.record(point("z", 1))
        second.record(a, t: 2, x: 0, y: 0, z: 0, floor: nil, room: "kitchen", confidence: 1)
        #expect(second.flush())
        #expect(try times("a", in: dir.file("two.db")) == [2])
        #expect(try times("z", in: dir.file("two.db")) == [1])
    }

    @Test func aPointAFullQueueRefusedIsNotTakenAsWritten() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        try Schema.prepare(path: path)
        let blocker = try Connection(path: path)
        try blocker.execute("BEGIN EXCLUSIVE")  // holds the queue: nothing is committed
        var configuration = eagerConfiguration()
        configuration.capacity = 1
        configuration.trackInterval = 1
        configuration.stillInterval = 60
        let writer = TrackWriter(path: path, configuration: configuration)
        let a = writer.device("a"), b = writer.device("b")
        #expect(writer.record(b, t: 0, x: 0, y: 0, z: 0, floor: nil, room: "hall", confidence: 1).ticket != nil)
        #expect(writer.record(a, t: 0, x: 0, y: 0, z: 0, floor: nil, room: "hall", confidence: 1) == .droppedFull)
        try blocker.execute("ROLLBACK")
        #expect(writer.flush())
        // Had the refused point been remembered, this one (0.1 s later, same spot) would be thinned.
        #expect(writer.record(a, t: 0.1, x: 0, y: 0, z: 0, floor: nil, room: "hall", confidence: 1).ticket != nil)
        #expect(writer.flush())
        #expect(try times("a", in: path) == [0.1])
    }
}

/// The times of a device's stored track points, oldest first.
private func times(_ device: String, in path: String) throws -> [Double] {
    var times: [Double] = []
    try TrackReader(path: path).history(device: device) { times.append($0.t) }
    return times
}
