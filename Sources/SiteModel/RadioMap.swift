/// A radio map: per node and floor, how much louder (+) or quieter (−) than the path-loss model
/// the node heard a surveyed device at each survey point, after the calibration's absorption,
/// `rx_adj` and `tx_ref` were fitted. Walls and multipath the site file does not describe show
/// up there; the engine adds the map's correction to the RSSI it expects of a device at a place.
///
/// Between survey points the correction is a kernel-weighted mean of the points' residuals
/// (Gaussian, width `bandwidth`), pulled toward 0 — the model itself — by `prior`, a weight
/// every place has: where the survey went the map says what it heard, away from it the model
/// stands. The points are the file's (CAL.yaml's `radio_map`, docs/operations.md, Measure your
/// own site); the engine computes the correction (`RadioMap.correction`, Positioning) and
/// tabulates it on a grid once (`RadioMapGrid`).
public struct RadioMap: Sendable, Equatable {
    /// One survey point's residual (dB, measured minus modelled) and its weight (0...1: more
    /// readings, up to a point, say more).
    public struct Point: Sendable, Equatable {
        public var x: Double, y: Double
        public var residual: Double
        public var weight: Double
        public init(x: Double, y: Double, residual: Double, weight: Double) {
            self.x = x; self.y = y; self.residual = residual; self.weight = weight
        }
    }

    /// One node's points on one floor.
    public struct Layer: Sendable, Equatable {
        public var node: String
        public var floor: String
        public var points: [Point]
        public init(node: String, floor: String, points: [Point]) { self.node = node; self.floor = floor; self.points = points }
    }

    /// The kernel's width (m, one standard deviation).
    public var bandwidth: Double
    /// The model's own weight at every place, in point weights.
    public var prior: Double
    /// The largest correction either way (dB): one odd point cannot move the model further.
    public var limit: Double
    public var layers: [Layer]

    public init(bandwidth: Double, prior: Double, limit: Double, layers: [Layer] = []) {
        self.bandwidth = bandwidth; self.prior = prior; self.limit = limit; self.layers = layers
    }
}
