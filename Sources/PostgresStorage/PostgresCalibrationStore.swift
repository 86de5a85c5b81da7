import Storage

/// The learned self-calibration of one shard in the shared PostgreSQL (`self_calibration`,
/// keyed by shard), on a connection of its own: a standby that takes the shard over starts
/// where the dead active's last save left it.
///
/// Per shard, not one set for the site: each shard learns from its own devices' traffic and
/// saves its whole state at once, so shards sharing rows would overwrite each other's lessons
/// every minute. A lost connection (a PostgreSQL restart) is opened again at the next call.
public final class PostgresCalibrationStore: CalibrationStoring, @unchecked Sendable {
    public let url: String
    /// `I/N`, as `--shard` spells it (`0/1` for an aggregator that is not sharded).
    public let shard: String
    private var db: PostgresConnection?

    /// Checks the URL; connects at the first call (the store is migrated: `PostgresStore.prepare`).
    public init(url: String, shard: String) throws(DatabaseError) {
        try PostgresURL.check(url)
        self.url = url
        self.shard = shard
    }

    public var location: String { "\(url) (shard \(shard))" }

    public func load() throws(DatabaseError) -> [CalibrationRecord] {
        let rows = try run { db throws(DatabaseError) in
            try db.query("SELECT kind, name, value, evidence FROM self_calibration WHERE shard = $1 ORDER BY kind, name", [shard])
        }
        var records: [CalibrationRecord] = []
        for r in 0..<rows.count {
            guard let kind = rows.string(r, 0).flatMap(CalibrationRecord.Kind.init(rawValue:)), let name = rows.string(r, 1),
                  let value = rows.double(r, 2), let evidence = rows.double(r, 3) else { continue }
            records.append(CalibrationRecord(kind: kind, name: name, value: value, evidence: evidence))
        }
        return records
    }

    public func save(_ records: [CalibrationRecord], at t: Double) throws {
        // One round trip, one transaction (several statements in one simple query).
        var sql = "DELETE FROM self_calibration WHERE shard = \(literal(shard));"
        let kept = records.filter { $0.value.isFinite && $0.evidence.isFinite }
        if !kept.isEmpty {
            sql += "INSERT INTO self_calibration (shard, kind, name, value, evidence, saved) VALUES "
            sql += kept.map { r in
                "(\(literal(shard)), \(literal(r.kind.rawValue)), \(literal(r.name)), \(literal(r.value)), \(literal(r.evidence)), \(literal(t)))"
            }.joined(separator: ", ")
            // Two records of one kind and name (never made by the engine): the last wins, as in SQLite.
            sql += " ON CONFLICT (shard, kind, name) DO UPDATE SET value = excluded.value, evidence = excluded.evidence, saved = excluded.saved"
        }
        try run { db throws(DatabaseError) in try db.execute(sql) }
    }

    /// `body` on the connection, opened if needed. A kept connection that fails (PostgreSQL
    /// restarted since the last save, a minute ago) is dropped and `body` tried once more on a
    /// new one: both statements are whole transactions, so a second try repeats nothing.
    @discardableResult
    private func run(_ body: (PostgresConnection) throws(DatabaseError) -> Rows) throws(DatabaseError) -> Rows {
        if let db {
            if let rows = try? body(db) { return rows }
            self.db = nil
        }
        let connection = try PostgresConnection(url: url)
        db = connection
        do {
            return try body(connection)
        } catch {
            db = nil
            throw error
        }
    }
}
