import Storage

/// The writer thread's connection to PostgreSQL: each batch is one script sent in one round
/// trip (the simple query protocol runs it as one transaction), so a batch is stored whole or
/// not at all, whatever the network does.
///
/// Device rows are upserted by id in the same script and points join them by id, so the store
/// caches no keys: a reconnect (or another aggregator writing the same database) needs no
/// cache reset. A batch written again after a lost commit reply stores nothing twice: points
/// are unique by (device, t), visits by (device, zone, enter), health by (node, t).
final class PostgresBatchStore: BatchStore {
    let db: PostgresConnection
    private let names: [String: String]
    private let retention: RetentionPolicy
    /// Days whose `track_points` partition is known to exist.
    private var partitions: Set<Int>
    private var maintenanceDue: Double?

    init(url: String, names: [String: String], retention: RetentionPolicy) throws(DatabaseError) {
        db = try PostgresConnection(url: url)
        self.names = names
        self.retention = retention
        try PostgresSchema.migrate(db)
        partitions = Set(try Partitions.list(db).map(\.day))
        try applyNames()
    }

    /// The site's names into the rows already there: renamed, or cleared for a device the site
    /// no longer names. Rows already right are not written.
    private func applyNames() throws(DatabaseError) {
        var script = "UPDATE devices SET name = NULL WHERE name IS NOT NULL"
        if !names.isEmpty {
            let ids = names.keys.sorted().map { literal($0) }.joined(separator: ", ")
            let pairs = names.sorted { $0.key < $1.key }.map { "(\(literal($0.key)), \(literal($0.value)))" }
            script += " AND id <> ALL (ARRAY[\(ids)]::text[]);\n"
            script += "UPDATE devices d SET name = n.name FROM (VALUES \(pairs.joined(separator: ", "))) AS n(id, name) "
                + "WHERE d.id = n.id AND d.name IS DISTINCT FROM n.name"
        }
        try db.execute(script)
    }

    func write(_ batch: [Write]) throws {
        var script = BatchScript(names: names)
        for write in batch { script.add(write) }
        let days = script.days.subtracting(partitions)
        try db.execute(script.sql(creating: days.sorted()))
        partitions.formUnion(days)
    }

    // No cached device state to drop.
    func evict(_ ids: [String]) {}
    func evictAll() {}
    var cachedDevices: Int { 0 }

    var maintenanceIdle: Bool { maintenanceDue == nil }
    func beginMaintenance(now: Double) { maintenanceDue = now }
    func cancelMaintenance() { maintenanceDue = nil }

    /// The whole pass in one step: drop the partitions wholly older than the retention (one
    /// catalogue change each, no row deleted one by one), delete the older rows of the one
    /// partition the bound falls in, and old closed visits and health samples.
    func maintenanceStep() throws -> Int {
        guard let now = maintenanceDue else { return 0 }
        maintenanceDue = nil
        var removed = 0
        if let keep = retention.trackPoints {
            let dropped = try Partitions.drop(db, before: now - keep)
            partitions.subtract(dropped.days)
            removed += dropped.rows
            removed += try count(db.execute("WITH d AS (DELETE FROM track_points WHERE t < \(literal(now - keep)) RETURNING 1) SELECT count(*) FROM d"))
        }
        if let keep = retention.visits {
            removed += try count(db.execute("""
                WITH d AS (DELETE FROM visits WHERE exit_t IS NOT NULL AND exit_t < \(literal(now - keep)) RETURNING 1)
                SELECT count(*) FROM d
                """))
        }
        if let keep = retention.nodeHealth {
            removed += try count(db.execute("""
                WITH d AS (DELETE FROM node_health WHERE t < \(literal(now - keep)) RETURNING 1) SELECT count(*) FROM d
                """))
        }
        return removed
    }

    private func count(_ rows: Rows) -> Int { Int(rows.int64(0, 0) ?? 0) }
}

/// One batch as SQL: the partitions it needs, one upsert of its devices (sorted by id, so two
/// writers on one database never lock rows in opposite orders), one INSERT of its points, then
/// its visits and health samples in queue order.
struct BatchScript {
    let names: [String: String]
    /// Each device's earliest and latest time in the batch.
    private var devices: [String: (first: Double, last: Double)] = [:]
    private var points: [String] = []
    private var statements: [String] = []
    private(set) var days: Set<Int> = []

    init(names: [String: String]) { self.names = names }

    mutating func add(_ write: Write) {
        switch write {
        case .point(let p), .trackedPoint(_, let p):
            saw(p.device, at: p.t)
            days.insert(Partitions.day(of: p.t))
            points.append("(\(literal(p.device)), \(literal(p.t)), \(literal(p.x)), \(literal(p.y)), \(literal(p.z)), "
                          + "\(literal(p.floor)), \(literal(p.room)), \(literal(p.confidence)), \(p.backfilled))")
        case .visitOpened(let v):
            saw(v.device, at: v.enter)
            statements.append("""
                INSERT INTO visits(device, zone, floor, enter_t, backfilled) SELECT key, \(literal(v.zone)), \(literal(v.floor)), \
                \(literal(v.enter)), \(v.backfilled) FROM devices WHERE id = \(literal(v.device)) ON CONFLICT DO NOTHING
                """)
        case .visitClosed(let v):
            saw(v.device, at: v.enter)
            let exit = literal(v.exit ?? v.enter), enter = literal(v.enter)
            statements.append("""
                INSERT INTO visits(device, zone, floor, enter_t, exit_t, dwell, backfilled) SELECT key, \(literal(v.zone)), \
                \(literal(v.floor)), \(enter), \(exit), \(exit) - \(enter), \(v.backfilled) FROM devices WHERE id = \(literal(v.device))
                ON CONFLICT (device, zone, enter_t) DO UPDATE SET exit_t = excluded.exit_t, dwell = excluded.dwell,
                  backfilled = visits.backfilled OR excluded.backfilled
                WHERE visits.exit_t IS NULL
                """)
        case .health(let h):
            let node = literal(h.node), t = literal(h.t)
            statements.append("""
                INSERT INTO nodes(name, first_seen, last_seen) VALUES (\(node), \(t), \(t))
                ON CONFLICT (name) DO UPDATE SET last_seen = greatest(nodes.last_seen, excluded.last_seen)
                """)
            statements.append("""
                INSERT INTO node_health(node, t, adverts, dropped, buffered, online) SELECT key, \(t), \
                \(h.adverts.map(String.init) ?? "NULL"), \(h.dropped.map(String.init) ?? "NULL"), \
                \(h.buffered.map(String.init) ?? "NULL"), \(h.online) FROM nodes WHERE name = \(node) ON CONFLICT DO NOTHING
                """)
        }
    }

    private mutating func saw(_ device: String, at t: Double) {
        if let known = devices[device] {
            devices[device] = (min(known.first, t), max(known.last, t))
        } else {
            devices[device] = (t, t)
        }
    }

    /// The script; `creating` the days whose partition is to be made first.
    func sql(creating newDays: [Int]) -> String {
        // Shards writing their first points of a day at once would race on CREATE TABLE IF NOT
        // EXISTS (one fails with "already exists", and its batch is retried): the partitions are
        // made under a lock held to the end of the batch's transaction.
        var parts = newDays.isEmpty ? [] : ["SELECT pg_advisory_xact_lock(\(Partitions.lock))"]
        parts += newDays.map(Partitions.create)
        if !devices.isEmpty {
            let rows = devices.sorted { $0.key < $1.key }.map { id, seen in
                "(\(literal(id)), \(literal(names[id])), \(literal(seen.first)), \(literal(seen.last)))"
            }
            // As SQLite's writer: last_seen moves on at most once a minute (readers take the
            // later of it and the last track point), so a busy site does not rewrite every
            // device row in every batch.
            parts.append("""
                INSERT INTO devices(id, name, first_seen, last_seen) VALUES \(rows.joined(separator: ",\n"))
                ON CONFLICT (id) DO UPDATE SET name = coalesce(excluded.name, devices.name),
                  first_seen = least(devices.first_seen, excluded.first_seen),
                  last_seen = greatest(devices.last_seen, excluded.last_seen)
                WHERE excluded.first_seen < devices.first_seen OR excluded.last_seen >= devices.last_seen + 60
                  OR (excluded.name IS NOT NULL AND excluded.name IS DISTINCT FROM devices.name)
                """)
        }
        if !points.isEmpty {
            parts.append("""
                INSERT INTO track_points(device, t, x, y, z, floor, room, confidence, backfilled)
                SELECT d.key, v.t, v.x, v.y, v.z, v.floor, v.room, v.confidence, v.backfilled
                FROM (VALUES \(points.joined(separator: ",\n"))) AS v(id, t, x, y, z, floor, room, confidence, backfilled)
                JOIN devices d ON d.id = v.id ON CONFLICT DO NOTHING
                """)
        }
        parts += statements
        return parts.joined(separator: ";\n")
    }
}
