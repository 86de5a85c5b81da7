/// Which stages a device's readings go through, and which solver fixes them.
///
/// Every locator runs the same engine: smoothing (`Smoothing`), the solver (`Locator`), floor
/// choice (`FloorChoice`), the room decision and zones (`Presence`), holds (`HoldOptions`).
/// What a preset switches beside the solver is listed with it. The baselines stand for other
/// systems and are compared with the default on the same readings, so they keep only what
/// those systems have: a tracker for Nelder–Mead (ESPresense-companion filters its fixes), none
/// for the nearest node (a room-presence system reports the node itself).
public struct Pipeline: Sendable, Equatable {
    /// The solver: observations of one device on one floor → a fix.
    public var locator: LocatorKind
    /// Fixes go through the tracker (`Track`, a Kalman filter), and rooms follow the track;
    /// off, the tracker restarts at every fix, which is then reported as it is.
    public var tracks: Bool
    /// A still device is reported at the mean of its fixes there (`StillAverage`).
    public var stillMean: Bool
    /// A device's reference power is corrected by the mean residual of its fixes (`TxLearning`).
    public var txLearning: Bool
    /// Receiver offsets and the exponent are learned from traffic (`SelfCalibration`), as the
    /// site's `positioning.self_calibration` says; off, the site's parameters are used as they are.
    public var selfCalibration: Bool

    public init(locator: LocatorKind, tracks: Bool, stillMean: Bool, txLearning: Bool, selfCalibration: Bool = false) {
        self.locator = locator
        self.tracks = tracks
        self.stillMean = stillMean
        self.txLearning = txLearning
        self.selfCalibration = selfCalibration
    }

    /// Multilateration with every stage: what the product runs.
    public static let `default` = Pipeline(locator: .default, tracks: true, stillMean: true, txLearning: true, selfCalibration: true)
    /// The strongest node's position, untracked, at the site's reference power.
    public static let nearest = Pipeline(locator: .nearest, tracks: false, stillMean: false, txLearning: false)
    /// ESPresense-companion's solver through the tracker, at the site's reference power.
    public static let nelderMead = Pipeline(locator: .nelderMead, tracks: true, stillMean: false, txLearning: false)
}

extension LocatorKind {
    /// The preset that runs this locator (`Pipeline.default`, `.nearest`, `.nelderMead`).
    public var pipeline: Pipeline {
        switch self {
        case .default: .default
        case .nearest: .nearest
        case .nelderMead: .nelderMead
        }
    }
}
