/// One estimated position of a device, as the aggregator's tracker reports it.
public struct TrackPoint: Sendable, Equatable {
    public var device: String
    /// Unix seconds.
    public var t: Double
    /// Metres in the site's frame.
    public var x: Double, y: Double, z: Double
    public var floor: String?
    public var room: String?
    /// 0…1, as published in the device state.
    public var confidence: Double
    /// Solved by a backfill pass over a broker outage, not live (docs/operations.md, Outages).
    public var backfilled: Bool

    public init(device: String, t: Double, x: Double, y: Double, z: Double,
                floor: String?, room: String?, confidence: Double, backfilled: Bool = false) {
        self.backfilled = backfilled
        self.device = device
        self.t = t
        self.x = x
        self.y = y
        self.z = z
        self.floor = floor
        self.room = room
        self.confidence = confidence
    }
}

/// A device's stay in a zone. Named by (device, zone, enter): the close of a visit and a
/// replayed open find the same row.
public struct Visit: Sendable, Hashable {
    public var device: String
    public var zone: String
    public var floor: String?
    /// Unix seconds of the `enter` event.
    public var enter: Double
    /// Unix seconds of the `exit` event; `nil` while the device is still there.
    public var exit: Double?
    /// Its enter or exit came from a backfill pass over a broker outage (docs/operations.md, Outages).
    public var backfilled: Bool

    public init(device: String, zone: String, floor: String?, enter: Double, exit: Double? = nil, backfilled: Bool = false) {
        self.backfilled = backfilled
        self.device = device
        self.zone = zone
        self.floor = floor
        self.enter = enter
        self.exit = exit
    }

    /// Seconds spent in the zone, once closed.
    public var dwell: Double? { exit.map { $0 - enter } }
}

/// A visit a crash left open, with the last moment the device was known to be somewhere.
public struct OpenVisit: Sendable, Equatable {
    public var visit: Visit
    /// Time of the device's last track point, `nil` when it has none.
    public var lastTrackPoint: Double?

    public init(visit: Visit, lastTrackPoint: Double?) {
        self.visit = visit
        self.lastTrackPoint = lastTrackPoint
    }

    /// When to close it: the last track point, never before the enter.
    public var closeAt: Double { max(visit.enter, lastTrackPoint ?? visit.enter) }
}

/// One telemetry sample of an edge node (docs/protocol.md#mqtt-topics-and-payloads counters).
public struct NodeHealth: Sendable, Equatable {
    public var node: String
    public var t: Double
    public var adverts: Int64?
    public var dropped: Int64?
    public var buffered: Int64?
    public var online: Bool

    public init(node: String, t: Double, adverts: Int64?, dropped: Int64?, buffered: Int64?, online: Bool) {
        self.node = node
        self.t = t
        self.adverts = adverts
        self.dropped = dropped
        self.buffered = buffered
        self.online = online
    }
}

/// A device the database knows, with where it was last seen.
public struct DeviceSummary: Sendable, Equatable {
    public var id: String
    public var name: String?
    public var firstSeen: Double
    public var lastSeen: Double
    public var lastFloor: String?
    public var lastRoom: String?
    public var trackPoints: Int64

    public init(id: String, name: String?, firstSeen: Double, lastSeen: Double, lastFloor: String?, lastRoom: String?,
                trackPoints: Int64) {
        (self.id, self.name, self.firstSeen, self.lastSeen) = (id, name, firstSeen, lastSeen)
        (self.lastFloor, self.lastRoom, self.trackPoints) = (lastFloor, lastRoom, trackPoints)
    }
}

/// The devices in one zone at one moment.
public struct ZoneOccupancy: Sendable, Equatable {
    public var zone: String
    public var devices: [String]

    public init(zone: String, devices: [String]) { (self.zone, self.devices) = (zone, devices) }
}

/// One device's track, interned: `TrackWriter.device(_:)` makes it once, and
/// `TrackWriter.record(_:t:x:y:z:floor:room:confidence:)` with it thins the point on the
/// caller's thread without hashing the id, takes the queue's lock only for a point it keeps,
/// and the writer thread finds the device's key without a lookup.
///
/// Keep one per device for the writer's life and use it from one thread (or serial queue) at a
/// time, as the aggregator's work queue does. Do not also record the same device with
/// `record(_: TrackPoint)`: the two keep their own thinning state.
public final class TrackedDevice: @unchecked Sendable {
    public let id: String
    /// The caller's side: the last point queued, for thinning.
    var lastWritten: ThinningRule.Written?
    /// The writer thread's side: the device's key in `devices`, valid while `keyEpoch` is the
    /// writer's (a rolled-back transaction or a reopened connection starts a new epoch).
    var key: Int64 = 0
    var keyEpoch = 0

    init(id: String) { self.id = id }
}

/// One queued write; the writer thread applies them in order (through a `BatchStore`).
public enum Write: Sendable {
    case point(TrackPoint)
    /// A point of an interned device (`point.device` is `device.id`).
    case trackedPoint(TrackedDevice, TrackPoint)
    case visitOpened(Visit)
    case visitClosed(Visit)
    case health(NodeHealth)

    /// Every time, coordinate and confidence is a finite number: a NaN would reach SQLite as
    /// NULL and fail its NOT NULL column, and with it the batch; an infinity would be stored,
    /// then break every reader that turns times into dates.
    public var isStorable: Bool {
        switch self {
        case .point(let p), .trackedPoint(_, let p):
            p.t.isFinite && p.x.isFinite && p.y.isFinite && p.z.isFinite && p.confidence.isFinite
        case .visitOpened(let v), .visitClosed(let v): v.enter.isFinite && v.exit?.isFinite != false
        case .health(let h): h.t.isFinite
        }
    }

    /// The visit of a visit write (its exit set for a close), nil for any other write.
    public var visit: Visit? {
        switch self {
        case .visitOpened(let v), .visitClosed(let v): v
        default: nil
        }
    }

    /// Events are the durable record of what was published: committed at once.
    public var isEvent: Bool {
        switch self {
        case .visitOpened, .visitClosed: true
        default: false
        }
    }
}
