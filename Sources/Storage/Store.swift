/// What the writer thread writes through: one open connection to a store (SQLite's
/// `BatchWriter`, PostgreSQL's in the PostgresStorage module). Made by `TrackWriter`'s `open`
/// closure on the writer thread, used only there, and dropped after a failure that calls for
/// a fresh connection (any error but `.locked`): the next try opens another.
public protocol BatchStore: AnyObject {
    /// Writes the whole batch in one transaction, or nothing; throws `DatabaseError`.
    /// A batch that failed is written again, whole: what it stored before the failure was
    /// rolled back (or, where a commit's reply was lost, is stored again idempotently).
    func write(_ batch: [Write]) throws
    /// Drops cached state for these devices (their writes are all committed).
    func evict(_ ids: [String])
    /// Drops every device's cached state.
    func evictAll()
    /// Devices the store caches state for.
    var cachedDevices: Int { get }
    /// No retention pass under way.
    var maintenanceIdle: Bool { get }
    /// Starts a retention pass measured against `now` (Unix seconds).
    func beginMaintenance(now: Double)
    /// Abandons the pass under way (the store failed).
    func cancelMaintenance()
    /// One short step of the pass; the rows (or partitions' rows) it removed.
    func maintenanceStep() throws -> Int
}

/// The read-only queries `whereabouts history|visits|occupancy|devices` and the aggregator's
/// start-up recovery ask of a store; SQLite's `TrackReader` and PostgreSQL's reader answer
/// them alike (same rows, same order).
public protocol TrackQueries: AnyObject {
    /// Whether the store knows a device of this id.
    func knows(device id: String) throws -> Bool
    /// A device's track points with `since <= t <= until`, oldest first, one by one.
    func history(device id: String, since: Double?, until: Double?, _ body: (TrackPoint) throws -> Void) throws
    /// Visits by enter time (then device, zone); `since` keeps those still going at or after
    /// it, `until` those entered by then.
    func visits(zone: String?, device: String?, since: Double?, until: Double?) throws -> [Visit]
    /// Who was in each zone at `t`, zones and devices in byte order.
    func occupancy(at t: Double) throws -> [ZoneOccupancy]
    /// Every device by id, with its last floor and room and its track point count.
    func devices() throws -> [DeviceSummary]
    /// The time of the device's last track point.
    func lastTrackPoint(device id: String) throws -> Double?
    /// Visits without an exit, each with its device's last track point time.
    func openVisits() throws -> [OpenVisit]
}

/// Which store a `--db` value names: a `postgresql://` or `postgres://` URL, else a file.
public enum StoreLocation: Sendable, Equatable {
    case file(String)
    case postgres(url: String)

    public init(_ text: String) {
        let lower = text.lowercased()
        self = lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") ? .postgres(url: text) : .file(text)
    }
}
