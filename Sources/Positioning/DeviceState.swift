import Wire
import SiteModel

/// What the engine keeps about one device beyond `DeviceHot`: what solves read and write.
struct DeviceState: Sendable {
    var id: String
    var name: String?
    /// RSSI at 1 m from the site's device list; beats the frame's measured power.
    var configuredTxRef: Double?
    /// The site node whose own advertisements these are (its `beacon` id), else -1. Such a
    /// device is also `excluded`, so the hot path pays nothing more for telling them apart.
    var beaconOf: Int32 = -1
    /// The device's links after the first `DeviceHot.inlineLinks` (a walking tag's); empty
    /// unless all the inline ones are taken (`appendLink` and `removeLink` keep it so, and
    /// `link(device:at:)` relies on it).
    var moreLinks: [DeviceLink] = []
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
    /// An anchored device's known place (`DeviceConfig.point`) and floor; floor -1 when not anchored.
    var fixedPoint = Point3(0, 0, 0)
    var fixedFloor = -1
    /// Where the device's fix last taught self-calibration (`SelfCalibrationOptions.teachingStep`).
    var taughtAt = Point2(.infinity, .infinity)
    var confidence = 0.0
    /// The last fix's mean robust cost per node (the locator's units; lower fits better).
    var residual = 0.0
    var fixes = 0
    /// Seen since the last away or start.
    var isPresent = false
    /// A forgotten device's slot, waiting for the next new id.
    var isFree = false
}

/// One of a device's links and the node it is with.
struct DeviceLink: Sendable {
    var node: Int32 = -1
    var link: Int32 = -1
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
