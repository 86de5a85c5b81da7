/// Engine tuning that the site file does not carry; the defaults suit people and tags indoors.
public struct EngineOptions: Sendable, Equatable {
    /// Seconds of event time between two solves of one device.
    public var updateInterval = 0.5
    /// A device that is still, settled in its room, and heard at the same levels by the same
    /// nodes as at its last solve is not solved again for up to this many seconds: its last fix
    /// is held (`DeviceUpdate.isHeld`). 0 solves every device at every interval.
    public var holdLimit = 3.0
    /// A held fix is reported as an update (`DeviceUpdate.isHeld`, the last fix again). An
    /// owner that has no use for them turns this off, and the engine does not make them: the
    /// aggregator publishes and stores solved fixes only, and making each held update (its
    /// nearest node, its strings and zones) was about a third of a hold's cost.
    public var reportsHeldFixes = true
    /// The most any node's smoothed level may differ from the last solve's for a hold, dB.
    public var holdLevelChange = 2.5
    /// A hold needs the track slower than this, m/s…
    public var holdSpeed = 0.15
    /// …and to have stayed within this many metres of one place…
    public var holdStep = 0.5
    /// …for this many seconds (a slow walker's track carries it farther; the tracked speed
    /// alone lags behind a device that starts to walk). 4 s, not 2: someone pacing a small
    /// room turns round slowly in the smoothed track, which at 2 s counted as settled there.
    public var holdSettle = 4.0
    /// Seconds a zone must stay clearly entered (or left) before the device changes it.
    public var dwell = 2.0
    /// Metres from a zone's edge that count as clearly inside or outside.
    public var margin = 0.3
    /// Evidence (m·s) another room must gather before the device moves to it: each second
    /// adds how much deeper the position is in that room than in the current one, less
    /// `roomDrift`, and the sum never goes below zero.
    public var roomEvidence = 2.0
    /// Metres subtracted from each second's evidence, so that a position hovering on a wall
    /// gathers none.
    public var roomDrift = 0.7
    /// The most one second of evidence may add or take away, m.
    public var roomStep = 1.0
    /// Fixes at or above this confidence count fully towards a room change; weaker ones less.
    public var roomConfidence = 0.3
    /// Evidence per second (m) for a room whose node hears the device `heardScale` dB louder
    /// than the current room's node does (and against it when quieter), in proportion below that.
    public var heardStep = 1.5
    public var heardScale = 10.0
    /// The first room after a start or an away needs this many solves in a row naming it…
    public var firstRoomSolves = 3
    /// …or one fix at least this confident.
    public var firstRoomConfidence = 0.5
    /// Seconds over which a device's reference power is corrected by the mean residual of
    /// its fixes; 0 turns the learning off.
    public var txLearning = 120.0
    /// The most the learned correction may reach, dB.
    public var txOffsetLimit = 8.0
    /// Fixes below this confidence never start or continue a room change.
    public var minimumConfidence = 0.05
    /// Rooms not joined to the current one (by a door, or by touching when no doors are
    /// given) need this many times the evidence: a tracker that lost a device must still recover.
    public var farRoomDwellFactor = 4.0
    /// Fastest the motion model lets a device move, m/s.
    public var maxSpeed = 2.5
    /// Process noise of the motion model, (m/s²)²·s.
    public var acceleration = 0.05
    /// The default locator reports a device whose track has stayed within `stillStep` metres of
    /// one place for `stillSettle` seconds, slower than `stillSpeed` m/s, at the mean of its
    /// fixes there (`StillAverage`); its room still follows the track. An infinite `stillSettle`
    /// turns that off.
    public var stillStep = 1.5
    public var stillSettle = 4.0
    public var stillSpeed = 0.15
    /// Readings older than the last `advance` time by more than this are late and dropped.
    public var lateness = 5.0
    /// Height above the floor where devices are usually carried, m: the default locator
    /// holds the height near it (a soft prior), `nil` leaves height free.
    public var deviceHeight: Double? = 1.2
    public init() {}
}
