import Foundation
import PostgresStorage
import Storage
import Testing

/// One writer's input, given alike to an SQLite and a PostgreSQL writer.
enum StoreFeed {
    case point(TrackPoint), open(Visit), close(Visit, Double)

    func apply(to writer: TrackWriter) {
        switch self {
        case .point(let p): writer.record(p)
        case .open(let v): writer.openVisit(v)
        case .close(let v, let exit): writer.closeVisit(v, at: exit)
        }
    }

    /// Three days of three devices (one with quotes and non-ASCII in its id, one with no floor),
    /// in time order, with closed and open visits: points every `step` seconds from `start`.
    static func sample(start: Double, step: Double = 7_200, count: Int = 40) -> [StoreFeed] {
        let devices = ["keys", "tag 'ü' ß", "phone"]
        var feed: [StoreFeed] = []
        for i in 0..<count {
            let t = start + Double(i) * step
            for (k, id) in devices.enumerated() {
                // Coordinates with digits a decimal round trip would lose, to catch any.
                let x = 0.1 * Double(i) + Double(k) / 3, y = 2.0 / 7 + Double(i % 5)
                let floor: String? = k == 2 ? nil : "ground"
                let room: String? = i % 3 == 0 ? nil : (x < 3 ? "west" : "east")
                feed.append(.point(TrackPoint(device: id, t: t + Double(k) * 0.125, x: x, y: y, z: 1.0 / 3,
                                              floor: floor, room: room, confidence: 0.9 - Double(i % 4) / 10,
                                              backfilled: i % 7 == 3)))
            }
            if i % 10 == 1 { feed.append(.open(Visit(device: "keys", zone: "west", floor: "ground", enter: t + 1))) }
            if i % 10 == 6 { feed.append(.close(Visit(device: "keys", zone: "west", floor: "ground", enter: t - 5 * step + 1), t + 0.5)) }
            if i == 20 { feed.append(.open(Visit(device: "tag 'ü' ß", zone: "east", floor: nil, enter: t + 0.25, backfilled: true))) }
        }
        return feed
    }
}

/// Writes `feed` through `writer`, waits for the commit and stops the writer.
func feed(_ feed: [StoreFeed], to writer: TrackWriter) throws {
    for item in feed { item.apply(to: writer) }
    guard writer.flush(timeout: 30) else { throw HarnessError("\(writer.path): not committed: \(writer.statistics)") }
    writer.close()
}

/// The configuration both stores are written with in these tests.
func parityConfiguration(retention: Double? = nil) -> WriterConfiguration {
    var c = WriterConfiguration()
    c.deviceNames = ["keys": "Car keys", "phone": "Alex's phone"]
    c.retention = RetentionPolicy(retention: retention)
    return c
}

/// `whereabouts history|visits|occupancy|devices` print the same bytes from an SQLite file and
/// from PostgreSQL fed the same records.
@Suite(.timeLimit(.minutes(4)))
struct PostgresQueryParityTests {
    @Test func theQueryCommandsPrintTheSameFromBothStores() throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("parity")
        let url = pg.url("parity", passfile: true)
        let dir = try faultDirectory("pg-parity")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tracks.db").path
        let start = 1_764_547_200.0 - 3_600   // 2025-11-30 23:00 UTC: the points span three days
        let records = StoreFeed.sample(start: start)
        try feed(records, to: TrackWriter(path: file, configuration: parityConfiguration()))
        try feed(records, to: PostgresStore.writer(url: url, journal: dir.appendingPathComponent("pg.pending").path,
                                                   configuration: parityConfiguration()))
        #expect(try PostgresReader(url: url).partitionDays().count == 5, "one partition per UTC day the points fall in")
        // The backfilled marks (schema version 2) read back the same from both.
        let sqliteVisits = try TrackReader(path: file).visits(), pgVisits = try PostgresReader(url: url).visits()
        #expect(sqliteVisits == pgVisits && sqliteVisits.filter(\.backfilled).count == 1, "\(sqliteVisits) vs \(pgVisits)")
        var sqlitePoints: [TrackPoint] = [], pgPoints: [TrackPoint] = []
        try TrackReader(path: file).history(device: "keys") { sqlitePoints.append($0) }
        try PostgresReader(url: url).history(device: "keys") { pgPoints.append($0) }
        #expect(sqlitePoints == pgPoints && sqlitePoints.filter(\.backfilled).count == 6, "\(sqlitePoints.filter(\.backfilled).count)")

        let mid = "\(Int(start) + 20 * 7_200)"
        let queries: [[String]] = [
            ["devices"], ["devices", "--format", "json"],
            ["history", "--device", "keys"], ["history", "--device", "tag 'ü' ß", "--format", "json"],
            ["history", "--device", "phone", "--format", "geojson", "--since", mid],
            ["history", "--device", "keys", "--since", "\(Int(start) + 3_600)", "--until", mid],
            ["visits"], ["visits", "--format", "json"], ["visits", "--zone", "west", "--since", mid],
            ["visits", "--device", "tag 'ü' ß"],
            ["occupancy", "--at", "\(Int(start) + 20 * 7_200 + 3_600)"], ["occupancy", "--at", "\(Int(start) + 39 * 7_200)", "--format", "json"],
        ]
        let bin = executable("whereabouts").path
        for query in queries {
            let sqlite = try runCommand(bin, [query[0], "--db", file] + query.dropFirst())
            let postgres = try runCommand(bin, [query[0], "--db", url] + query.dropFirst())
            #expect(sqlite.status == 0 && postgres.status == 0, "\(query): \(sqlite) / \(postgres)")
            #expect(sqlite.output.split(separator: "\n").count >= 2, "\(query) printed next to nothing: \(sqlite)")
            #expect(Array(sqlite.output.utf8) == Array(postgres.output.utf8),
                    "\(query) differs:\n--- SQLite\n\(sqlite.output)\n--- PostgreSQL\n\(postgres.output)")
        }
        // The same rows the SQLite file holds, counted: 40 points of each device, 7 visits.
        let history = try runCommand(bin, ["history", "--db", url, "--device", "phone"])
        #expect(history.output.split(separator: "\n").count == 41)
        let unknown = try runCommand(bin, ["history", "--db", url, "--device", "nobody"])
        #expect(unknown.status != 0 && unknown.errors.contains("no device 'nobody'"), "\(unknown)")
    }

    /// A server that is not there, and a URL with a password, are clear errors from the CLI.
    @Test func theCommandsSayWhyTheyCannotRead() throws {
        let bin = executable("whereabouts").path
        let port = try freePort()
        let down = try runCommand(bin, ["devices", "--db", "postgresql://127.0.0.1:\(port)/x?user=u"])
        #expect(down.status != 0 && down.errors.contains("127.0.0.1:\(port)") && down.errors.contains("PostgreSQL"), "\(down)")
        let secret = try runCommand(bin, ["visits", "--db", "postgresql://u:hunter2@127.0.0.1:\(port)/x"])
        #expect(secret.status != 0 && secret.errors.contains("carries a password") && !secret.errors.contains("hunter2"), "\(secret)")
    }
}
