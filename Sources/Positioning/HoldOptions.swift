/// When a still device's last fix is kept instead of solved again (`Engine.mayHold`).
public struct HoldOptions: Sendable, Equatable {
    /// The longest a fix is held, s: a held device is solved again at least this often, so
    /// that a slow change its levels do not show is still followed. 0 solves every device at
    /// every interval.
    public var limit = 3.0
    /// A held fix is reported as an update (`DeviceUpdate.isHeld`, the last fix again). An
    /// owner that has no use for them turns this off, and the engine does not make them: the
    /// aggregator publishes and stores solved fixes only, and making each held update (its
    /// nearest node, its strings and zones) was about a third of a hold's cost.
    public var reportsHeldFixes = true
    /// The most any node's smoothed level may differ from the last solve's for a hold, dB:
    /// about one advertisement's noise after smoothing; a step of a walker moves more.
    public var levelChange = 2.5
    /// A hold needs the track slower than this, m/s…
    public var speed = 0.15
    /// …and to have stayed within this many metres of one place…
    public var step = 0.5
    /// …for this many seconds (a slow walker's track carries it farther; the tracked speed
    /// alone lags behind a device that starts to walk). 4 s, not 2: someone pacing a small
    /// room turns round slowly in the smoothed track, which at 2 s counted as settled there.
    public var settle = 4.0

    public init() {}
}
