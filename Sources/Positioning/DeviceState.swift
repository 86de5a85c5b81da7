import Wire

/// Everything the engine keeps about one device, indexed densely.
struct DeviceState: Sendable {
    var id: String
    var name: String?
    /// RSSI at 1 m from the site's device list; beats the frame's measured power.
    var configuredTxRef: Double?
    /// Not tracked: matched `exclude_devices` (readings are refused), or is a node's beacon.
    var excluded: Bool
    /// The site node whose own advertisements these are (its `beacon` id), else -1. Such a
    /// device is also `excluded`, so the hot path pays nothing more for telling them apart.
    var beaconOf: Int32 = -1
    /// This device's links in the engine's `LinkStore`, one per node that heard it, with the
    /// node beside each: finding a reading's link then reads this array only, where looking
    /// each link's node up in the store cost a cache miss per link at 10,000 devices.
    var links: [DeviceLink] = []
    var lastReading = -Double.infinity
    /// The measured power of the latest frame that carried one.
    var frameTxRef: Double?
    var isQueued = false
    /// When the next solve falls due, less `updateInterval` (the device's own phase).
    var lastSolve = -Double.infinity
    /// Event time of the last real solve (not a held fix), and what each node heard then.
    var lastFix = -Double.infinity
    var heard: [HeardLevel] = []
    /// Where the track has stayed within `holdStep` of since `anchorSince` (a still device's
    /// noise moves it back and forth; a walker's carries it away, moving the anchor on).
    var anchor = Point2(.infinity, .infinity)
    var anchorSince = Double.infinity
    var track: Track
    var presence = Presence()
    /// Learned correction to the reference power, dB.
    var txOffset = 0.0
    var confidence = 0.0
    /// The last fix's mean robust cost per node (the locator's units; lower fits better).
    var residual = 0.0
    var fixes = 0
    /// Seen since the last away or start.
    var isPresent = false
    /// A forgotten device's slot, waiting for the next new id.
    var isFree = false

    var txRef: Double? { configuredTxRef ?? frameTxRef }

    /// Records a reading at `t` whose frame carried measured power `tx` (if any), and marks
    /// the device queued; returns whether it was queued already (`Engine.record`).
    @inline(__always)
    mutating func heard(tx: Int?, at t: Double) -> Bool {
        if let tx, tx < 0, tx >= -127 { frameTxRef = Double(tx) }
        if t > lastReading { lastReading = t }
        defer { isQueued = true }
        return isQueued
    }
}

/// One of a device's links and the node it is with.
struct DeviceLink: Sendable {
    var node: Int32
    var link: Int32
}

/// Counters of readings the engine refused, by reason.
public struct Rejections: Sendable, Equatable {
    /// The node is not in the site file.
    public var unknownNode = 0
    /// Older than the watermark allows.
    public var late = 0
    /// RSSI outside what a radio reports (-127...-1 dBm).
    public var badRSSI = 0
    /// The device matches `exclude_devices`.
    public var excluded = 0
    /// A new device while `maxDevices` are known.
    public var capacity = 0
    public var total: Int { unknownNode + late + badRSSI + excluded + capacity }
}

/// Why `Engine.ingest` refused a reading.
public enum Rejection: String, Sendable {
    case unknownNode = "unknown_node", late, badRSSI = "bad_rssi", excluded, capacity
}
