import Wire

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
/// `tx_ref` keeps its meaning on average; `c` is reported as `txRef`, the beacons' level
/// relative to what they announce.
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

    public var calibration: Calibration
    public var links: [Link]
    /// Links left out: too few readings to trust their median, or between nodes sharing no
    /// floor (the engine models no floor loss).
    public var fewReadings: Int
    public var acrossFloors: Int

    /// A link heard fewer times is left out: near the sensitivity only the luckiest packets
    /// are heard at all, so its median is too loud.
    public static let minimumReadings = 10

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
                "too few links: \(have) node-to-node links heard, \(need) needed for the absorption and one rx_adj per node"
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

    /// Fits the site from `links` (an engine's `beaconLinks`, node indices in `site.nodes` order).
    public static func fit(site: Site, links: NodeBeaconLinks) -> Result<NodeBeaconCalibration, Failure> {
        guard site.nodes.contains(where: { $0.beacon != nil }) else { return .failure(.noBeacons) }
        let geometry = SiteGeometry(site)
        var rows: [(from: Int, to: Int, readings: Int, median: Double, basis: Double, distance: Double, walls: Double, y: Double)] = []
        var few = 0, across = 0
        for link in links.heard {
            guard link.count >= minimumReadings else { few += 1; continue }
            let a = geometry.nodes[link.from], b = geometry.nodes[link.to]
            guard let floor = a.floors.first(where: b.floors.contains) else { across += 1; continue }
            let d = max(distance(a.point, b.point), 0.1)
            let walls = geometry.wallLoss(floor: floor, from: a.point.xy, to: b.point.xy)
            let announced = links.announcedTx[link.from].map(Double.init) ?? site.positioning.txRefDefault
            rows.append((link.from, link.to, link.count, link.median, -10 * Elementary.log10(d), d, walls,
                         link.median - announced + walls))
        }
        let receivers = Set(rows.map(\.to))
        let deaf = site.nodes.indices.filter { !receivers.contains($0) }
        guard deaf.isEmpty else { return .failure(.notHearing(deaf.map { site.nodes[$0].name })) }
        let need = site.nodes.count + 2
        guard rows.count >= need else { return .failure(.tooFewLinks(have: rows.count, need: need)) }

        // Least squares, then iteratively reweighted (Huber): a link the site's walls do not
        // explain (a missing wall, a node behind a fridge) pulls the fit less.
        var weights = [Double](repeating: 1, count: rows.count)
        var solution: (exponent: Double, intercepts: [Double])?
        var residuals = [Double](repeating: 0, count: rows.count)
        for _ in 0...robustSteps {
            var system = ReceiverOffsetSystem(nodes: site.nodes.count)
            for (row, w) in zip(rows, weights) { system.add(node: row.to, basis: row.basis, y: row.y, weight: w) }
            guard let s = system.solve() else { return .failure(.distancesAlike) }
            solution = s
            residuals = rows.map { $0.y - s.intercepts[$0.to] - s.exponent * $0.basis }
            let scale = 1.4826 * median(residuals.map(abs))
            guard scale > 1e-9 else { break }
            let next = residuals.map { min(1, huber * scale / max(abs($0), 1e-12)) }
            if zip(next, weights).allSatisfy({ abs($0 - $1) < 1e-6 }) { break }
            weights = next
        }
        guard let solution else { return .failure(.distancesAlike) }
        guard (1...6).contains(solution.exponent) else { return .failure(.absorptionOutOfRange(solution.exponent)) }
        let calibration = Calibration(absorption: solution.exponent, intercepts: solution.intercepts,
                                      heard: Array(site.nodes.indices), nodes: site.nodes)
        let fitted = rows.indices.map { i in
            Link(from: site.nodes[rows[i].from].name, to: site.nodes[rows[i].to].name, readings: rows[i].readings,
                 medianRSSI: rows[i].median, distance: rows[i].distance, walls: rows[i].walls, residual: residuals[i], weight: weights[i])
        }
        return .success(NodeBeaconCalibration(calibration: calibration, links: fitted, fewReadings: few, acrossFloors: across))
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let m = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
    }
}
