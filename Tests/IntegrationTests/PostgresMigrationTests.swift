import Foundation
import PostgresStorage
import Storage
import Testing

/// The schema on a real PostgreSQL: migrations applied once and recorded, a newer schema
/// refused, credentials only from a password file.
@Suite(.timeLimit(.minutes(3)))
struct PostgresMigrationTests {
    @Test func migrationsAreAppliedOnceAndRecorded() throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("m")
        let url = pg.url("m", passfile: true)
        let all = PostgresSchema.migrations.map(\.version)
        #expect(try PostgresStore.prepare(url: url) == all)
        #expect(try PostgresStore.prepare(url: url) == [], "a second start applies nothing")
        let reader = try PostgresReader(url: url)
        let recorded = try reader.migrations()
        #expect(recorded.map(\.version) == all)
        #expect(recorded.first?.name == PostgresSchema.migrations.first?.name)
        #expect(try pg.psql("m", "SELECT count(*) FROM schema_migrations") == "\(all.count)\n")
        #expect(try pg.psql("m", "SELECT count(*) FROM information_schema.columns WHERE column_name = 'backfilled' "
                            + "AND table_name IN ('track_points', 'visits')") == "2\n", "backfilled marks (version 2)")
        #expect(try pg.psql("m", "SELECT partstrat FROM pg_partitioned_table WHERE partrelid = 'track_points'::regclass") == "r\n",
                "track_points is range-partitioned")

        // A database a newer release migrated is refused, not guessed at.
        try pg.psql("m", "INSERT INTO schema_migrations(version, name) VALUES (99, 'from the future')")
        #expect { try PostgresStore.prepare(url: url) } throws: { "\($0)".contains("schema version 99 is newer") }
        #expect { try PostgresReader(url: url) } throws: { "\($0)".contains("newer than this release knows") }
    }

    @Test func theURLCarriesNoPasswordAndTheFileGivesIt() throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("c")
        // A password in the URL is refused before anything connects.
        let inURL = "postgresql://\(PostgresCluster.role):\(pg.password)@127.0.0.1:\(pg.port)/c"
        #expect { try PostgresStore.prepare(url: inURL) } throws: {
            "\($0)".contains("carries a password") && !"\($0)".contains(pg.password)
        }
        #expect { try PostgresStore.prepare(url: pg.url("c") + "&password=\(pg.password)") } throws: {
            "\($0)".contains("carries a password")
        }
        // Without the file the server asks for the password libpq does not have.
        let bare = pg.url("c") + "&passfile=/nonexistent"
        #expect { try PostgresStore.prepare(url: bare) } throws: { "\($0)".contains("password") }
        #expect(try PostgresStore.prepare(url: pg.url("c", passfile: true)) == PostgresSchema.migrations.map(\.version))
    }

    @Test func oneWriterPerDatabase() throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("l")
        let url = pg.url("l", passfile: true)
        var holder: PostgresWriterLock? = try PostgresWriterLock(url: url)
        #expect { try PostgresWriterLock(url: url) } throws: { "\($0)".contains("another aggregator writes to this database") }
        #expect(holder != nil)
        holder = nil
        // Released with its session: the next writer takes it.
        #expect(throws: Never.self) { _ = try PostgresWriterLock(url: url) }
    }
}

/// Self-calibration in the shared PostgreSQL (`PostgresCalibrationStore`): one set per shard,
/// each save replacing only its own shard's, and a save after a server restart reconnecting.
@Suite(.timeLimit(.minutes(3)))
struct PostgresCalibrationStoreTests {
    @Test func eachShardKeepsItsOwnLessonsAcrossAServerRestart() throws {
        let pg = try PostgresCluster()
        try pg.createDatabase("cal")
        let url = pg.url("cal", passfile: true)
        try PostgresStore.prepare(url: url)
        let zero = try PostgresCalibrationStore(url: url, shard: "0/2"), one = try PostgresCalibrationStore(url: url, shard: "1/2")
        #expect(try zero.load().isEmpty)
        let lessons = [CalibrationRecord(kind: .node, name: "hall", value: -1.25, evidence: 300),
                       CalibrationRecord(kind: .node, name: "kitchen", value: 1.25, evidence: 120.5),
                       CalibrationRecord(kind: .floor, name: "ground", value: 2.31, evidence: 4000),
                       CalibrationRecord(kind: .device, name: "iBeacon:it's-1-2", value: 0.4),
                       CalibrationRecord(kind: .counter, name: "updates", value: 812),
                       CalibrationRecord(kind: .node, name: "garage", value: .nan, evidence: 1)]
        try zero.save(lessons, at: 1_700_000_000)
        try one.save([CalibrationRecord(kind: .node, name: "hall", value: 3, evidence: 9)], at: 1_700_000_001)
        // Read back bit for bit, in (kind, name) order, without the value that is not a number.
        let sorted = lessons.filter { $0.value.isFinite }.sorted { ($0.kind.rawValue, $0.name) < ($1.kind.rawValue, $1.name) }
        #expect(try zero.load() == sorted)
        #expect(try one.load() == [CalibrationRecord(kind: .node, name: "hall", value: 3, evidence: 9)])

        // PostgreSQL restarts between two saves: the next save connects again, and replaces
        // shard 0's set only.
        try pg.stop(mode: "immediate")
        #expect(throws: DatabaseError.self) { try zero.save(lessons, at: 1_700_000_060) }
        try pg.start()
        try zero.save(Array(lessons.prefix(2)), at: 1_700_000_120)
        #expect(try zero.load() == Array(lessons.prefix(2)))
        #expect(try one.load().count == 1)
        #expect(try pg.psql("cal", "SELECT count(*) FROM self_calibration WHERE saved = 1700000120") == "2\n")
        // A new store of the same shard (a standby taking over) reads what the last save left.
        #expect(try PostgresCalibrationStore(url: url, shard: "0/2").load() == Array(lessons.prefix(2)))
    }
}
