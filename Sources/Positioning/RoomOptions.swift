/// The room test's tuning (`Presence`): a CUSUM of how much deeper the position lies in
/// another room than in the current one.
public struct RoomOptions: Sendable, Equatable {
    /// Evidence (m·s) another room must gather before the device moves to it: each second
    /// adds how much deeper the position is in that room than in the current one, less
    /// `drift`, and the sum never goes below zero. A walk through a door gathers it in about
    /// two seconds.
    public var evidence = 2.0
    /// Metres subtracted from each second's evidence, so that a position hovering on a wall
    /// gathers none.
    public var drift = 0.7
    /// The most one second of evidence may add or take away, m: a fix deep in a far room is
    /// a bad fix more often than a fast walk.
    public var step = 1.0
    /// Fixes at or above this confidence count fully towards a room change; weaker ones less.
    public var fullConfidence = 0.3
    /// Evidence per second (m) for a room whose node hears the device `heardScale` dB louder
    /// than the current room's node does (and against it when quieter), in proportion below
    /// that: what a nearest-node system would say, as one voice among the fix's.
    public var heardStep = 1.5
    public var heardScale = 10.0
    /// The first room after a start or an away needs this many solves in a row naming it…
    public var firstRoomSolves = 3
    /// …or one fix at least this confident.
    public var firstRoomConfidence = 0.5
    /// Fixes below this confidence never start or continue a room change: they are noise.
    public var minimumConfidence = 0.05
    /// Rooms not joined to the current one (by a door, or by touching when no doors are
    /// given) need this many times the evidence: a tracker that lost a device must still recover.
    public var farRoomFactor = 4.0
    /// The room posterior (`RoomPosterior`): the probabilities every update publishes, and,
    /// when `posterior.decides`, the published room.
    public var posterior = RoomPosteriorOptions()

    public init() {}
}

/// Zone enters and exits (`Presence.updateZones`).
public struct ZoneOptions: Sendable, Equatable {
    /// Seconds a zone must stay clearly entered (or left) before the device changes it: a
    /// fix's noise near the edge lasts a solve or two.
    public var dwell = 2.0
    /// Metres from a zone's edge that count as clearly inside or outside: about a still
    /// device's spread of fixes.
    public var margin = 0.3
    /// A small zone's margin is at most this share of its size (√area): a wider one would
    /// leave no inside.
    public var smallZoneMargin = 0.25

    public init() {}
}
