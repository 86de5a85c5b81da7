import Wire
import SiteModel

/// A log-distance model per receiver, in the nodes' order: receiver `j` hears
/// `intercepts[j] - 10·exponents[j]·log10(d)` dBm at `d` metres (3-D, at least 0.1 m).
///
/// The walk oracle's model. A `Calibration` is the special case of one exponent shared by
/// every receiver and `intercepts[j] = txRef - rxAdj[j]`.
public struct ReceiverPathLoss: Sendable, Equatable {
    public var exponents: [Double]
    public var intercepts: [Double]
    /// Per receiver, the standard error of its exponent from its own fit (dB per decade / 10);
    /// 0 where the exponent is shared, not fitted per receiver.
    public var exponentErrors: [Double]

    public init(exponents: [Double], intercepts: [Double], exponentErrors: [Double]? = nil) {
        self.exponents = exponents
        self.intercepts = intercepts
        self.exponentErrors = exponentErrors ?? Array(repeating: 0, count: exponents.count)
    }

    /// The calibration's shared exponent and each node's intercept; a node it did not
    /// calibrate gets `txRef`, as `Calibration.applied(to:)` gives it `rx_adj` 0.
    public init(_ calibration: Calibration, nodes: [Node]) {
        self.init(exponents: Array(repeating: calibration.absorption, count: nodes.count),
                  intercepts: nodes.map { calibration.txRef - (calibration.rxAdj[$0.name] ?? 0) })
    }

    /// Each receiver's own exponent and intercept, fitted by plain least squares on its readings
    /// (negative RSSI only) at the beacon's true positions: `rssi = b - 10·n·log10(d)`.
    /// A receiver with fewer than three readings, or whose readings all come from one distance,
    /// has no fit: exponent and intercept NaN (the oracle leaves it out). `nil` when no
    /// receiver has a fit.
    public static func fitPerReceiver(walks: [Walk], nodes: [Node]) -> ReceiverPathLoss? {
        var sums = Array(repeating: LineSums(), count: nodes.count)
        var index: [String: Int] = [:]
        for (i, n) in nodes.enumerated() where index[n.name] == nil { index[n.name] = i }
        for walk in walks {
            for item in walk.readings {
                guard let j = index[item.node], item.reading.rssi < 0, let truth = walk.truth(at: item.reading.t) else { continue }
                let d = max(distance(truth, nodes[j].point), 0.1)
                sums[j].add(x: -10 * Elementary.log10(d), y: Double(item.reading.rssi))
            }
        }
        let lines = sums.map { $0.line() }
        guard lines.contains(where: { $0 != nil }) else { return nil }
        return ReceiverPathLoss(exponents: lines.map { $0?.slope ?? .nan }, intercepts: lines.map { $0?.intercept ?? .nan },
                                exponentErrors: lines.map { $0?.slopeError ?? .infinity })
    }
}

/// Running sums for a straight line `y = intercept + slope·x` by least squares.
struct LineSums {
    private var count = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0

    mutating func add(x: Double, y: Double) {
        count += 1; sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y
    }

    /// The fitted line and its slope's standard error; `nil` with fewer than three points or
    /// no spread in `x` (the slope is then undetermined).
    func line() -> (slope: Double, intercept: Double, slopeError: Double)? {
        guard count >= 3 else { return nil }
        let mx = sx / count, my = sy / count
        let spreadX = sxx - count * mx * mx, covariance = sxy - count * mx * my, spreadY = syy - count * my * my
        // Relative to the x values' size: sums of squares cancel to rounding noise when every x is alike.
        guard spreadX > 1e-9 * max(sxx, 1) else { return nil }
        let slope = covariance / spreadX
        let residual = max(spreadY - slope * covariance, 0)
        return (slope, my - slope * mx, (residual / (count - 2) / spreadX).squareRoot())
    }
}
