/// The motion model of `Track`.
public struct TrackerOptions: Sendable, Equatable {
    /// Process noise of the motion model, (m/s²)²·s: low, as people walk at a steady pace and
    /// a still device's noise should not be followed as motion.
    public var acceleration = 0.05
    /// Fastest the motion model lets a device move, m/s: a brisk walk; a faster track is a
    /// burst of bad readings, not a device.
    public var maxSpeed = 2.5

    public init() {}
}

/// The mean of a still device's fixes (`StillAverage`).
public struct StillMeanOptions: Sendable, Equatable {
    /// The track must have stayed within this many metres of one place…
    public var step = 1.5
    /// …for this many seconds, slower than `speed`, for the mean to be reported; infinite
    /// turns the still mean off.
    public var settle = 4.0
    /// m/s.
    public var speed = 0.15
    /// Time constant of the mean's forgetting, s: ten minutes of a stay count, a move too
    /// small for the change test is followed within a few of them.
    public var memory = 600.0
    /// Distance from the mean (m) that the change test counts against: about the spread of a
    /// still device's track.
    public var away = 0.75
    /// The change test's evidence (m·s) at which the mean restarts: a track 1 m from the mean
    /// restarts it within `alarm / (1 - away)` (12) seconds.
    public var alarm = 3.0

    public init() {}
}
