/// How long each table keeps its rows, in seconds; `nil` keeps them for ever.
public struct RetentionPolicy: Sendable, Equatable {
    public var trackPoints: Double?
    /// Closed visits, by their exit time; open visits are never removed.
    public var visits: Double?
    public var nodeHealth: Double?
    /// The `readings` table, no longer written (files made before may hold rows): kept a short while.
    public var readings: Double?
    /// Track points older than this keep one point per `downsampleInterval` per device.
    public var downsampleAfter: Double?
    public var downsampleInterval: Double

    /// `retention` for tracks, visits and node health (the site's `storage.retention`, 30 days by
    /// default); raw readings a day; tracks thinned to a point a minute after a day.
    public init(retention: Double? = 30 * 86_400, readings: Double? = 86_400,
                downsampleAfter: Double? = 86_400, downsampleInterval: Double = 60) {
        trackPoints = retention
        visits = retention
        nodeHealth = retention
        self.readings = readings
        self.downsampleAfter = downsampleAfter
        self.downsampleInterval = downsampleInterval
    }
}

/// Retention and downsampling as a walk of small steps: each step deletes at most `chunk` rows
/// in its own short transaction, so the writer's batches never wait long behind it.
public struct Maintenance: Sendable {
    public let policy: RetentionPolicy
    /// Rows per step.
    public var chunk: Int

    private enum Phase: Sendable, Equatable { case idle, prune(Int), downsample }
    private var phase = Phase.idle
    private var now = 0.0

    /// Tables pruned by time, in order: (table, time column, extra condition, retention).
    private var prunes: [(table: String, column: String, condition: String, keep: Double?)] {
        [("readings", "t", "", policy.readings),
         ("track_points", "t", "", policy.trackPoints),
         ("visits", "exit_t", "exit_t IS NOT NULL AND ", policy.visits),
         ("node_health", "t", "", policy.nodeHealth)]
    }

    public init(policy: RetentionPolicy, chunk: Int = 2_000) {
        self.policy = policy
        self.chunk = chunk
    }

    /// No pass under way.
    public var isIdle: Bool { phase == .idle }

    /// Starts a pass measured against `now` (Unix seconds): rows older than `now - retention` go.
    public mutating func begin(now: Double) {
        self.now = now
        phase = .prune(0)
    }

    /// Abandons the pass under way (the writer does so when the database fails).
    public mutating func cancel() { phase = .idle }

    /// Does one small step of the pass; returns the rows it removed. `isIdle` once the pass is done.
    public mutating func step(_ db: Connection) throws -> Int {
        switch phase {
        case .idle:
            return 0
        case .prune(let index):
            let table = prunes[index]
            var removed = 0
            if let keep = table.keep {
                removed = try deleteChunk(db, from: table.table, where: "\(table.condition)\(table.column) < ?1",
                                          bound: now - keep)
            }
            if removed < chunk { phase = index + 1 < prunes.count ? .prune(index + 1) : .downsample }
            return removed
        case .downsample:
            guard let after = policy.downsampleAfter else {
                phase = .idle
                return 0
            }
            let (removed, done) = try Downsampler(interval: policy.downsampleInterval, chunk: chunk)
                .step(db, before: now - after)
            if done { phase = .idle }
            return removed
        }
    }

    /// Runs a whole pass at once (tests, a one-off clean-up); returns the rows removed.
    @discardableResult
    public mutating func run(_ db: Connection, now: Double) throws -> Int {
        begin(now: now)
        var removed = 0
        while !isIdle { removed += try step(db) }
        return removed
    }

    /// `DELETE … LIMIT` through a rowid sub-select, which needs no special SQLite build.
    private func deleteChunk(_ db: Connection, from table: String, where condition: String, bound: Double) throws -> Int {
        let delete = try db.prepare("""
            DELETE FROM \(table) WHERE rowid IN (SELECT rowid FROM \(table) WHERE \(condition) LIMIT ?2)
            """)
        try delete.bind(bound, at: 1)
        try delete.bind(chunk, at: 2)
        try delete.run()
        return db.changes
    }
}

/// Keeps the first track point of each device in each `interval` bucket, walking forward in
/// hour-long windows from a watermark kept in `store_state`, so no pass re-reads old work.
struct Downsampler {
    let interval: Double
    let chunk: Int
    static let watermarkKey = "downsampled_through"
    private let window = 3_600.0

    /// One chunk of deletions before `bound`; `done` when the watermark reached the bound.
    func step(_ db: Connection, before bound: Double) throws -> (removed: Int, done: Bool) {
        let end = (bound / interval).rounded(.down) * interval
        let mark = try watermark(db)
        let next = try db.prepare("SELECT min(t) FROM track_points WHERE t >= ?1")
        try next.bind(mark, at: 1)
        guard try next.step(), let first = next.optionalDouble(0), first < end else { return (0, true) }
        let start = (first / interval).rounded(.down) * interval
        let stop = min(start + window, end)
        let removed = try db.transaction { () throws -> Int in
            let delete = try db.prepare("""
                DELETE FROM track_points WHERE rowid IN (
                  SELECT p.rowid FROM track_points p WHERE p.t >= ?1 AND p.t < ?2 AND EXISTS (
                    SELECT 1 FROM track_points q WHERE q.device = p.device
                      AND q.t >= CAST(p.t / ?3 AS INTEGER) * ?3
                      AND (q.t < p.t OR (q.t = p.t AND q.rowid < p.rowid)))
                  LIMIT ?4)
                """)
            try delete.bind(start, at: 1)
            try delete.bind(stop, at: 2)
            try delete.bind(interval, at: 3)
            try delete.bind(chunk, at: 4)
            try delete.run()
            let removed = db.changes
            if removed < chunk { try setWatermark(db, stop) }
            return removed
        }
        return (removed, removed < chunk && stop >= end)
    }

    private func watermark(_ db: Connection) throws -> Double {
        let read = try db.prepare("SELECT value FROM store_state WHERE key = ?1")
        try read.bind(Self.watermarkKey, at: 1)
        return try read.step() ? read.double(0) : 0
    }

    private func setWatermark(_ db: Connection, _ value: Double) throws {
        let write = try db.prepare("INSERT OR REPLACE INTO store_state(key, value) VALUES (?1, ?2)")
        try write.bind(Self.watermarkKey, at: 1)
        try write.bind(value, at: 2)
        try write.run()
    }
}
