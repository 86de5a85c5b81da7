import Wire
import SiteModel

/// One moment of a real walk as the oracle sees it: each receiver's mean RSSI over a window
/// (centred on the moment, or trailing it: `WalkOracle.moments(of:lag:width:)`), and where the
/// beacon truly was at the moment.
public struct WalkMoment: Sendable {
    public var t: Double
    /// The true position at `t` (interpolated between the walk's samples).
    public var truth: Point3
    /// Per receiver, in the nodes' order: the mean RSSI of its readings in the window, and how
    /// many there were (0: not heard; its mean is then 0 and unused).
    public var means: [Double]
    public var counts: [Int]
}

/// One way the oracle fits a moment: its model (a per-receiver path loss and, optionally, a
/// reference power free per moment: a common shift of every receiver's intercept, fitted with
/// the position, which absorbs whatever moves every receiver alike, such as the carrier's
/// body), the receivers it uses (at least `minimumReadings` readings in the window), and
/// whether each receiver's mean weighs by its count (the maximum likelihood under independent
/// Gaussian errors per reading) or all alike. Two of the oracle's hindsights can be taken
/// away, to measure what each is worth: the window can trail the moment by `lag` seconds (1.5:
/// the 3 s before it, as the engine's window), and the height can be a fixed `height` instead
/// of the beacon's true height. The window's `width` can differ from the oracle's, on the
/// same moments, to see what the engine's choice of window is worth.
public struct WalkOracleVariant: Sendable {
    public var model: ReceiverPathLoss
    public var freeReference: Bool
    public var minimumReadings: Int
    public var weighted: Bool
    public var lag: Double
    /// Metres above the floor's 0; `nil`: the beacon's true height at the moment.
    public var height: Double?
    /// Seconds of readings each mean is over; `nil`: the oracle's `window`.
    public var width: Double?

    public init(model: ReceiverPathLoss, freeReference: Bool = false, minimumReadings: Int = 1, weighted: Bool = true,
                lag: Double = 0, height: Double? = nil, width: Double? = nil) {
        self.model = model; self.freeReference = freeReference
        self.minimumReadings = minimumReadings; self.weighted = weighted
        self.lag = lag; self.height = height; self.width = width
    }

    /// The fewest receivers that determine the fix: with the reference power free, three (with
    /// two, every point where their difference fits fits exactly, and the search would return
    /// whichever grid point it met first).
    var fewestReceivers: Int { freeReference ? 3 : 1 }
}

/// The best a one-moment fit of the log-distance model could do on a real walk, with
/// hindsight: no lag, no tracker, the beacon's true height known.
///
/// At each whole `period` from `window / 2` after the walk's first reading to `window / 2`
/// before its last (so every window lies inside the recording), each receiver's mean RSSI over
/// the readings within ±`window / 2` of that moment; the receivers heard there (as the variant
/// asks, `WalkOracleVariant`); the least-squares 2-D position on their means under the
/// variant's model at the beacon's true height, within the floor's bounds:
/// a global search over a grid of `gridStep` metres, then a compass search from the best
/// distinct grid points (`WalkOracleSearch`). A moment with no receiver
/// gets the floor's centre; one with receivers, but fewer than the variant's
/// `fewestReceivers`, no fix (left out of the variant's errors).
public struct WalkOracle: Sendable {
    public var window: Double = 3
    public var period: Double = 1
    public let nodes: [Node]
    let grid: WalkOracleGrid

    /// An oracle for `nodes` over a floor's `bounds`, searching a grid of `gridStep` metres.
    public init(nodes: [Node], bounds: (min: Point2, max: Point2), gridStep: Double = 0.1) {
        self.nodes = nodes
        grid = WalkOracleGrid(bounds: bounds, step: gridStep, nodes: nodes)
    }

    /// The walk's moments, by the rule above, each receiver's mean over `width` seconds of
    /// readings (the oracle's `window` unless given) centred `lag` seconds before the moment
    /// (the moments' times and truth stay whatever the width and lag; a trailing window at the
    /// first moments holds less than its width of readings). Readings with a non-negative RSSI
    /// are left out, as the calibration leaves them out.
    public func moments(of walk: Walk, lag: Double = 0, width: Double? = nil) -> [WalkMoment] {
        guard let first = walk.readings.first?.reading.t, let last = walk.readings.last?.reading.t,
              period > 0, window > 0 else { return [] }
        var index: [String: Int] = [:]
        for (i, n) in nodes.enumerated() where index[n.name] == nil { index[n.name] = i }
        let half = window / 2, reach = (width ?? window) / 2
        var out: [WalkMoment] = []
        var start = 0
        var t = first + half
        while t + half <= last {
            let centre = t - lag
            while start < walk.readings.count, walk.readings[start].reading.t < centre - reach { start += 1 }
            var sums = Array(repeating: 0.0, count: nodes.count), counts = Array(repeating: 0, count: nodes.count)
            var i = start
            while i < walk.readings.count, walk.readings[i].reading.t <= centre + reach {
                let item = walk.readings[i]
                if let j = index[item.node], item.reading.rssi < 0 { sums[j] += Double(item.reading.rssi); counts[j] += 1 }
                i += 1
            }
            if let truth = walk.truth(at: t) {
                out.append(WalkMoment(t: t, truth: truth, means: zip(sums, counts).map { $1 > 0 ? $0 / Double($1) : 0 },
                                      counts: counts))
            }
            t += period
        }
        return out
    }

    /// The receivers a variant's fix at `moment` uses: heard often enough, and with a model (a
    /// moment or model made for fewer receivers than the oracle's has none for the rest).
    func used(_ moment: WalkMoment, _ variant: WalkOracleVariant) -> [Int] {
        let model = variant.model
        let known = min(nodes.count, moment.counts.count, moment.means.count, model.exponents.count, model.intercepts.count)
        return (0..<known).filter { j in
            moment.counts[j] >= max(variant.minimumReadings, 1) && model.exponents[j].isFinite && model.intercepts[j].isFinite
        }
    }

    /// Each variant's fix at `moment`, in the order given; `nil` where the variant has too few
    /// receivers there (the rule above). (A variant's `lag` and `width` are the moment's
    /// business, `moments(of:lag:width:)`; here they are ignored.)
    public func fixes(_ moment: WalkMoment, variants: [WalkOracleVariant]) -> [Point2?] {
        // One search per height: its table serves every variant at that height.
        var searches: [UInt64: WalkOracleSearch] = [:]
        return variants.map { variant in
            let receivers = used(moment, variant)
            guard receivers.isEmpty || receivers.count >= variant.fewestReceivers else { return nil }
            let z = variant.height ?? moment.truth.z
            var search = searches[z.bitPattern] ?? WalkOracleSearch(oracle: self, z: z)
            defer { searches[z.bitPattern] = search }
            return search.fix(WalkOracleSearch.Terms(moment: moment, variant: variant, receivers: receivers))
        }
    }

    /// Per variant, the 2-D error of its fix at every moment of `walk` where it has one (each
    /// variant's window as its `lag` and `width` say, the truth at the moment), and how many
    /// moments it had none.
    public func errors(on walk: Walk, variants: [WalkOracleVariant]) -> [(errors: [Double], unfixed: Int)] {
        var out = Array(repeating: (errors: [Double](), unfixed: 0), count: variants.count)
        let windows = variants.map { [$0.lag, $0.width ?? window] }
        for key in Set(windows) {
            let chosen = variants.indices.filter { windows[$0] == key }
            for moment in moments(of: walk, lag: key[0], width: key[1]) {
                for (v, fix) in zip(chosen, fixes(moment, variants: chosen.map { variants[$0] })) {
                    guard let fix else { out[v].unfixed += 1; continue }
                    let dx = fix.x - moment.truth.x, dy = fix.y - moment.truth.y
                    out[v].errors.append((dx * dx + dy * dy).squareRoot())
                }
            }
        }
        return out
    }
}

/// A locator's error at each of the oracle's moments, to compare the two on the same moments:
/// its last update at or before the moment against the truth at the moment (`nil` before its
/// first update). `output`'s updates are in time order, as a replay gives them.
public func errors(of output: ReplayOutput, at moments: [WalkMoment]) -> [Double?] {
    var next = 0
    var last: DeviceUpdate?
    return moments.map { moment in
        while next < output.updates.count, output.updates[next].t <= moment.t { last = output.updates[next]; next += 1 }
        guard let u = last else { return nil }
        let dx = u.x - moment.truth.x, dy = u.y - moment.truth.y
        return (dx * dx + dy * dy).squareRoot()
    }
}
