/// Engine tuning that the site file does not carry; the defaults suit people and tags indoors.
public struct EngineOptions: Sendable, Equatable {
    /// Seconds of event time between two solves of one device.
    public var updateInterval = 0.5
    /// Seconds a new room or zone must keep winning before the device changes to it.
    public var dwell = 2.0
    /// Metres the position must be inside a new room before that room can win.
    public var margin = 0.3
    /// Fixes below this confidence never start or continue a room change.
    public var minimumConfidence = 0.05
    /// Rooms not joined to the current one (by a door, or by touching when no doors are
    /// given) need this many times the dwell: a tracker that lost a device must still recover.
    public var farRoomDwellFactor = 4.0
    /// Fastest the motion model lets a device move, m/s.
    public var maxSpeed = 2.5
    /// Process noise of the motion model, (m/s²)²·s.
    public var acceleration = 0.05
    /// Readings older than the last `advance` time by more than this are late and dropped.
    public var lateness = 5.0
    /// Height above the floor where devices are usually carried, m: the default locator
    /// holds the height near it (a soft prior), `nil` leaves height free.
    public var deviceHeight: Double? = 1.2
    public init() {}
}
