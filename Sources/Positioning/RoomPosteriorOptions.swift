/// The room posterior's tuning (`RoomPosterior`): what each solve's evidence counts for, the
/// dwell prior and door transitions, and the probability a room change needs.
public struct RoomPosteriorOptions: Sendable, Equatable {
    /// Whether the posterior decides the published room (else the sequential test of
    /// `RoomOptions` does, and the posterior only publishes probabilities).
    public var decides = false
    /// Seconds of solves that count as one independent look: successive fixes share most of
    /// their readings (the window, the tracker), so each solve's evidence is weighed by the
    /// seconds it stands for over this.
    public var memory = 1.0
    /// The least spread (m, one standard deviation) a fix is taken to have, whatever its
    /// covariance says: the locators' covariances are those of the noise, not of the model's errors.
    public var spreadFloor = 0.8
    /// Metres either side of a room's outline within which a fix says nothing of the side: the
    /// part of a fix's error that lasts (a wall's loss, a body) and that no averaging over time
    /// removes, taken as uniform over this band. A still device on a wall then gathers nothing.
    public var wallBand = 0.3
    /// How much of the fix's own spread (its covariance) counts, on top of `spreadFloor`.
    public var spreadShare = 0.3
    /// The log-likelihood a fix far outside a room costs it at most: a fix deep in a far room is
    /// a bad fix more often than a fast walk.
    public var farLogLikelihood = -4.0
    /// Per second, the chance of leaving the room through one of its doors (the dwell prior).
    public var leaveRate = 0.05
    /// Per second, the chance of turning up anywhere (a tracker that lost the device must still
    /// recover); and the same when a fix on another floor won a contest of floors (the stairs).
    public var jumpRate = 0.001
    public var floorJumpRate = 0.05
    /// Log-likelihood (per `memory` seconds) for a room whose node hears the device `heardScale`
    /// dB louder than the rooms' nodes do on average (and against it when quieter), in
    /// proportion below that: what a nearest-node system would say, as one voice among the fix's.
    public var heardWeight = 2.0
    public var heardScale = 10.0
    /// Fixes at or above this confidence count fully; weaker ones less.
    public var fullConfidence = 0.3
    /// Fixes below this confidence say nothing of the room: they are noise.
    public var minimumConfidence = 0.05
    /// The probability another room (or `away`) must reach before the device's room changes to it.
    public var enter = 0.8

    public init() {}
}

