import Foundation
import Testing
@testable import Storage

/// Fills a fresh store by SQL, so each row's time is exactly what the test says.
private struct Fixture {
    let dir = TempDirectory()
    let path: String
    let db: Connection

    init() throws {
        path = dir.file("m.db")
        db = try Connection(path: path)
        try Schema.migrator.migrate(db)
        try db.execute("""
            INSERT INTO devices(key, id, first_seen, last_seen) VALUES (1, 'a', 0, 0), (2, 'b', 0, 0);
            INSERT INTO nodes(key, name, first_seen, last_seen) VALUES (1, 'kitchen', 0, 0);
            """)
    }

    func points(_ device: Int64, at times: [Double]) throws {
        let insert = try db.prepare("INSERT INTO track_points(device, t, x, y, z, confidence) VALUES (?1, ?2, 0, 0, 0, 1)")
        try db.transaction {
            for t in times {
                try insert.bind(device, at: 1)
                try insert.bind(t, at: 2)
                try insert.run()
            }
        }
    }

    func rows(_ sql: String) throws -> Int64 { try db.integer(sql) ?? -1 }
}

@Suite struct MaintenanceTests {
    @Test func retentionRemovesExactlyWhatIsOlderThanTheBound() throws {
        let f = try Fixture()
        let now = 1_000_000.0, keep = 3_600.0, keepReadings = 600.0
        let bound = now - keep, readingBound = now - keepReadings
        let around: [Double] = [-100, -1, -0.001, 0, 0.001, 1, 100]
        try f.points(1, at: around.map { bound + $0 } + (0..<50).map { bound - 10 - Double($0) })
        try f.points(2, at: around.map { bound + $0 })
        for d in around {
            try f.db.execute("INSERT INTO readings(node, device, t, rssi) VALUES (1, 1, \(readingBound + d), -60)")
            try f.db.execute("INSERT INTO node_health(node, t, online) VALUES (1, \(bound + d), 1)")
            try f.db.execute("INSERT INTO visits(device, zone, enter_t, exit_t, dwell) VALUES (1, 'z\(d)', 0, \(bound + d), 1)")
        }
        try f.db.execute("INSERT INTO visits(device, zone, enter_t) VALUES (2, 'still-open', 0)")
        let beforeTrack = try f.rows("SELECT count(*) FROM track_points")
        let youngTrack = try f.rows("SELECT count(*) FROM track_points WHERE t >= \(bound)")
        #expect(beforeTrack == 64 && youngTrack == 8)

        var policy = RetentionPolicy(retention: keep, readings: keepReadings, downsampleAfter: nil)
        policy.downsampleInterval = 60
        var maintenance = Maintenance(policy: policy, chunk: 7)  // many small steps
        let removed = try maintenance.run(f.db, now: now)

        #expect(try f.rows("SELECT count(*) FROM track_points") == youngTrack)
        #expect(try f.rows("SELECT count(*) FROM track_points WHERE t = \(bound)") == 2)  // the bound itself stays
        #expect(try f.rows("SELECT count(*) FROM track_points WHERE t < \(bound)") == 0)
        #expect(try f.rows("SELECT count(*) FROM readings") == 4)
        #expect(try f.rows("SELECT min(t) = \(readingBound) FROM readings") == 1)
        #expect(try f.rows("SELECT count(*) FROM node_health") == 4)
        #expect(try f.rows("SELECT count(*) FROM visits WHERE exit_t IS NOT NULL") == 4)
        #expect(try f.rows("SELECT count(*) FROM visits WHERE zone = 'still-open'") == 1)  // open visits stay
        #expect(removed == (beforeTrack - youngTrack) + 3 + 3 + 3)
        #expect(try maintenance.run(f.db, now: now) == 0)
    }

    @Test func oldTrackPointsAreDownsampledToOneAMinutePerDevice() throws {
        let f = try Fixture()
        let now = 1_000_020.0  // now - 1 day is a whole minute: 913_620
        let bound = now - 86_400
        try f.points(1, at: stride(from: bound - 7_200, to: bound + 600, by: 10).map { $0 })
        try f.points(2, at: stride(from: bound - 7_197, to: bound + 603, by: 10).map { $0 })
        #expect(try f.rows("SELECT count(*) FROM track_points WHERE t < \(bound)") == 1_440)
        var maintenance = Maintenance(policy: RetentionPolicy(retention: nil, readings: nil), chunk: 50)
        let removed = try maintenance.run(f.db, now: now)

        #expect(removed == 1_200)
        for (device, offset) in [(1, 0), (2, 3)] {
            #expect(try f.rows("SELECT count(*) FROM track_points WHERE device = \(device) AND t < \(bound)") == 120)
            // The first point of each minute is the one kept.
            #expect(try f.rows("""
                SELECT count(*) FROM track_points WHERE device = \(device) AND t < \(bound)
                AND CAST(t AS INTEGER) % 60 != \(offset)
                """) == 0)
            #expect(try f.rows("SELECT count(*) FROM track_points WHERE device = \(device) AND t >= \(bound)") == 60)
        }
        // The watermark spares the next pass from re-reading what is done.
        #expect(try f.rows("SELECT value FROM store_state WHERE key = 'downsampled_through'") == Int64(bound))
        #expect(try maintenance.run(f.db, now: now) == 0)
    }

    @Test func theWriterPrunesInTheBackground() throws {
        let dir = TempDirectory()
        let path = dir.file("w.db")
        let now = 2_000_000.0
        var configuration = eagerConfiguration()
        configuration.maintenanceInterval = 0.05
        configuration.retention = RetentionPolicy(retention: 3_600, readings: 60, downsampleAfter: nil)
        configuration.clock = { now }
        configuration.maintenanceInterval = 0.3
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<100 { writer.record(point("a", now - 7_200 + Double(i), x: Double(i))) }
        #expect(writer.flush())
        // A steady stream of fresh points keeps the queue busy while the pass is due.
        let streaming = StopFlag()
        let stream = Thread {
            var i = 0.0
            while !streaming.stopped {
                writer.record(point("b", now - 3_000 + i, x: i))
                i += 1
                usleep(1_000)
            }
        }
        stream.start()
        defer { streaming.stop() }
        #expect(eventually { writer.statistics.pruned == 100 })
        #expect(eventually { (try? count("track_points", in: path, where: "t < \(now - 3_600)")) == 0 })
        streaming.stop()
        #expect(writer.flush())
        #expect(try count("track_points", in: path, where: "device = (SELECT key FROM devices WHERE id = 'b')")
                == Int64(writer.statistics.written) - 100)
    }
}
