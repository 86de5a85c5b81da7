import Storage

/// Read-only queries over a PostgreSQL store, the same rows in the same order as SQLite's
/// `TrackReader` (text sorted byte by byte, floats read back bit for bit).
public final class PostgresReader: TrackQueries {
    let db: PostgresConnection

    /// Connects to `url`. Throws when the server refuses, or the database has no Whereabouts
    /// schema, or a newer one.
    public init(url: String) throws {
        db = try PostgresConnection(url: url)
        let version = try PostgresSchema.version(db)
        guard version >= 1 else { throw DatabaseError(postgres: "\(url): not a Whereabouts database (no schema)", sqlState: "") }
        guard version <= PostgresSchema.latestVersion else {
            throw DatabaseError(postgres: "\(url): schema version \(version) is newer than this release knows", sqlState: "")
        }
        // One snapshot per query is enough; never write through a reader.
        try db.execute("SET default_transaction_read_only = on")
    }

    public func knows(device id: String) throws -> Bool {
        try db.query("SELECT 1 FROM devices WHERE id = $1", [id]).count == 1
    }

    public func history(device id: String, since: Double? = nil, until: Double? = nil,
                        _ body: (TrackPoint) throws -> Void) throws {
        let rows = try db.query("""
            SELECT p.t, p.x, p.y, p.z, p.floor, p.room, p.confidence, p.backfilled::int FROM track_points p
            JOIN devices d ON d.key = p.device WHERE d.id = $1 AND p.t >= $2 AND p.t <= $3 ORDER BY p.t
            """, [id, "\(since ?? -Double.greatestFiniteMagnitude)", "\(until ?? Double.greatestFiniteMagnitude)"])
        for r in 0..<rows.count {
            try body(TrackPoint(device: id, t: rows.double(r, 0) ?? 0, x: rows.double(r, 1) ?? 0, y: rows.double(r, 2) ?? 0,
                                z: rows.double(r, 3) ?? 0, floor: rows.string(r, 4), room: rows.string(r, 5),
                                confidence: rows.double(r, 6) ?? 0, backfilled: rows.string(r, 7) == "1"))
        }
    }

    public func visits(zone: String? = nil, device: String? = nil, since: Double? = nil, until: Double? = nil) throws -> [Visit] {
        let rows = try db.query("""
            SELECT d.id, v.zone, v.floor, v.enter_t, v.exit_t, v.backfilled::int FROM visits v JOIN devices d ON d.key = v.device
            WHERE ($1::text IS NULL OR v.zone = $1) AND ($2::text IS NULL OR d.id = $2)
              AND ($3::float8 IS NULL OR v.exit_t IS NULL OR v.exit_t >= $3) AND ($4::float8 IS NULL OR v.enter_t <= $4)
            ORDER BY v.enter_t, d.id, v.zone
            """, [zone, device, since.map { "\($0)" }, until.map { "\($0)" }])
        return (0..<rows.count).map { r in
            Visit(device: rows.string(r, 0) ?? "", zone: rows.string(r, 1) ?? "", floor: rows.string(r, 2),
                  enter: rows.double(r, 3) ?? 0, exit: rows.double(r, 4), backfilled: rows.string(r, 5) == "1")
        }
    }

    public func occupancy(at t: Double) throws -> [ZoneOccupancy] {
        let rows = try db.query("""
            SELECT v.zone, d.id FROM visits v JOIN devices d ON d.key = v.device
            WHERE v.enter_t <= $1 AND (v.exit_t IS NULL OR v.exit_t > $1) ORDER BY v.zone, d.id
            """, ["\(t)"])
        var zones: [ZoneOccupancy] = []
        for r in 0..<rows.count {
            let zone = rows.string(r, 0) ?? "", device = rows.string(r, 1) ?? ""
            if zones.last?.zone == zone { zones[zones.count - 1].devices.append(device) } else {
                zones.append(ZoneOccupancy(zone: zone, devices: [device]))
            }
        }
        return zones
    }

    public func devices() throws -> [DeviceSummary] {
        let rows = try db.execute("""
            SELECT d.id, d.name, d.first_seen, greatest(d.last_seen, coalesce(last.t, d.last_seen)), last.floor, last.room,
                   (SELECT count(*) FROM track_points p WHERE p.device = d.key)
            FROM devices d LEFT JOIN LATERAL
                (SELECT t, floor, room FROM track_points p WHERE p.device = d.key ORDER BY t DESC LIMIT 1) last ON true
            ORDER BY d.id
            """)
        return (0..<rows.count).map { r in
            DeviceSummary(id: rows.string(r, 0) ?? "", name: rows.string(r, 1), firstSeen: rows.double(r, 2) ?? 0,
                          lastSeen: rows.double(r, 3) ?? 0, lastFloor: rows.string(r, 4), lastRoom: rows.string(r, 5),
                          trackPoints: rows.int64(r, 6) ?? 0)
        }
    }

    public func lastTrackPoint(device id: String) throws -> Double? {
        try db.query("SELECT max(p.t) FROM track_points p JOIN devices d ON d.key = p.device WHERE d.id = $1", [id]).double(0, 0)
    }

    public func openVisits() throws -> [OpenVisit] {
        let rows = try db.execute("""
            SELECT d.id, v.zone, v.floor, v.enter_t, (SELECT max(t) FROM track_points p WHERE p.device = v.device)
            FROM visits v JOIN devices d ON d.key = v.device WHERE v.exit_t IS NULL ORDER BY v.enter_t, d.id, v.zone
            """)
        return (0..<rows.count).map { r in
            OpenVisit(visit: Visit(device: rows.string(r, 0) ?? "", zone: rows.string(r, 1) ?? "", floor: rows.string(r, 2),
                                   enter: rows.double(r, 3) ?? 0),
                      lastTrackPoint: rows.double(r, 4))
        }
    }

    /// The days of the `track_points` partitions there, oldest first (for operators and tests).
    public func partitionDays() throws -> [String] { try Partitions.list(db).map(\.name) }

    /// The schema migrations recorded: (version, name), oldest first.
    public func migrations() throws -> [(version: Int, name: String)] {
        let rows = try db.execute("SELECT version, name FROM schema_migrations ORDER BY version")
        return (0..<rows.count).map { (Int(rows.int64($0, 0) ?? 0), rows.string($0, 1) ?? "") }
    }
}
