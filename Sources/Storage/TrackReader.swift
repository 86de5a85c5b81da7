/// Read-only queries over a track store, safe beside a running aggregator: WAL lets this
/// connection read a consistent snapshot while the writer commits.
public final class TrackReader: TrackQueries {
    let db: Connection

    /// Opens `path` read-only. Throws when the file is missing, not SQLite, or not ours.
    public init(path: String) throws {
        db = try Connection(path: path, mode: .readOnly)
        let version = try Schema.migrator.version(of: db)
        guard version >= 1 else { throw DatabaseError.misuse("\(path): not a Whereabouts database (no schema)") }
        guard version <= Schema.migrator.latestVersion else {
            throw DatabaseError.misuse("\(path): schema version \(version) is newer than this release knows")
        }
    }

    /// Whether the database knows a device of this id.
    public func knows(device id: String) throws -> Bool { try deviceKey(id) != nil }

    /// A device's track points with `since <= t <= until`, oldest first, handed over one by one
    /// so a long history streams instead of filling memory.
    public func history(device id: String, since: Double? = nil, until: Double? = nil,
                        _ body: (TrackPoint) throws -> Void) throws {
        guard let key = try deviceKey(id) else { return }
        let query = try db.prepare("""
            SELECT t, x, y, z, floor, room, confidence, backfilled FROM track_points
            WHERE device = ?1 AND t >= ?2 AND t <= ?3 ORDER BY t
            """)
        try query.bind(key, at: 1)
        try query.bind(since ?? -Double.greatestFiniteMagnitude, at: 2)
        try query.bind(until ?? Double.greatestFiniteMagnitude, at: 3)
        while try query.step() {
            try body(TrackPoint(device: id, t: query.double(0), x: query.double(1), y: query.double(2),
                                z: query.double(3), floor: query.string(4), room: query.string(5),
                                confidence: query.double(6), backfilled: query.int64(7) != 0))
        }
    }

    /// Visits, by enter time; `since` keeps those still going at or after it, `until` those
    /// entered by then.
    public func visits(zone: String? = nil, device: String? = nil,
                       since: Double? = nil, until: Double? = nil) throws -> [Visit] {
        var conditions: [String] = []
        if zone != nil { conditions.append("v.zone = ?1") }
        if device != nil { conditions.append("d.id = ?2") }
        if since != nil { conditions.append("(v.exit_t IS NULL OR v.exit_t >= ?3)") }
        if until != nil { conditions.append("v.enter_t <= ?4") }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let query = try db.prepare("""
            SELECT d.id, v.zone, v.floor, v.enter_t, v.exit_t, v.backfilled FROM visits v JOIN devices d ON d.key = v.device
            \(filter) ORDER BY v.enter_t, d.id, v.zone
            """)
        if let zone { try query.bind(zone, at: 1) }
        if let device { try query.bind(device, at: 2) }
        if let since { try query.bind(since, at: 3) }
        if let until { try query.bind(until, at: 4) }
        return try visitRows(query)
    }

    /// Who was in each zone at `t`: visits entered by then and not yet exited. Zones nobody
    /// was in are absent (the database keeps visits, not the site's zone list).
    public func occupancy(at t: Double) throws -> [ZoneOccupancy] {
        let query = try db.prepare("""
            SELECT v.zone, d.id FROM visits v JOIN devices d ON d.key = v.device
            WHERE v.enter_t <= ?1 AND (v.exit_t IS NULL OR v.exit_t > ?1) ORDER BY v.zone, d.id
            """)
        try query.bind(t, at: 1)
        var zones: [ZoneOccupancy] = []
        while try query.step() {
            let zone = query.string(0) ?? "", device = query.string(1) ?? ""
            if zones.last?.zone == zone { zones[zones.count - 1].devices.append(device) } else {
                zones.append(ZoneOccupancy(zone: zone, devices: [device]))
            }
        }
        return zones
    }

    /// Every device, with its last floor and room and how many track points it has. `lastSeen`
    /// is the later of the device row's and its last track point (the writer moves the row's
    /// on only once a minute).
    public func devices() throws -> [DeviceSummary] {
        let query = try db.prepare("""
            SELECT d.id, d.name, d.first_seen, max(d.last_seen, coalesce(last.t, d.last_seen)), last.floor, last.room,
                   (SELECT count(*) FROM track_points p WHERE p.device = d.key)
            FROM devices d LEFT JOIN track_points last ON last.rowid =
                (SELECT rowid FROM track_points p WHERE p.device = d.key ORDER BY t DESC LIMIT 1)
            ORDER BY d.id
            """)
        var devices: [DeviceSummary] = []
        while try query.step() {
            devices.append(DeviceSummary(id: query.string(0) ?? "", name: query.string(1),
                                         firstSeen: query.double(2), lastSeen: query.double(3),
                                         lastFloor: query.string(4), lastRoom: query.string(5),
                                         trackPoints: query.int64(6)))
        }
        return devices
    }

    /// The time of the device's last track point, nil when it has none.
    public func lastTrackPoint(device id: String) throws -> Double? {
        guard let key = try deviceKey(id) else { return nil }
        let query = try db.prepare("SELECT max(t) FROM track_points WHERE device = ?1")
        try query.bind(key, at: 1)
        guard try query.step() else { return nil }
        return query.optionalDouble(0)
    }

    /// Visits without an exit, each with its device's last track point time (crash recovery).
    public func openVisits() throws -> [OpenVisit] {
        let query = try db.prepare("""
            SELECT d.id, v.zone, v.floor, v.enter_t, v.exit_t,
                   (SELECT max(t) FROM track_points p WHERE p.device = v.device)
            FROM visits v JOIN devices d ON d.key = v.device WHERE v.exit_t IS NULL ORDER BY v.enter_t
            """)
        var open: [OpenVisit] = []
        while try query.step() {
            let visit = Visit(device: query.string(0) ?? "", zone: query.string(1) ?? "", floor: query.string(2),
                              enter: query.double(3))
            open.append(OpenVisit(visit: visit, lastTrackPoint: query.optionalDouble(5)))
        }
        return open
    }

    /// `PRAGMA integrity_check`'s verdict: `"ok"` or the first problem.
    public func integrityCheck() throws -> String { try db.text("PRAGMA integrity_check") ?? "" }

    private func visitRows(_ query: Statement) throws -> [Visit] {
        var visits: [Visit] = []
        while try query.step() {
            visits.append(Visit(device: query.string(0) ?? "", zone: query.string(1) ?? "", floor: query.string(2),
                                enter: query.double(3), exit: query.optionalDouble(4), backfilled: query.int64(5) != 0))
        }
        return visits
    }

    private func deviceKey(_ id: String) throws -> Int64? {
        let query = try db.prepare("SELECT key FROM devices WHERE id = ?1")
        try query.bind(id, at: 1)
        return try query.step() ? query.int64(0) : nil
    }
}
