import Wire
import SiteModel

/// A calibration from what the nodes heard of each other's beacons: every link joins two
/// known points, so it is a reading at a known distance, with the site's walls between.
///
/// The model is the engine's (`PathLoss` with walls, `SiteGeometry.wallLoss`): node `j`
/// hearing node `i`'s beacon reads `rssi + rx_adj_j = tx_i + c - 10·n·log10(d) - walls`, where
/// `tx_i` is the power the beacon announces (else the site's `tx_ref`) and `c` a level common
/// to every beacon. Each link gives one row, its median RSSI (fading averages out; each link's
/// shadowing does not, so links, not readings, are what count). Fitted are `n` (`absorption`)
/// and one intercept per receiving node. Only differences between receivers are in the data:
/// adding a constant to every `rx_adj` and to `c` explains the links as well. The gauge is
/// mean `rx_adj` 0 over the nodes fitted (as `Calibration.fit(walks:)`), so the devices' own
/// `tx_ref` keeps its meaning on average; `c` is reported as `beaconLevel`, the beacons' level
/// relative to what they announce (about 0 dB), which is no `tx_ref`: this is not a
/// `Calibration` (whose `txRef` is absolute dBm at 1 m), and `applied(to:)` leaves the site's
/// `tx_ref` alone.
///
/// A receiver's intercept is its own, so a node hearing one link fits it exactly (residual 0,
/// nothing to check it against): a node's `rx_adj` is fitted only from `minimumLinksIn` links
/// or more. Fewer, and the node is left out of the fit and listed in `uncalibrated`.
public struct NodeBeaconCalibration: Sendable {
    public struct Link: Sendable, Equatable {
        public var from: String, to: String
        public var readings: Int
        public var medianRSSI: Double
        public var distance: Double
        public var walls: Double
        /// Measured minus modelled, dB, after the fit (positive: louder than the model).
        public var residual: Double
        /// The robust step's weight (1: fully used).
        public var weight: Double
    }

    /// The fitted path-loss exponent (the site's `absorption`).
    public var absorption: Double
    /// dB the beacons are heard above (positive) the power they announce, on average: not a `tx_ref`.
    public var beaconLevel: Double
    /// Node name → fitted `rx_adj`, for the nodes calibrated (mean 0 over them).
    public var rxAdj: [String: Double]
    /// Nodes whose `rx_adj` was not fitted: they heard fewer than `minimumLinksIn` links (site order).
    public var uncalibrated: [String]
    public var links: [Link]
    /// Links left out: too few readings to trust their median, or between nodes sharing no
    /// floor (the engine models no floor loss), or heard by a node hearing fewer than
    /// `minimumLinksIn` (`links(of:)` of an uncalibrated node are empty inbound).
    public var fewReadings: Int
    public var acrossFloors: Int
    public var fewLinksIn: Int
    /// The links' spread (robust SD, dB) the prior was weighed against: the plain robust fit's,
    /// estimated once, before the prior.
    public var linkSpread: Double
    /// The prior's weight λ = (`linkSpread` / receivers' spread)², as many links' worth as it
    /// holds each `rx_adj` toward 0 with; 0 for a plain fit.
    public var priorWeight: Double

    /// A link heard fewer times is left out: near the sensitivity only the luckiest packets
    /// are heard at all, so its median is too loud.
    public static let minimumReadings = 10
    /// A node's `rx_adj` is fitted from this many inbound links or more: one would fit exactly.
    public static let minimumLinksIn = 2

    /// The links `node` heard (`inbound`) and those its beacon was heard on (`outbound`).
    public func links(of node: String) -> (inbound: [Link], outbound: [Link]) {
        (links.filter { $0.to == node }, links.filter { $0.from == node })
    }

    /// The site with the fitted absorption and the calibrated nodes' `rx_adj`; the others' and
    /// the devices' `tx_ref` stay as they were.
    public func applied(to site: Site) -> Site {
        var site = site
        site.positioning.absorption = absorption
        for i in site.nodes.indices {
            if let adj = rxAdj[site.nodes[i].name] { site.nodes[i].rxAdj = adj }
        }
        return site
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noBeacons
        case notHearing([String])
        case tooFewLinks(have: Int, need: Int)
        case distancesAlike
        case absorptionOutOfRange(Double)

        public var description: String {
            switch self {
            case .noBeacons:
                "no node beacons configured: give each advertising node the id of its advertisements (nodes[].beacon)"
            case .notHearing(let names) where names.count == 1:
                "node \(names[0]) heard no other node's beacon \(NodeBeaconCalibration.minimumReadings) times "
                    + "(on a floor it shares): its rx_adj cannot be fitted; make more nodes beacon, or check the node"
            case .notHearing(let names):
                "nodes \(names.joined(separator: ", ")) heard no other node's beacon \(NodeBeaconCalibration.minimumReadings) times "
                    + "(on a floor they share): their rx_adj cannot be fitted; make more nodes beacon, or check the nodes"
            case .tooFewLinks(let have, let need):
                "too few links: \(have) node-to-node links heard, \(need) needed for the absorption and one rx_adj per node "
                    + "(a node's rx_adj is fitted from \(NodeBeaconCalibration.minimumLinksIn) links it heard or more)"
            case .distancesAlike:
                "the links' distances are too alike to tell the absorption from the offsets"
            case .absorptionOutOfRange(let n):
                "the fitted absorption \(n) is outside 1...6: the links do not fit the model (walls missing from the site?)"
            }
        }
    }

    /// Huber's constant (in robust standard deviations): links further off weigh less.
    static let huber = 1.345
    static let robustSteps = 10

    /// The spread (standard deviation, dB) of receivers' offsets around their mean that a fit
    /// assumes before it sees a link: BLE adapters and antennas of one kind differ by about
    /// this much. Each `rx_adj` is held toward 0 by it, as a prior: a node that hears few links,
    /// each off by the shadowing at the sender (4 dB and more indoors), gets an `rx_adj` shrunk
    /// toward 0 by as much as its links leave in doubt, where a plain least-squares fit would
    /// follow those links' shadowing and could end further from the truth than 0 is.
    public static let receiverSpread = 2.0

    /// The prior's weight at most, in links' worth: a node's offset is then held at 10⁻⁶ of its
    /// plain fit's per link, 0 to any precision printed. Not a statistical limit but a numeric
    /// one: a receivers' spread near 0 (10⁻³⁰⁰ dB) would make the weight overflow to infinity and
    /// the fit NaN, and a weight beyond ~10⁸ drowns the links' terms in the normal equations.
    static let maximumPriorWeight = 1e6

    /// Fits the site from `links` (an engine's `beaconLinks`, node indices in `site.nodes` order),
    /// each `rx_adj` held toward 0 by a prior of `receiverSpread` dB (nil, 0 or less, or not
    /// finite: plain least squares, no prior).
    public static func fit(site: Site, links: NodeBeaconLinks,
                           receiverSpread: Double? = NodeBeaconCalibration.receiverSpread) -> Result<NodeBeaconCalibration, Failure> {
        fit(site: site, links: links, robustSteps: robustSteps, receiverSpread: receiverSpread)
    }

    /// `linkSpread` (dB) fixes the links' spread the prior is weighed against; nil (or no
    /// spread: negative, NaN, infinite) takes the plain robust fit's scale. The absorption's range
    /// is judged on the fit returned: with a prior, on the prior's fit.
    static func fit(site: Site, links: NodeBeaconLinks, robustSteps: Int, receiverSpread: Double? = nil,
                    linkSpread: Double? = nil) -> Result<NodeBeaconCalibration, Failure> {
        guard site.nodes.contains(where: { $0.beacon != nil }) else { return .failure(.noBeacons) }
        let problem: LinkRows
        switch LinkRows.make(site: site, links: links) {
        case .failure(let failure): return .failure(failure)
        case .success(let rows): problem = rows
        }
        // Empirical Bayes, in its usual order: the links' spread from the fit without the prior,
        // then the prior at that fixed weight. Re-estimated from the fit with the prior, the
        // spread would feed on itself: the part of each offset the prior shrinks away lands in
        // the residuals, raising the spread, the weight, and the shrinking.
        guard let plain = problem.robustFit(prior: 0, steps: robustSteps) else { return .failure(.distancesAlike) }
        // A given spread that is no spread (negative, NaN, infinite) is ignored, as a receivers' one is.
        let spread = linkSpread.flatMap { $0 >= 0 && $0.isFinite ? $0 : nil } ?? plain.scale
        var fit = plain, weight = 0.0
        if let receivers = receiverSpread, receivers > 0, receivers.isFinite {
            weight = min((spread / receivers) * (spread / receivers), maximumPriorWeight)
            guard let held = problem.robustFit(prior: weight, steps: robustSteps) else { return .failure(.distancesAlike) }
            fit = held
        }
        guard (1...6).contains(fit.exponent) else { return .failure(.absorptionOutOfRange(fit.exponent)) }
        return .success(problem.calibration(fit, site: site, linkSpread: spread, priorWeight: weight))
    }

    fileprivate static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let m = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
    }
}

/// The links a fit uses, one row each, and the nodes whose `rx_adj` they fit.
private struct LinkRows {
    typealias Row = (from: Int, to: Int, readings: Int, median: Double, basis: Double, distance: Double, walls: Double, y: Double)
    var rows: [Row]
    var nodeCount: Int
    var linksIn: [Int]
    /// Nodes hearing `minimumLinksIn` links or more.
    var fitted: [Int]
    var few: Int, across: Int, fewIn: Int

    /// One robust fit: its solution, the final residuals and weights, and the links' robust
    /// scale (dB) from those residuals.
    struct Fit {
        var exponent: Double, intercepts: [Double], residuals: [Double], weights: [Double], scale: Double
    }

    static func make(site: Site, links: NodeBeaconLinks) -> Result<LinkRows, NodeBeaconCalibration.Failure> {
        let geometry = SiteGeometry(site)
        var rows: [Row] = []
        var few = 0, across = 0
        for link in links.heard {
            guard link.count >= NodeBeaconCalibration.minimumReadings else { few += 1; continue }
            let a = geometry.nodes[link.from], b = geometry.nodes[link.to]
            guard let floor = a.floors.first(where: b.floors.contains) else { across += 1; continue }
            let d = max(distance(a.point, b.point), 0.1)
            let walls = geometry.wallLoss(floor: floor, from: a.point.xy, to: b.point.xy)
            let announced = links.announcedTx[link.from].map(Double.init) ?? site.positioning.txRefDefault
            rows.append((link.from, link.to, link.count, link.median, -10 * Elementary.log10(d), d, walls,
                         link.median - announced + walls))
        }
        var linksIn = [Int](repeating: 0, count: site.nodes.count)
        for row in rows { linksIn[row.to] += 1 }
        let deaf = site.nodes.indices.filter { linksIn[$0] == 0 }
        guard deaf.isEmpty else { return .failure(.notHearing(deaf.map { site.nodes[$0].name })) }
        guard rows.count >= site.nodes.count + 2 else { return .failure(.tooFewLinks(have: rows.count, need: site.nodes.count + 2)) }
        // A node hearing a single link would fit it exactly: no check, and a 0 residual that
        // would also shrink the robust scale. Its link is left out and its rx_adj not fitted.
        let minimum = NodeBeaconCalibration.minimumLinksIn
        let fitted = site.nodes.indices.filter { linksIn[$0] >= minimum }
        let heardByFew = rows.count
        rows.removeAll { linksIn[$0.to] < minimum }
        guard rows.count >= fitted.count + 2 else { return .failure(.tooFewLinks(have: rows.count, need: fitted.count + 2)) }
        return .success(LinkRows(rows: rows, nodeCount: site.nodes.count, linksIn: linksIn, fitted: fitted,
                                 few: few, across: across, fewIn: heardByFew - rows.count))
    }

    /// Least squares with the receivers' prior at weight `prior` (0: none), then iteratively
    /// reweighted (Huber): a link the site's walls do not explain (a missing wall, a node behind
    /// a fridge) pulls the fit less. `nil` when singular (every distance alike).
    func robustFit(prior: Double, steps: Int) -> Fit? {
        var weights = [Double](repeating: 1, count: rows.count)
        for step in 0...steps {
            var system = ReceiverOffsetSystem(nodes: nodeCount)
            for (row, w) in zip(rows, weights) { system.add(node: row.to, basis: row.basis, y: row.y, weight: w) }
            system.addSpreadPrior(nodes: fitted, weight: prior)
            guard let s = system.solve() else { return nil }
            let residuals = rows.map { $0.y - s.intercepts[$0.to] - s.exponent * $0.basis }
            let scale = robustScale(residuals, weights: weights, system: system)
            // Weights are for the next solve: when none follows, the reported ones stay those
            // of the fit reported.
            let next = residuals.map { min(1, NodeBeaconCalibration.huber * scale / max(abs($0), 1e-12)) }
            if step == steps || scale <= 1e-9 || zip(next, weights).allSatisfy({ abs($0 - $1) < 1e-6 }) {
                return Fit(exponent: s.exponent, intercepts: s.intercepts, residuals: residuals, weights: weights, scale: scale)
            }
            weights = next
        }
        return nil
    }

    /// The links' spread (dB, a robust SD) from residuals corrected for leverage: a row the fit
    /// leans on (a node hearing few links) shows a residual smaller than its error by √(1−h).
    private func robustScale(_ residuals: [Double], weights: [Double], system: ReceiverOffsetSystem) -> Double {
        let standardized = rows.indices.map { i in
            let h = system.leverage(node: rows[i].to, basis: rows[i].basis, weight: weights[i])
            return abs(residuals[i]) / max(1 - h, 1e-6).squareRoot()
        }
        return 1.4826 * NodeBeaconCalibration.median(standardized)
    }

    func calibration(_ fit: Fit, site: Site, linkSpread: Double, priorWeight: Double) -> NodeBeaconCalibration {
        let gauge = Calibration(absorption: fit.exponent, intercepts: fit.intercepts, heard: fitted, nodes: site.nodes)
        let used = rows.indices.map { i in
            NodeBeaconCalibration.Link(from: site.nodes[rows[i].from].name, to: site.nodes[rows[i].to].name, readings: rows[i].readings,
                                       medianRSSI: rows[i].median, distance: rows[i].distance, walls: rows[i].walls,
                                       residual: fit.residuals[i], weight: fit.weights[i])
        }
        let uncalibrated = site.nodes.indices.filter { linksIn[$0] < NodeBeaconCalibration.minimumLinksIn }.map { site.nodes[$0].name }
        return NodeBeaconCalibration(absorption: gauge.absorption, beaconLevel: gauge.txRef, rxAdj: gauge.rxAdj,
                                     uncalibrated: uncalibrated, links: used, fewReadings: few, acrossFloors: across,
                                     fewLinksIn: fewIn, linkSpread: linkSpread, priorWeight: priorWeight)
    }
}
