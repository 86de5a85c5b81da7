import Synchronization

/// Applies batches of queued writes to one connection, each batch one transaction.
///
/// Owned by the writer thread. Device keys are cached so a track point costs one
/// INSERT; the cache is dropped when a transaction rolls back, since its new keys went too,
/// and a forgotten device's entries are dropped (`evict`) so passers-by do not pile up.
final class BatchWriter: BatchStore {
    let db: Connection
    /// Retention and downsampling, a small step at a time between batches.
    private var maintenance: Maintenance
    /// Up to `pointsPerInsert` points in one INSERT: a statement's own cost (cursors opened
    /// and closed on the table and both indexes, the foreign-key check set up, halt and reset)
    /// is paid once per chunk instead of once per point, most of an insert's instructions.
    /// `insertPoints[k]` inserts 2^k rows: a chunk of any size is at most six statements.
    private let insertPoints: [Statement]
    static let pointsPerInsert = 32
    /// Points waiting for a full chunk, in queue order. Other writes (visits, devices) do not
    /// wait for them: they are other tables, and the whole batch is one transaction, so no
    /// reader ever sees one without the other.
    private var chunk: [(point: TrackPoint, device: Int64)] = []
    private let openVisit: Statement
    private let closeVisit: Statement
    /// A point of a backfill pass (rare: outages), one row at a time, marked.
    private let insertBackfilledPoint: Statement
    /// A device's row: `insertDevice` for a new one (a device's first write, nearly always),
    /// `updateDevice` when it is there already. One `INSERT … ON CONFLICT DO UPDATE … RETURNING`
    /// did both, and cost twice a plain insert (RETURNING keeps its rows in a temporary table):
    /// at 50,000 devices a tenth of the writer's instructions went to it.
    private let insertDevice: Statement
    private let updateDevice: Statement
    private let touchDevice: Statement
    private let upsertNode: Statement
    private let insertHealth: Statement
    private let begin: Statement
    private let commit: Statement
    private var deviceKeys: [String: Int64] = [:]
    /// The site's device names (`WriterConfiguration.deviceNames`).
    private let names: [String: String]
    /// Marks the keys cached in `TrackedDevice` handles: a new one on open and on rollback,
    /// so a handle's key from a rolled-back transaction (or another writer) is never used.
    private var epoch = BatchWriter.newEpoch()
    private static let epochs = Atomic<Int>(0)
    private static func newEpoch() -> Int { epochs.add(1, ordering: .relaxed).newValue }
    /// Latest time each device was seen in this batch: one UPDATE per device, not per point.
    private var seen: [Int64: Double] = [:]
    /// The last_seen each device's row holds. Rows are moved on at most once a minute, since a
    /// busy site has about one point per device per batch; readers take the later of last_seen
    /// and the device's last track point, so nothing is lost.
    private var stored: [Int64: Double] = [:]
    static let lastSeenResolution = 60.0

    init(path: String, busyTimeout: Double, names: [String: String] = [:], retention: RetentionPolicy = RetentionPolicy()) throws {
        db = try Connection(path: path, busyTimeout: busyTimeout)
        maintenance = Maintenance(policy: retention)
        self.names = names
        try Schema.migrator.migrate(db)
        // The writer's own settings (WAL and synchronous = NORMAL come with the connection).
        // A checkpoint copies the WAL into the file and syncs both: with SQLite's default of
        // 1,000 pages a busy site checkpointed every second or so, inside a commit. 4,000 pages
        // (16 MB of WAL at most between checkpoints) makes that a few times a minute; readers
        // and a crash recovery read at most that much WAL. An 8 MB page cache (2 MB by default) keeps the
        // (device, t) index's leaves of a few thousand devices in memory between commits.
        try db.execute("PRAGMA wal_autocheckpoint = 4000")
        try db.execute("PRAGMA cache_size = -8000")
        try db.execute("PRAGMA temp_store = MEMORY")
        // Compiled once: sqlite3_exec would parse them again for every batch.
        begin = try db.prepare("BEGIN IMMEDIATE")
        commit = try db.prepare("COMMIT")
        insertPoints = try Self.pointInserts(db)
        chunk.reserveCapacity(Self.pointsPerInsert)
        // A replayed batch finds its visit already there: nothing changes.
        openVisit = try db.prepare("INSERT OR IGNORE INTO visits(device, zone, floor, enter_t, backfilled) VALUES (?1, ?2, ?3, ?4, ?6)")
        // A visit opened live and closed by a backfill pass (or the other way) is marked.
        closeVisit = try db.prepare("""
            INSERT INTO visits(device, zone, floor, enter_t, exit_t, dwell, backfilled) VALUES (?1, ?2, ?3, ?4, ?5, ?5 - ?4, ?6)
            ON CONFLICT(device, zone, enter_t) DO UPDATE SET exit_t = excluded.exit_t, dwell = excluded.dwell,
                backfilled = max(backfilled, excluded.backfilled)
            WHERE exit_t IS NULL
            """)
        insertBackfilledPoint = try db.prepare("""
            INSERT INTO track_points(device, t, x, y, z, floor, room, confidence, backfilled) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1)
            """)
        insertDevice = try db.prepare("""
            INSERT INTO devices(id, name, first_seen, last_seen) VALUES (?1, ?2, ?3, ?3) ON CONFLICT(id) DO NOTHING
            """)
        updateDevice = try db.prepare("""
            UPDATE devices SET name = coalesce(?2, name), first_seen = min(first_seen, ?3), last_seen = max(last_seen, ?3)
            WHERE id = ?1 RETURNING key
            """)
        touchDevice = try db.prepare("UPDATE devices SET last_seen = max(last_seen, ?2) WHERE key = ?1")
        upsertNode = try db.prepare("""
            INSERT INTO nodes(name, first_seen, last_seen) VALUES (?1, ?2, ?2)
            ON CONFLICT(name) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)
            RETURNING key
            """)
        insertHealth = try db.prepare("""
            INSERT INTO node_health(node, t, adverts, dropped, buffered, online) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        try applyNames()
    }

    /// The site's names into the rows already there: a renamed device renamed, one the site
    /// no longer names cleared. New rows get theirs as they are written (`deviceRow`). Read
    /// first and written only when a name differs: a write takes the database's write lock,
    /// which a start with nothing to rename should neither wait for nor fail on.
    private func applyNames() throws {
        let changes = try nameChanges()
        guard !changes.isEmpty else { return }
        try db.transaction {
            let rename = try db.prepare("UPDATE devices SET name = ?2 WHERE id = ?1")
            for (id, name) in changes {
                try rename.bind(id, at: 1)
                try rename.bind(name, at: 2)
                try rename.run()
            }
        }
    }

    /// Rows whose name is not the site's, with the name each should have.
    private func nameChanges() throws -> [(id: String, name: String?)] {
        var changes: [(id: String, name: String?)] = []
        var named: Set<String> = []
        let rows = try db.prepare("SELECT id, name FROM devices WHERE name IS NOT NULL")
        while try rows.step() {
            guard let id = rows.string(0) else { continue }
            named.insert(id)
            if rows.string(1) != names[id] { changes.append((id, names[id])) }
        }
        // The site names a device whose row has no name yet.
        let unnamed = try db.prepare("SELECT 1 FROM devices WHERE id = ?1")
        for (id, name) in names where !named.contains(id) {
            defer { unnamed.reset() }
            try unnamed.bind(id, at: 1)
            if try unnamed.step() { changes.append((id, name)) }
        }
        return changes
    }

    /// Drops the cached key and last_seen of forgotten devices, between transactions (nothing
    /// is waiting in `seen` then). Device rows are never deleted, so a device that comes back
    /// gets its key again from the upsert, and its row's last_seen moves as it would have.
    func evict(_ ids: [String]) {
        for id in ids {
            guard let key = deviceKeys.removeValue(forKey: id) else { continue }
            stored.removeValue(forKey: key)
        }
    }

    /// Drops every cached key and last_seen (too many forgotten devices to go one by one).
    func evictAll() {
        deviceKeys.removeAll()
        stored.removeAll()
    }

    var maintenanceIdle: Bool { maintenance.isIdle }
    func beginMaintenance(now: Double) { maintenance.begin(now: now) }
    func cancelMaintenance() { maintenance.cancel() }
    func maintenanceStep() throws -> Int { try maintenance.step(db) }

    /// Devices with cached state.
    var cachedDevices: Int { max(deviceKeys.count, stored.count) }

    /// INSERTs of 1, 2, 4 … 32 track points.
    private static func pointInserts(_ db: Connection) throws -> [Statement] {
        try (0...5).map { k in
            let values = (0..<(1 << k)).map { row in "(" + (1...8).map { "?\(row * 8 + $0)" }.joined(separator: ", ") + ")" }
            return try db.prepare("""
                INSERT INTO track_points(device, t, x, y, z, floor, room, confidence) VALUES \(values.joined(separator: ", "))
                """)
        }
    }

    /// Writes the whole batch or nothing.
    func write(_ batch: [Write]) throws {
        do {
            // `IMMEDIATE` takes the write lock up front, so a busy database fails here, within
            // the busy timeout, instead of halfway through a batch.
            try begin.run()
            for write in batch { try apply(write) }
            try writeChunk()
            for (key, t) in seen where t - (stored[key] ?? -.infinity) >= Self.lastSeenResolution {
                try touchDevice.bind(key, at: 1)
                try touchDevice.bind(t, at: 2)
                try touchDevice.run()
                stored[key] = t
            }
            try commit.run()
            seen.removeAll(keepingCapacity: true)
        } catch {
            // A failed COMMIT or a statement error can leave SQLite already rolled back.
            db.rollbackIfOpen()
            chunk.removeAll(keepingCapacity: true)
            epoch = Self.newEpoch()
            deviceKeys.removeAll()
            seen.removeAll()
            stored.removeAll()
            throw error
        }
    }

    private func apply(_ write: Write) throws {
        switch write {
        case .point(let p):
            try insertPoint(p, device: try deviceKey(p.device, t: p.t))
        case .trackedPoint(let handle, let p):
            let device: Int64
            if handle.keyEpoch == epoch {
                device = handle.key
                seen[device] = max(seen[device] ?? p.t, p.t)
            } else {
                device = try deviceKey(p.device, t: p.t)
                (handle.key, handle.keyEpoch) = (device, epoch)
            }
            try insertPoint(p, device: device)
        case .visitOpened(let v):
            try bindVisit(openVisit, v)
            try openVisit.run()
        case .visitClosed(let v):
            try bindVisit(closeVisit, v)
            try closeVisit.bind(v.exit ?? v.enter, at: 5)
            try closeVisit.run()
        case .health(let h):
            // Health samples are rare: each one also moves the node's last_seen.
            let node = try nodeRow(h.node, t: h.t)
            try insertHealth.bind(node, at: 1)
            try insertHealth.bind(h.t, at: 2)
            try insertHealth.bind(h.adverts, at: 3)
            try insertHealth.bind(h.dropped, at: 4)
            try insertHealth.bind(h.buffered, at: 5)
            try insertHealth.bind(Int64(h.online ? 1 : 0), at: 6)
            try insertHealth.run()
        }
    }

    private func insertPoint(_ p: TrackPoint, device: Int64) throws {
        if p.backfilled {
            try bindPoint(insertBackfilledPoint, p, device: device, from: 0)
            return try insertBackfilledPoint.run()
        }
        chunk.append((p, device))
        if chunk.count == Self.pointsPerInsert { try writeChunk() }
    }

    /// The points gathered so far: the largest power-of-two INSERTs that fit, in order.
    private func writeChunk() throws {
        defer { chunk.removeAll(keepingCapacity: true) }
        var next = 0
        for k in (0...5).reversed() where (chunk.count - next) & (1 << k) != 0 {
            let statement = insertPoints[k]
            for row in 0..<(1 << k) {
                let (p, device) = chunk[next + row]
                try bindPoint(statement, p, device: device, from: Int32(row * 8))
            }
            try statement.run()
            next += 1 << k
        }
    }

    private func bindPoint(_ statement: Statement, _ p: TrackPoint, device: Int64, from base: Int32) throws {
        try statement.bind(device, at: base + 1)
        try statement.bind(p.t, at: base + 2)
        try statement.bind(p.x, at: base + 3)
        try statement.bind(p.y, at: base + 4)
        try statement.bind(p.z, at: base + 5)
        try statement.bind(p.floor, at: base + 6)
        try statement.bind(p.room, at: base + 7)
        try statement.bind(p.confidence, at: base + 8)
    }

    private func bindVisit(_ statement: Statement, _ v: Visit) throws {
        try statement.bind(try deviceKey(v.device, t: v.enter), at: 1)
        try statement.bind(v.zone, at: 2)
        try statement.bind(v.floor, at: 3)
        try statement.bind(v.enter, at: 4)
        try statement.bind(Int64(v.backfilled ? 1 : 0), at: 6)
    }

    private func deviceKey(_ id: String, t: Double) throws -> Int64 {
        if let key = deviceKeys[id] {
            seen[key] = max(seen[key] ?? t, t)
            return key
        }
        let key = try deviceRow(id, name: names[id], t: t)
        deviceKeys[id] = key
        return key
    }

    /// Inserts device `id`'s row (with the site's name for it), or moves its first_seen and
    /// last_seen on when it is there (as an upsert would); returns its key.
    private func deviceRow(_ id: String, name: String?, t: Double) throws -> Int64 {
        try insertDevice.bind(id, at: 1)
        try insertDevice.bind(name, at: 2)
        try insertDevice.bind(t, at: 3)
        try insertDevice.run()
        // The transaction is ours (`BEGIN IMMEDIATE`): nothing else inserts in between.
        if db.changes == 1 { return db.lastInsertRowID }
        return try returningKey(updateDevice) {
            try updateDevice.bind(id, at: 1)
            try updateDevice.bind(name, at: 2)
            try updateDevice.bind(t, at: 3)
        }
    }

    /// Node `name`'s key, its row inserted or its last_seen moved on (health samples are rare).
    private func nodeRow(_ name: String, t: Double) throws -> Int64 {
        try returningKey(upsertNode) {
            try upsertNode.bind(name, at: 1)
            try upsertNode.bind(t, at: 2)
        }
    }

    /// Binds and runs an `… RETURNING key` statement.
    private func returningKey(_ statement: Statement, bind: () throws -> Void) throws -> Int64 {
        defer { statement.reset() }
        try bind()
        guard try statement.step() else { throw DatabaseError.misuse("no key returned", sql: statement.sql) }
        return statement.int64(0)
    }
}
