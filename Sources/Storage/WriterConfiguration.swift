/// Settings of the track writer; the defaults suit a home or a small office.
public struct WriterConfiguration: Sendable {
    /// Queued writes (track points, visits, health samples) before new ones are dropped.
    public var capacity = 50_000
    /// Extra room kept for zone events, so a flood of track points never crowds one out.
    public var eventReserve = 5_000
    /// Longest time a queued write waits for its commit (events are committed at once).
    public var commitInterval = 0.5
    /// Shortest time between two commits a zone event asks for. An event that comes after a
    /// quiet spell is committed at once; events that follow a commit within this gap are
    /// gathered into one commit at its end, so a stream of events costs at most
    /// 1 / `eventCommitGap` commits a second (each waits at most this long) instead of one
    /// each. 0 commits every event at once.
    public var eventCommitGap = 0.05
    /// Most writes per transaction; this many queued also wakes the writer before
    /// `commitInterval` is up. A backlog is committed in batches of this size, so commits
    /// stay short and an event never waits behind one huge transaction.
    public var batchSize = 5_000
    /// Pause between attempts while the database refuses writes.
    public var retryInterval = 1.0
    /// How long `close()` keeps retrying a failing database before it keeps the visit writes
    /// left in the journal (`VisitJournal`) and gives the rest up.
    public var shutdownGrace = 5.0
    /// SQLite's busy timeout for the writer's connection.
    public var busyTimeout = 2.0
    /// Shortest time between two track points of a moving device.
    public var trackInterval = 1.0
    /// A device that moved less than this since its last written point is still.
    public var stillDistance = 0.3
    /// A still device still writes a point this often, so its track shows it was there.
    public var stillInterval = 60.0
    public var retention = RetentionPolicy()
    /// The names the site gives devices, by id: each device's row carries its name (Grafana's
    /// tables and `whereabouts devices` show it). Applied to the rows already there each time
    /// the writer opens the database (renamed, or cleared for a device no longer named), and
    /// to a new row when it is written.
    public var deviceNames: [String: String] = [:]
    /// Seconds between retention and downsampling passes.
    public var maintenanceInterval = 300.0
    /// The wall clock retention measures against (injected so tests can move it).
    public var clock: @Sendable () -> Double = wallClockNow

    public init() {}
}
