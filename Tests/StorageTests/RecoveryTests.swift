import Foundation
import Testing
@testable import Storage

@Suite struct RecoveryTests {
    @Test func visitsLeftOpenAreClosedAtTheDevicesLastTrackPoint() throws {
        let dir = TempDirectory()
        let path = dir.file("r.db")
        do {
            // The aggregator's first life: it dies without closing its visits.
            let writer = TrackWriter(path: path, configuration: eagerConfiguration())
            for t in stride(from: 100.0, through: 150, by: 5) { writer.record(point("a", t, x: t)) }
            writer.openVisit(Visit(device: "a", zone: "kitchen", floor: "ground", enter: 120))
            writer.openVisit(Visit(device: "b", zone: "hall", floor: "ground", enter: 130))  // b has no track
            let done = Visit(device: "a", zone: "front-door", floor: "ground", enter: 110)
            writer.openVisit(done)
            writer.closeVisit(done, at: 118)
            #expect(writer.flush())
        }
        let writer = TrackWriter(path: path, configuration: eagerConfiguration())
        let open = try writer.openVisits()
        #expect(open == [
            OpenVisit(visit: Visit(device: "a", zone: "kitchen", floor: "ground", enter: 120), lastTrackPoint: 150),
            OpenVisit(visit: Visit(device: "b", zone: "hall", floor: "ground", enter: 130), lastTrackPoint: nil),
        ])
        let tickets = open.compactMap { writer.closeVisit($0).ticket }
        #expect(tickets.count == 2)
        // The caller publishes each exit once its close is committed.
        #expect(writer.waitUntilCommitted(tickets.max() ?? 0, timeout: 5))
        #expect(try writer.openVisits().isEmpty)
        let visits = try TrackReader(path: path).visits()
        #expect(visits.count == 3)
        #expect(visits.first { $0.zone == "kitchen" }?.dwell == 30)
        #expect(visits.first { $0.zone == "hall" }?.dwell == 0)
        #expect(visits.allSatisfy { $0.exit != nil })
    }

    /// What a `kill -9` leaves on disk is the database and WAL files as they are at that
    /// instant. The files are copied mid-stream, after the writer reported an event committed
    /// and without flush or close, and the copy must open intact with every published event.
    @Test func filesCopiedMidStreamHoldEveryCommittedEvent() throws {
        let dir = TempDirectory()
        let path = dir.file("live.db")
        var configuration = WriterConfiguration()
        configuration.commitInterval = 0.05
        let writer = TrackWriter(path: path, configuration: configuration)
        let streaming = StopFlag()
        let stream = Thread {
            var i = 0.0
            while !streaming.stopped {
                for d in 0..<20 { writer.record(point("dev-\(d)", i / 10, x: i / 10 + Double(d))) }
                i += 1
                usleep(200)
            }
        }
        stream.start()
        defer { streaming.stop() }
        var published: [Visit] = []
        for k in 0..<5 {
            let visit = Visit(device: "dev-\(k)", zone: "zone-\(k)", floor: "ground", enter: Double(k))
            let ticket = try #require(writer.openVisit(visit).ticket)
            #expect(writer.waitUntilCommitted(ticket, timeout: 5))
            published.append(visit)  // the aggregator would publish the enter event now
            let pointsBefore = writer.statistics.written
            let copy = try snapshot(path, into: dir.file("copy-\(k)"))
            let db = try Connection(path: copy)
            #expect(try db.text("PRAGMA integrity_check") == "ok")
            let stored = try TrackReader(path: copy).visits()
            #expect(published.allSatisfy { stored.contains($0) }, "copy \(k) lost a published event")
            let rows = try db.integer("SELECT (SELECT count(*) FROM track_points) + (SELECT count(*) FROM visits)") ?? 0
            #expect(UInt64(rows) >= pointsBefore)
            usleep(50_000)
        }
        streaming.stop()
        writer.close()
    }

    /// Copies the database and its WAL as they are. A reader transaction is held meanwhile, as
    /// a `whereabouts history` would, so no checkpoint resets the WAL between the two copies.
    private func snapshot(_ path: String, into directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pin = try Connection(path: path, mode: .readOnly)
        try pin.execute("BEGIN")
        _ = try pin.integer("SELECT count(*) FROM devices")
        let copy = directory + "/copy.db"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        try pin.execute("COMMIT")
        return copy
    }
}

final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var stopped: Bool { lock.withLock { flag } }
    func stop() { lock.withLock { flag = true } }
}
