/// The site: floors with rooms, walls and doors, extra zones, nodes, known devices and settings.
///
/// This is the model of docs/protocol.md#site-file. It is decoded from YAML by the `YAML` module
/// (`Site+Decoding.swift` here holds the rules; the YAML module only builds the tree).
/// The keys are a superset of ESPresense-companion's `config.yaml`.
public struct Site: Sendable, Equatable {
    public var floors: [Floor] = []
    /// Zones that are not rooms; they may overlap rooms and each other.
    public var zones: [Zone] = []
    public var nodes: [Node] = []
    public var devices: [DeviceConfig] = []
    /// Id globs never tracked (`exclude_devices` in ESPresense-companion).
    public var excludeDevices: [String] = []
    public var irks: [IRKConfig] = []
    public var positioning = PositioningSettings()
    public var mqtt = MQTTSettings()
    public var storage = StorageSettings()
    /// A calibration file (`calibration: FILE`, what `whereabouts calibrate --survey` writes),
    /// as written: relative paths are relative to the site file's directory, resolved by whoever
    /// loads it (see `SiteCalibration`).
    public var calibration: String?
    /// The calibration file's radio map (set by `SiteCalibration.applied(to:)`, never by the site file).
    public var radioMap: RadioMap?
    /// Where the plan lies on Earth, when the site reports positions as GPS coordinates.
    public var gps: GPSAnchor?
    /// Readings partitions P (docs/protocol.md, Partitions and shards): the edges' `partitions`,
    /// which shards divide among themselves. 1: the plain readings topic.
    public var partitions = 1
    /// Per-room fingerprints from the calibration file (`SiteCalibration.applied(to:)`); never
    /// written in the site file itself.
    public var fingerprints: RoomFingerprintSet?
    public init() {}

    /// Whether the site has a floor plan: false when its floors have none (`Floor.hasPlan`), so
    /// the engine publishes rooms and no coordinates.
    public var hasFloorPlan: Bool { floors.isEmpty || floors.contains(where: \.hasPlan) }
}

public struct Floor: Sendable, Equatable {
    public var id: String
    public var name: String
    /// Opposite corners of the floor's box: `[[x0, y0, z0], [x1, y1, z1]]`.
    public var bounds: (min: Point3, max: Point3)
    public var rooms: [Room] = []
    public var walls: [Wall] = []
    public var doors: [Door] = []
    /// Whether the floor has a plan (bounds, rooms with outlines). A floor without one (no
    /// `bounds`, rooms without `points`, nodes placed by `room:`) has rooms but no coordinates:
    /// its rooms are decided from what the nodes in them hear (docs/operations.md, Rooms without a
    /// floor plan); `bounds` is then the origin and means nothing.
    public var hasPlan = true

    public init(id: String, name: String, bounds: (min: Point3, max: Point3)) {
        self.id = id; self.name = name; self.bounds = bounds
    }

    public static func == (a: Floor, b: Floor) -> Bool {
        a.id == b.id && a.name == b.name && a.bounds.min == b.bounds.min && a.bounds.max == b.bounds.max
            && a.rooms == b.rooms && a.walls == b.walls && a.doors == b.doors && a.hasPlan == b.hasPlan
    }
}

/// A room: a zone of kind `room`. Rooms partition a floor.
public struct Room: Sendable, Equatable {
    public var id: String
    public var name: String
    /// The outline; empty on a floor without a plan (`Floor.hasPlan`).
    public var points: [Point2]
    public init(id: String, name: String, points: [Point2]) { self.id = id; self.name = name; self.points = points }
}

/// A wall segment or polyline that attenuates signals crossing it.
public struct Wall: Sendable, Equatable {
    public var points: [Point2]
    /// Attenuation in dB of one crossing.
    public var attenuation: Double
    public init(points: [Point2], attenuation: Double) { self.points = points; self.attenuation = attenuation }
}

/// A door joins two rooms: when doors are given, room changes go only through them.
public struct Door: Sendable, Equatable {
    public var between: (String, String)
    public var at: Point2
    public init(between: (String, String), at: Point2) { self.between = between; self.at = at }
    public static func == (a: Door, b: Door) -> Bool { a.between == b.between && a.at == b.at }
}

/// A zone that is not a room (a doorway, a desk, a bed); may overlap rooms.
public struct Zone: Sendable, Equatable {
    public var id: String
    public var name: String
    public var floor: String
    public var points: [Point2]
    public init(id: String, name: String, floor: String, points: [Point2]) {
        self.id = id; self.name = name; self.floor = floor; self.points = points
    }
}

/// A receiving node (a Raspberry Pi or an ESPresense board).
public struct Node: Sendable, Equatable {
    public var name: String
    /// Where the node is; the origin, meaning nothing, for a node placed by `room` instead.
    public var point: Point3
    /// The room the node is in, on a site without a floor plan (`room:` instead of `point:`,
    /// the Bermuda / room-assistant set-up); `nil` for a node placed at a point.
    public var room: String?
    /// The floors this node hears; empty means every floor.
    public var floors: [String]
    /// Receiver adjustment in dB added to every RSSI this node reports.
    public var rxAdj: Double
    /// The device id of the node's own advertisements (docs/protocol.md#device-ids: nodes may beacon for
    /// calibration): never tracked as a device; other nodes' readings of it calibrate the site.
    public var beacon: String?
    public init(name: String, point: Point3, floors: [String] = [], rxAdj: Double = 0, beacon: String? = nil, room: String? = nil) {
        self.name = name; self.point = point; self.floors = floors; self.rxAdj = rxAdj; self.beacon = beacon; self.room = room
    }
}

/// A device the operator named or calibrated.
public struct DeviceConfig: Sendable, Equatable {
    public var id: String
    public var name: String?
    /// RSSI at 1 m in dBm; overrides the frame's measured power.
    public var txRef: Double?
    /// Where the device stays (`point`): an anchored device, whose readings teach
    /// self-calibration at a known position.
    public var point: Point3?
    /// The floor of `point` (`floor`); nil: the floor whose bounds hold it.
    public var floor: String?
    public init(id: String, name: String? = nil, txRef: Double? = nil, point: Point3? = nil, floor: String? = nil) {
        self.id = id; self.name = name; self.txRef = txRef; self.point = point; self.floor = floor
    }
}

/// An identity resolving key: resolvable private addresses made with it map to `irk:<key hex>`
/// (docs/protocol.md#device-ids); `id` is a name for people and logs.
public struct IRKConfig: Sendable, Equatable {
    public var id: String
    /// 16 bytes.
    public var key: [UInt8]
    public init(id: String, key: [UInt8]) { self.id = id; self.key = key }
}

public struct PositioningSettings: Sendable, Equatable {
    /// Path-loss exponent. Setting it (the site file's key, a calibration) makes it stated.
    public var absorption: Double = 2.7 { didSet { absorptionStated = true } }
    /// RSSI at 1 m used when neither the device config nor the frame gives one.
    public var txRefDefault: Double = -59
    /// Smoothing window in seconds.
    public var window: Double = 3
    /// Seconds without readings before a device is `away`.
    public var awayAfter: Double = 120
    /// `state_deadband`: metres a device's position must move (on the floor plan, x and y)
    /// from the state last published for it before its `state` topic is published again;
    /// room, floor, zones, proximity class (with hysteresis), confidence and away publish at once.
    /// 0 publishes every update. Read by the aggregator's publisher only: positions, rooms,
    /// events and tracks do not depend on it.
    public var stateDeadband: Double = 0.25
    /// `state_heartbeat`: seconds after which a device's state is published again even though
    /// nothing in it changed beyond the deadband, so its `t` stays fresh. 0 publishes every update.
    public var stateHeartbeat: Double = 10
    /// `self_calibration`: whether the engine learns receiver offsets and the path-loss
    /// exponent from ordinary traffic (docs/operations.md, Self-calibration).
    public var selfCalibration: SelfCalibrationMode = .learn
    /// Whether `absorption` was stated (set: in the site file, by a calibration applied to it)
    /// rather than left at the default guess: self-calibration learns a stated exponent only
    /// from readings at known distances (anchored devices), never from fixes.
    public var absorptionStated = false
    /// `backfill_horizon`: how far behind the end of a broker outage a reading the edges
    /// buffered is still solved by the aggregator's backfill pass, not refused as late
    /// (docs/operations.md, Outages and bursts). 0 backfills nothing.
    public var backfillHorizon: Double = 600
    public init() {}
}

/// `positioning.self_calibration`: what the engine does with what it learns from traffic.
public enum SelfCalibrationMode: String, Sendable, CaseIterable {
    /// Nothing learned, nothing applied (the site file's parameters as they are).
    case off
    /// Learned from every solve and applied as it is learned.
    case learn
    /// What was learned before (stored) is applied; nothing more is learned.
    case frozen
}

public struct MQTTSettings: Sendable, Equatable {
    public var host: String = "localhost"
    public var port: Int = 1883
    public var username: String?
    public var passwordFile: String?
    public var tls: TLSSettings?
    public var prefix: String = "whereabouts"
    public init() {}
}

public struct TLSSettings: Sendable, Equatable {
    public var ca: String?
    public var cert: String?
    public var key: String?
    public init(ca: String? = nil, cert: String? = nil, key: String? = nil) { self.ca = ca; self.cert = cert; self.key = key }
}

/// The plan's origin on Earth (degrees) and the compass bearing of its +y axis (degrees
/// clockwise from north; 0: +y points north, +x east).
public struct GPSAnchor: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var rotation: Double
    public init(latitude: Double, longitude: Double, rotation: Double = 0) {
        self.latitude = latitude; self.longitude = longitude; self.rotation = rotation
    }
}

public struct StorageSettings: Sendable, Equatable {
    public var path: String = "whereabouts.db"
    /// Seconds track points are kept.
    public var retention: Double = 30 * 86_400
    public init() {}
}
