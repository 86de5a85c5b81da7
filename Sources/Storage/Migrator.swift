/// One step of the schema, applied once, in order.
public struct Migration: Sendable {
    /// The schema version after this step; versions run 1, 2, 3, … without gaps.
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Applies ordered migrations and records the version reached in `PRAGMA user_version`.
///
/// Each step runs in its own transaction together with the version bump, so a crash
/// between steps leaves the file at a known version and the next start resumes there.
public struct Migrator: Sendable {
    public let migrations: [Migration]

    public init(_ migrations: [Migration]) { self.migrations = migrations }

    /// The latest version this code knows.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the database up to `latestVersion`; a second call does nothing.
    ///
    /// Refuses a file written by a newer release rather than guess at its schema.
    @discardableResult
    public func migrate(_ db: Connection) throws -> [Migration] {
        let current = try version(of: db)
        guard current <= latestVersion else {
            throw DatabaseError.misuse("\(db.path): schema version \(current) is newer than this release knows (\(latestVersion))")
        }
        let pending = migrations.filter { $0.version > current }
        for migration in pending {
            try db.transaction {
                try db.execute(migration.sql)
                try db.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        return pending
    }

    public func version(of db: Connection) throws(DatabaseError) -> Int {
        Int(try db.integer("PRAGMA user_version") ?? 0)
    }
}
