import BLE
import Wire
import SiteModel

/// What happens in a simulated site: who moves where, for how long, and how hard the radio
/// channel is. Read from a scenario file (YAML) by `Scenario.decode`.
public struct Scenario: Sendable {
    /// Every random draw follows from it: the same seed gives the same bytes.
    public var seed: UInt64 = 1
    /// Seconds simulated.
    public var duration: Double = 600
    /// Unix seconds at the start (a whole number of seconds keeps batch windows aligned).
    public var start: Double = 1_764_410_000
    public var effects = ChannelEffects()
    /// Per-node settings that override the random draws.
    public var nodes: [NodeSetting] = []
    public var devices: [DeviceSpec] = []
    /// When set, every site node with a `beacon` id advertises it from where it stands, so
    /// the readings carry node-to-node links to calibrate from (`whereabouts calibrate`).
    public var nodeBeacons: NodeBeacons?
    public init() {}
}

/// How simulated nodes beacon: all alike, as one firmware setting would make them.
public struct NodeBeacons: Sendable, Equatable {
    public var interval: Double = 1
    /// The measured power at 1 m the frame announces (each node sends it give or take `txErrorSD`).
    public var txPower: Int = -59
    public var line: Int = 0
    public init(interval: Double = 1, txPower: Int = -59, line: Int = 0) {
        self.interval = interval; self.txPower = txPower; self.line = line
    }
}

/// The radio channel's impairments. Every one can be turned off (set to 0) to study the others.
public struct ChannelEffects: Sendable, Equatable {
    /// Path-loss exponent; `nil` takes the site's `positioning.absorption`.
    public var pathLossExponent: Double?
    /// Log-normal shadowing: standard deviation (dB) and correlation distance (m).
    public var shadowingSD: Double = 4
    public var shadowingCorrelation: Double = 2
    /// Rician K factor (linear; 0 is Rayleigh); `nil` turns per-packet fading off.
    public var ricianK: Double? = 2
    /// dB lost through the carrier's body when the node is straight behind them.
    public var bodyLoss: Double = 6
    /// dB per floor between device and node.
    public var floorLoss: Double = 15
    /// Standard deviation (dB) of each node's receiver offset and each device's transmit error.
    public var rxOffsetSD: Double = 2
    public var txErrorSD: Double = 1
    /// Packet loss: `base + (1 - base) / (1 + e^((mean - mid) / width))` of the mean RSSI.
    public var lossBase: Double = 0.1
    public var lossMidRSSI: Double = -95
    public var lossWidth: Double = 3
    /// Weaker packets are not heard at all (dBm).
    public var sensitivity: Double = -100
    /// Node clocks: offset standard deviation (s) and drift standard deviation (ppm).
    public var clockOffsetSD: Double = 0.05
    public var clockDriftPPM: Double = 20
    /// A wall crossed within half this of a door lets the signal through unattenuated (m).
    public var doorWidth: Double = 0.9
    /// The edge's batch interval and size (SPEC §2).
    public var batchInterval: Double = 0.25
    public var batchMax: Int = 200
    public init() {}
}

/// A node's hidden truths, given instead of drawn.
public struct NodeSetting: Sendable, Equatable {
    public var name: String
    public var rxOffset: Double?
    public var clockOffset: Double?
    public var clockDriftPPM: Double?
    public var line: Int
    public init(name: String, rxOffset: Double? = nil, clockOffset: Double? = nil, clockDriftPPM: Double? = nil, line: Int = 0) {
        self.name = name; self.rxOffset = rxOffset; self.clockOffset = clockOffset; self.clockDriftPPM = clockDriftPPM; self.line = line
    }
}

/// What a device advertises as.
public enum AdvertiserKind: Sendable, Equatable {
    /// An iBeacon: `uuid` 16 bytes, network order.
    case iBeacon(uuid: [UInt8], major: UInt16, minor: UInt16)
    /// A phone on a resolvable private address rotated every `rotation` seconds; `irk` `nil`
    /// takes the site's key of that name, else one drawn from the seed. The name also names
    /// its random streams, so renaming a phone, not rekeying it, changes its draws.
    case phone(name: String, irk: IdentityResolvingKey?, rotation: Double)
    /// A device on a fixed public address.
    case mac(BluetoothAddress)
}

/// One simulated device: what it sends, how often, and where it goes.
public struct DeviceSpec: Sendable {
    public var kind: AdvertiserKind
    /// Measured power at 1 m (dBm) the frame announces and, give or take `txErrorSD`, sends.
    public var txPower: Int = -59
    /// Advertising interval and the random delay added to each (BLE's advDelay is 0–10 ms).
    public var interval: Double = 0.1
    public var jitter: Double = 0.01
    /// Walking speed (m/s) and the height it is carried at above the floor (m).
    public var speed: Double = 1.2
    public var height: Double = 1.0
    /// `nil` takes the scenario's `bodyLoss`; 0 for a device nobody carries.
    public var bodyLoss: Double?
    public var path: [PathStep] = []
    /// Start the path again when it ends, instead of staying at its last point.
    public var loop = false
    /// The site node (index) whose own beacon this is; it does not hear itself.
    public var beaconOf: Int?
    /// Where the device was written, for problems found later.
    public var line: Int = 0
    public var key: String = ""

    public init(kind: AdvertiserKind) { self.kind = kind }

    /// The id readings carry (SPEC §1): a phone's is `irk:<key hex>`. A phone whose key comes
    /// from the site is `irk:<name>` only until `Simulation.prepare` puts the key in.
    public var id: String {
        switch kind {
        case let .iBeacon(uuid, major, minor): "iBeacon:\(Self.dashedUUID(uuid))-\(major)-\(minor)"
        case let .phone(name, irk, _): "irk:\(irk?.hex ?? name)"
        case let .mac(address): "mac:\(address)"
        }
    }

    /// What its random streams are named after: its id, but a phone's name, so that a phone
    /// draws the same whether its key is written in the scenario or taken from the site.
    var streamLabel: String {
        if case let .phone(name, _, _) = kind { return "irk:\(name)" }
        return id
    }

    public var readingKind: ReadingKind {
        switch kind {
        case .iBeacon: .ibeacon
        case .phone: .irk
        case .mac: .mac
        }
    }

    static func dashedUUID(_ bytes: [UInt8]) -> String {
        let hex = Array(hexString(bytes))
        var out = ""
        for (i, c) in hex.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append("-") }
            out.append(c)
        }
        return out
    }
}

/// One step of a device's path.
public struct PathStep: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Walk to `point` (on `floor`, else the current floor) through doors, then stay `dwell` s.
        case waypoint(Point2, floor: String?, dwell: Double)
        /// Wander between random points of a room for `duration` s.
        case randomWalk(room: String, duration: Double)
        /// Stay where it is for `duration` s.
        case still(Double)
        /// Leave the site (no advertisement is heard) for `duration` s, then come back where it left.
        case away(Double)
    }
    public var action: Action
    public var line: Int
    public var key: String
    public init(_ action: Action, line: Int = 0, key: String = "") { self.action = action; self.line = line; self.key = key }
}
