import Wire

/// The readings of one outage of the broker, gathered for a backfill pass (docs/operations.md,
/// Outages): the edges kept what they heard while the broker was away and deliver it, in
/// order per node, once it is back. Readings stamped inside the gap wait here, not in the live
/// engine, until every node heard just before the outage has caught up to the gap's end (or
/// `maxWait` passes); then one pass solves them in event time (`AggregatorCore+Backfill`).
struct Backfill {
    /// Event time of the gap: from the newest reading before the broker went away to the
    /// aggregator's event-time estimate of the moment it was back.
    let start: Double
    let end: Double
    /// Readings older than this (the horizon before `end`) are refused as late, as ever.
    let oldest: Double
    /// Wall time the broker was back.
    let since: Double
    /// Nodes heard in the minute before the outage that have not yet delivered a reading
    /// stamped at or after `end`, by engine node index.
    private(set) var waitingFor: Set<Int32>
    /// Device ids, interned: a reading keeps an index, not a string of its own.
    private(set) var ids: [String] = []
    private var idIndex: [String: Int32] = [:]
    private(set) var readings: [Held] = []
    /// Readings refused because `maxReadings` were held already.
    private(set) var overflow = 0
    /// Wall time of the last reading held (or the broker's return).
    private var lastHeld: Double

    /// One reading of the gap.
    struct Held {
        var node: Int32
        var device: Int32
        var rssi: Int16
        var tx: Int16
        var t: Double
    }

    /// Seconds after the broker is back that the pass runs even if a node has not caught up:
    /// the MQTT clients' longest reconnect wait (60 s) and some.
    static let maxWait = 75.0
    /// Bounds the memory a long outage of a large site can take (about 40 bytes a reading).
    static let maxReadings = 4_000_000

    init(start: Double, end: Double, horizon: Double, since: Double, nodes: Set<Int32>) {
        self.start = start
        self.end = end
        self.oldest = end - horizon
        self.since = since
        lastHeld = since
        waitingFor = nodes
    }

    /// Whether a reading stamped `t` belongs to this gap (not to the live engine, and not
    /// refused as older than the horizon).
    @inline(__always)
    func holds(_ t: Double) -> Bool { t < end && t >= oldest }

    /// Keeps one reading from node `node` with device id `id`; `false` when full.
    mutating func add(node: Int32, id: String, rssi: Int16, tx: Int16, t: Double, wall: Double) -> Bool {
        lastHeld = wall
        guard readings.count < Self.maxReadings else { overflow += 1; return false }
        let device: Int32
        if let known = idIndex[id] {
            device = known
        } else {
            device = Int32(ids.count)
            ids.append(id)
            idIndex[id] = device
        }
        readings.append(Held(node: node, device: device, rssi: rssi, tx: tx, t: t))
        return true
    }

    /// Node `node` delivered a reading stamped `t`: once at or after the gap's end, its
    /// backlog is in (an edge delivers its buffer in order).
    mutating func heard(node: Int32, at t: Double) {
        if t >= end { waitingFor.remove(node) }
    }

    /// Seconds without a reading of the gap after which the nodes still waited for are given
    /// up (an edge that lost its buffer, or was stopped): an edge reconnects within a few
    /// seconds of the broker after an outage of a minute or two, and its backlog comes at once.
    static let quiet = 15.0

    /// Whether the pass should run at wall time `wall`.
    func isDue(wall: Double) -> Bool { waitingFor.isEmpty || wall - since >= Self.maxWait || wall - lastHeld >= Self.quiet }

    /// The readings in event-time order (stable: a node's own order kept for equal times).
    mutating func sorted() -> [Held] {
        let indexed = readings.enumerated().sorted { a, b in a.element.t < b.element.t || (a.element.t == b.element.t && a.offset < b.offset) }
        readings = []
        return indexed.map(\.element)
    }
}
