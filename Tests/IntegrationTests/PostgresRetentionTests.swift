import Foundation
import PostgresStorage
import Storage
import Testing

/// Retention on PostgreSQL drops whole day partitions older than `storage.retention`, trims
/// the one the bound falls in, and leaves what SQLite's retention leaves.
@Suite(.timeLimit(.minutes(4)))
struct PostgresRetentionTests {
    @Test func postgresRetentionDropsOldPartitions() async throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("r")
        let url = pg.url("r", passfile: true)
        let dir = try faultDirectory("pg-retention")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tracks.db").path
        let now = 1_767_225_600.0 + 43_200   // 2026-01-01 12:00 UTC
        let retention = 30 * 86_400.0, bound = now - retention
        // Forty days of points, one every six hours (far apart enough that SQLite's downsampling
        // of older points keeps them all).
        let records = StoreFeed.sample(start: now - 40 * 86_400, step: 21_600, count: 160)
        var configuration = parityConfiguration(retention: retention)
        configuration.clock = { now }
        configuration.maintenanceInterval = 0.2
        let sqlite = TrackWriter(path: file, configuration: configuration)
        let postgres = PostgresStore.writer(url: url, journal: dir.appendingPathComponent("pg.pending").path,
                                            configuration: configuration)
        for writer in [sqlite, postgres] {
            for item in records { item.apply(to: writer) }
            #expect(writer.flush(timeout: 30))
        }
        let reader = try PostgresReader(url: url)
        // The pass runs on the writer thread between commits, every 0.2 s here.
        let pruned = await poll(timeout: 20) {
            (try? reader.partitionDays().count) == 31 && postgres.statistics.pruned > 0 && sqlite.statistics.pruned > 0
        }
        let after = try reader.partitionDays()
        #expect(pruned, "partitions left: \(after), pruned \(postgres.statistics.pruned)")
        #expect(after.first == "track_points_y2025m12d02", "the oldest day kept is the one the bound falls in: \(after)")
        #expect(after.last == "track_points_y2026m01d01")
        sqlite.close()
        postgres.close()
        // 41 days were written; the ten wholly older than the bound went, with the rows SQLite deleted.
        #expect(postgres.statistics.pruned == sqlite.statistics.pruned && postgres.statistics.pruned >= 120,
                "PostgreSQL pruned \(postgres.statistics.pruned), SQLite \(sqlite.statistics.pruned)")

        var kept: [Double] = []
        try reader.history(device: "keys", since: nil, until: nil) { kept.append($0.t) }
        #expect(kept.first.map { $0 >= bound } == true && kept.count == 120, "first \(kept.first ?? 0), bound \(bound), \(kept.count) kept")
        // And the queries print what SQLite's retention left.
        let bin = executable("whereabouts").path
        for query in [["history", "--device", "phone"], ["visits"], ["devices"]] {
            let a = try runCommand(bin, [query[0], "--db", file] + query.dropFirst())
            let b = try runCommand(bin, [query[0], "--db", url] + query.dropFirst())
            #expect(a.status == 0 && a.output == b.output, "\(query):\n\(a)\n---\n\(b)")
        }
    }
}
