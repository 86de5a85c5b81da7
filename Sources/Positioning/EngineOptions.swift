/// Engine tuning that the site file does not carry, by stage; the defaults suit people and
/// tags indoors. Each stage's defaults are stated once, in its options struct; the flat
/// names (`holdLimit`, `roomEvidence`, …) read and write the same values
/// (`EngineOptions+Flat.swift`).
public struct EngineOptions: Sendable, Equatable {
    /// Seconds of event time between two solves of one device: two to three advertisements
    /// of a phone, so each solve has fresh samples, and a walker moves under a metre.
    public var updateInterval = 0.5
    /// Readings older than the last `advance` time by more than this are late and dropped:
    /// nodes' clocks and batches may lag that much, and older news would rewind a track.
    public var lateness = 5.0
    /// Height above the floor where devices are usually carried, m: the default locator
    /// holds the height near it (a soft prior), `nil` leaves height free.
    public var deviceHeight: Double? = EngineOptions.usualDeviceHeight
    /// Per-link RSSI smoothing (`Smoothing`).
    public var smoothing = SmoothingOptions()
    /// Which floor's fix is kept (`FloorChoice`).
    public var floorChoice = FloorChoiceOptions()
    /// The motion model (`Track`).
    public var tracker = TrackerOptions()
    /// The mean of a still device's fixes (`StillAverage`).
    public var stillMean = StillMeanOptions()
    /// Keeping a settled device's last fix instead of solving it again (`Engine.mayHold`).
    public var hold = HoldOptions()
    /// The room test (`Presence`).
    public var room = RoomOptions()
    /// Zone enters and exits (`Presence.updateZones`).
    public var zones = ZoneOptions()
    /// Learning a device's real transmit power (`TxLearning`).
    public var transmitPower = TxLearningOptions()
    /// Learning receiver offsets and the exponent from traffic (`SelfCalibration`).
    public var selfCalibration = SelfCalibrationOptions()

    /// A phone in a hand or a pocket, a tag on a lanyard: where the grid search looks when
    /// `deviceHeight` leaves height free, m.
    public static let usualDeviceHeight = 1.2

    public init() {}
}

extension EngineOptions {
    /// A solve stands for at most this many seconds of evidence (the room test, power
    /// learning): after a longer silence the device may be anywhere, and its first fix is news
    /// of where it is now, not of where it was.
    public static let longestSolveGap = 2.0
}
