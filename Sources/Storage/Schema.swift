/// The track store's schema. Times are REAL Unix seconds; devices and nodes are referred to by
/// an integer key so the busy tables (track points, visits) stay small.
public enum Schema {
    /// Every migration of the track store, oldest first.
    public static let migrator = Migrator([
        Migration(version: 1, name: "tracks, visits, node health, readings", sql: version1),
        Migration(version: 2, name: "backfilled track points and visits", sql: version2),
        Migration(version: 3, name: "self-calibration", sql: selfCalibrationTable),
    ])

    /// What self-calibration learned (`CalibrationStore`): one row per node offset, floor
    /// exponent, device power and counter, replaced as a whole at each save.
    static let selfCalibrationTable = """
        CREATE TABLE self_calibration (
            kind TEXT NOT NULL,        -- node, floor, device, counter
            name TEXT NOT NULL,
            value REAL NOT NULL,
            evidence REAL NOT NULL,
            saved REAL NOT NULL,
            PRIMARY KEY (kind, name)) WITHOUT ROWID;
        """

    /// Track points and visits solved by a backfill pass over a broker outage are marked
    /// (docs/operations.md, Outages); everything before is live.
    static let version2 = """
        ALTER TABLE track_points ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE visits ADD COLUMN backfilled INTEGER NOT NULL DEFAULT 0;
        """

    static let version1 = """
        CREATE TABLE nodes (
            key INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL);
        CREATE TABLE devices (
            key INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            name TEXT,
            first_seen REAL NOT NULL,
            last_seen REAL NOT NULL);
        CREATE TABLE track_points (
            device INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
            t REAL NOT NULL,
            x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL,
            floor TEXT, room TEXT,
            confidence REAL NOT NULL);
        -- history of one device; the last point of each device (recovery, `devices`).
        CREATE INDEX track_points_device_t ON track_points(device, t);
        -- retention and downsampling walk old points by time.
        CREATE INDEX track_points_t ON track_points(t);
        CREATE TABLE visits (
            device INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
            zone TEXT NOT NULL,
            floor TEXT,
            enter_t REAL NOT NULL,
            exit_t REAL,
            dwell REAL,
            -- a visit is named by (device, zone, enter time): replays and late closes find it.
            UNIQUE (device, zone, enter_t));
        CREATE INDEX visits_zone_enter ON visits(zone, enter_t);
        CREATE INDEX visits_enter ON visits(enter_t);
        CREATE INDEX visits_exit ON visits(exit_t);
        CREATE INDEX visits_open ON visits(device) WHERE exit_t IS NULL;
        CREATE TABLE node_health (
            node INTEGER NOT NULL REFERENCES nodes(key) ON DELETE CASCADE,
            t REAL NOT NULL,
            adverts INTEGER, dropped INTEGER, buffered INTEGER,
            online INTEGER NOT NULL);
        CREATE INDEX node_health_node_t ON node_health(node, t);
        CREATE INDEX node_health_t ON node_health(t);
        CREATE TABLE readings (
            node INTEGER NOT NULL REFERENCES nodes(key) ON DELETE CASCADE,
            device INTEGER NOT NULL REFERENCES devices(key) ON DELETE CASCADE,
            t REAL NOT NULL,
            rssi INTEGER NOT NULL,
            tx INTEGER);
        CREATE INDEX readings_t ON readings(t);
        -- small facts the store keeps about itself (the downsampling watermark).
        CREATE TABLE store_state (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        """

    /// Opens the file for writing and brings its schema up to date: the aggregator's start-up
    /// check, which fails loudly on a corrupt or foreign file instead of running without storage.
    public static func prepare(path: String) throws {
        let db = try Connection(path: path)
        try migrator.migrate(db)
    }
}
