import Foundation
import Testing
@testable import Storage

@Suite struct ConnectionTests {
    @Test func opensInWALWithNormalSyncAndForeignKeys() throws {
        let dir = TempDirectory()
        let db = try Connection(path: dir.file("a.db"))
        #expect(try db.text("PRAGMA journal_mode") == "wal")
        #expect(try db.integer("PRAGMA synchronous") == 1)  // NORMAL
        #expect(try db.integer("PRAGMA foreign_keys") == 1)
    }

    @Test func migrationsRunOnceAndAreRecorded() throws {
        let dir = TempDirectory()
        let path = dir.file("a.db")
        let db = try Connection(path: path)
        let first = try Schema.migrator.migrate(db)
        #expect(first.map(\.version) == [1, 2, 3])
        #expect(try Schema.migrator.migrate(db).isEmpty)
        #expect(try db.integer("PRAGMA user_version") == Int64(Schema.migrator.latestVersion))
        // A second process opening the same file finds nothing to do and the same tables.
        let again = try Connection(path: path)
        #expect(try Schema.migrator.migrate(again).isEmpty)
        let tables = try again.integer("""
            SELECT count(*) FROM sqlite_master WHERE type = 'table'
            AND name IN ('nodes', 'devices', 'track_points', 'visits', 'node_health', 'readings', 'store_state')
            """)
        #expect(tables == 7)
    }

    @Test func migrationsStepOnFromARecordedVersion() throws {
        let dir = TempDirectory()
        let db = try Connection(path: dir.file("a.db"))
        let v1 = Migrator([Migration(version: 1, name: "one", sql: "CREATE TABLE a (x)")])
        let v2 = Migrator(v1.migrations + [Migration(version: 2, name: "two", sql: "CREATE TABLE b (y)")])
        try v1.migrate(db)
        #expect(try v2.migrate(db).map(\.version) == [2])
        #expect(try v2.version(of: db) == 2)
        // Code that only knows v1 refuses the newer file rather than guess.
        #expect(throws: DatabaseError.self) { try v1.migrate(db) }
    }

    @Test func aFailingMigrationLeavesTheVersionWhereItWas() throws {
        let dir = TempDirectory()
        let db = try Connection(path: dir.file("a.db"))
        let broken = Migrator([Migration(version: 1, name: "ok", sql: "CREATE TABLE a (x)"),
                               Migration(version: 2, name: "bad", sql: "CREATE TABLE b (y); CREATE TABLE a (x)")])
        #expect(throws: DatabaseError.self) { try broken.migrate(db) }
        #expect(try broken.version(of: db) == 1)
        #expect(try db.integer("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
    }

    @Test func transactionRollsBackOnThrow() throws {
        struct Boom: Error {}
        let dir = TempDirectory()
        let db = try Connection(path: dir.file("a.db"))
        try db.execute("CREATE TABLE t (x INTEGER)")
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.integer("SELECT count(*) FROM t") == 0)
        try db.transaction { try db.execute("INSERT INTO t VALUES (2)") }
        #expect(try db.integer("SELECT sum(x) FROM t") == 2)
    }

    @Test func typedBindingsRoundTrip() throws {
        let dir = TempDirectory()
        let db = try Connection(path: dir.file("a.db"))
        try db.execute("CREATE TABLE t (i, d, s, n)")
        let insert = try db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
        try insert.bind(Int64.max, at: 1)
        try insert.bind(-0.125, at: 2)
        try insert.bind("Küche, \"hall\" 🏠", at: 3)
        try insert.bind(nil as String?, at: 4)
        try insert.run()
        let row = try db.prepare("SELECT i, d, s, n FROM t")
        #expect(try row.step())
        #expect(row.int64(0) == Int64.max)
        #expect(row.double(1) == -0.125)
        #expect(row.string(2) == "Küche, \"hall\" 🏠")
        #expect(row.isNull(3) && row.string(3) == nil && row.optionalDouble(3) == nil)
        #expect(try row.step() == false)
    }

    @Test func errorsCarryCodesMessageAndSQL() throws {
        let dir = TempDirectory()
        let db = try Connection(path: dir.file("a.db"))
        let bad = "SELEC nonsense"
        let syntax = #expect(throws: DatabaseError.self) { try db.prepare(bad) }
        #expect(syntax?.resultCode == 1)  // SQLITE_ERROR
        #expect(syntax?.sql == bad)
        #expect(syntax?.message.contains("syntax error") == true)

        try db.execute("CREATE TABLE u (x UNIQUE)")
        let insert = try db.prepare("INSERT INTO u VALUES (1)")
        try insert.run()
        let unique = #expect(throws: DatabaseError.self) { try insert.run() }
        #expect(unique?.resultCode == 19)  // SQLITE_CONSTRAINT
        #expect(unique?.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(unique?.description.contains("INSERT INTO u") == true)
    }

    @Test func readOnlyConnectionRefusesWritesAndMissingFiles() throws {
        let dir = TempDirectory()
        let path = dir.file("a.db")
        #expect(throws: DatabaseError.self) { try Connection(path: path, mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try Schema.prepare(path: path)
        let reader = try Connection(path: path, mode: .readOnly)
        let refused = #expect(throws: DatabaseError.self) { try reader.execute("DELETE FROM devices") }
        #expect(refused?.kind == .readOnly)
    }
}
