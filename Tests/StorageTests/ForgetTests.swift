import Foundation
import Testing
@testable import Storage

/// A building's passers-by: phones with fixed addresses that are heard for a while and never
/// again. The writer must not keep something for each of them for ever.
@Suite struct ForgetTests {
    static let rounds = 20
    static let passersBy = 250

    /// Each round: a resident device and `passersBy` new ones heard for three points, a fifth
    /// of the previous round's passers-by back again after a long absence, then every passer-by
    /// forgotten — right after its points are queued, before they are committed, as the
    /// aggregator may. Returns the largest count of cached devices seen at the end of a round.
    private func churn(_ path: String, forgetting: Bool) throws -> Int {
        var configuration = eagerConfiguration()
        configuration.commitInterval = 0.2
        // The times are from 1970: retention must not prune them while the test runs.
        configuration.retention = RetentionPolicy(retention: nil, readings: nil, downsampleAfter: nil)
        let writer = TrackWriter(path: path, configuration: configuration)
        var most = 0
        for round in 0..<Self.rounds {
            let t0 = Double(round) * 1_000
            var ids = (0..<Self.passersBy).map { "mac:round\(round)-\($0)" }
            if round > 0 { ids += (0..<Self.passersBy / 5).map { "mac:round\(round - 1)-\($0)" } }
            for step in 0..<3 {
                let t = t0 + Double(step) * 30
                writer.record(point("iBeacon:resident", t, x: Double(step)))
                for id in ids { writer.record(point(id, t, x: Double(step))) }
            }
            if forgetting { for id in ids { writer.forget(id) } }
            #expect(writer.flush())
            // The count is reported after the commit, on the writer thread.
            let expected = forgetting ? 1 : 1 + (round + 1) * Self.passersBy
            _ = eventually(timeout: 2) { writer.statistics.cachedDevices == expected }
            most = max(most, writer.statistics.cachedDevices)
        }
        writer.close()
        return most
    }

    @Test func forgottenDevicesLeaveTheWriterAndNothingStoredChanges() throws {
        let dir = TempDirectory("forget")
        let kept = dir.file("kept.db"), forgot = dir.file("forgot.db")
        let cachedWithout = try churn(kept, forgetting: false)
        let cachedWith = try churn(forgot, forgetting: true)
        // Without forgetting, every id ever seen stays cached (the leak this guards against).
        #expect(cachedWithout == Self.rounds * Self.passersBy + 1)
        // Forgetting leaves only the resident device.
        #expect(cachedWith == 1)

        // Same rows: no point lost or doubled, one device row per id, same first and last seen.
        let points = Self.rounds * 3 * (1 + Self.passersBy) + (Self.rounds - 1) * 3 * (Self.passersBy / 5)
        #expect(try count("track_points", in: forgot) == Int64(points))
        #expect(try count("devices", in: forgot) == Int64(1 + Self.rounds * Self.passersBy))
        let devicesKept = try TrackReader(path: kept).devices(), devicesForgot = try TrackReader(path: forgot).devices()
        #expect(devicesForgot == devicesKept)
        let back = devicesForgot.first { $0.id == "mac:round3-7" }
        #expect(back?.firstSeen == 3_000 && back?.lastSeen == 4_060 && back?.trackPoints == 6)
        #expect(try trackDump(forgot) == trackDump(kept))
    }

    @Test func aForgetWaitsForTheDevicesQueuedWrites() throws {
        let dir = TempDirectory("forget")
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.commitInterval = 30  // nothing commits before the flush
        let writer = TrackWriter(path: path, configuration: configuration)
        for i in 0..<100 { writer.record(point("mac:aa:bb:cc:dd:ee:\(i)", 10)) }
        for i in 0..<100 { writer.forget("mac:aa:bb:cc:dd:ee:\(i)") }
        // Forgotten again, now with no writes of its own queued: nothing to wait for.
        writer.forget("mac:aa:bb:cc:dd:ee:0")
        #expect(writer.flush())
        #expect(eventually(timeout: 2) { writer.statistics.cachedDevices == 0 })
        #expect(try count("track_points", in: path) == 100)
        #expect(try count("devices", in: path) == 100)
    }

    @Test func forgottenDevicesWaitingOnALockedDatabaseStayBounded() throws {
        let dir = TempDirectory("forget")
        let path = dir.file("w.db")
        var configuration = eagerConfiguration()
        configuration.capacity = 100
        let writer = TrackWriter(path: path, configuration: configuration)
        #expect(writer.flush())
        // Another connection holds the write lock: nothing commits, forgets pile up.
        let other = try Connection(path: path)
        try other.execute("BEGIN IMMEDIATE")
        for i in 0..<50 { writer.record(point("mac:02:00:00:00:00:\(i)", 10)) }
        for i in 0..<1_000 { writer.forget("mac:02:00:00:00:00:\(i)") }
        // The waiting list is dropped for one clear of the whole cache when it outgrows the queue.
        #expect(writer.statistics.cachedDevices <= 150)
        try other.execute("COMMIT")
        #expect(writer.flush())
        #expect(eventually(timeout: 2) { writer.statistics.cachedDevices == 0 })
        #expect(try count("track_points", in: path) == 50)
        #expect(try count("devices", in: path) == 50)
    }

    /// Every track point as device id, time and position, in order.
    private func trackDump(_ path: String) throws -> String {
        let db = try Connection(path: path, mode: .readOnly)
        return try db.text("""
            SELECT group_concat(row, ';') FROM (SELECT d.id || ',' || p.t || ',' || p.x || ',' || p.room AS row
            FROM track_points p JOIN devices d ON d.key = p.device ORDER BY d.id, p.t)
            """) ?? ""
    }
}
