import ElementaryFunctions
import Positioning
import Wire
import SiteModel

/// A path-loss calibration fitted from walks with ground truth: one exponent for the site,
/// and an offset per node (which becomes its `rx_adj` around a common `tx_ref`).
///
/// Fitted by linear least squares on `rssi = b_node - 10·n·log10(d)`. To be honest about
/// accuracy, fit it on walks other than the one it is measured on.
public struct Calibration: Sendable, Equatable {
    public var absorption: Double
    public var txRef: Double
    /// Node name → dB added to its RSSI.
    public var rxAdj: [String: Double]

    /// `nil` when the walks give too little to fit (fewer readings than unknowns).
    public static func fit(walks: [Walk], nodes: [Node]) -> Calibration? {
        let k = nodes.count
        var index: [String: Int] = [:]
        for (i, n) in nodes.enumerated() { index[n.name] = i }
        var system = ReceiverOffsetSystem(nodes: k)
        for walk in walks {
            for (i, item) in walk.readings.enumerated() {
                guard let node = index[item.node], item.reading.rssi < 0, i < walk.truth.count else { continue }
                let truth = walk.truth(at: item.reading.t) ?? walk.truth[i].position
                let d = max(distance(truth, nodes[node].point), 0.1)
                system.add(node: node, basis: -10 * Elementary.log10(d), y: Double(item.reading.rssi))
            }
        }
        guard system.rows > system.size, let solution = system.solve() else { return nil }
        let heard = (0..<k).filter { system.weight(ofNode: $0) > 1 }
        return Calibration(absorption: solution.exponent, intercepts: solution.intercepts, heard: heard, nodes: nodes)
    }

    /// The calibration of a solved system, in `ReceiverOffsetSystem.gauge`'s gauge: the `heard`
    /// nodes' `rxAdj` average 0 around `txRef`.
    init(absorption: Double, intercepts: [Double], heard: [Int], nodes: [Node]) {
        let gauge = ReceiverOffsetSystem.gauge(intercepts: intercepts, heard: heard, names: nodes.map(\.name))
        self.init(absorption: absorption, txRef: gauge.level, rxAdj: gauge.offsets)
    }

    public init(absorption: Double, txRef: Double, rxAdj: [String: Double]) {
        self.absorption = absorption; self.txRef = txRef; self.rxAdj = rxAdj
    }

    /// How well this calibration explains a walk's readings at their true positions: the
    /// root-mean-square residual (dB) and each heard node's mean residual (measured minus
    /// modelled, dB; positive is louder than the model), by node name.
    public func residuals(of walk: Walk, nodes: [Node]) -> (rms: Double, perNode: [String: Double]) {
        let model = PathLoss(exponent: absorption)
        var sums: [String: (total: Double, count: Double)] = [:]
        var squares = 0.0, count = 0.0
        for (i, item) in walk.readings.enumerated() where item.reading.rssi < 0 && i < walk.truth.count {
            guard let node = nodes.first(where: { $0.name == item.node }) else { continue }
            let truth = walk.truth(at: item.reading.t) ?? walk.truth[i].position
            let expected = model.rssi(distance: max(distance(truth, node.point), 0.1), txRef: txRef)
            let e = Double(item.reading.rssi) + (rxAdj[node.name] ?? 0) - expected
            squares += e * e
            count += 1
            sums[node.name, default: (0, 0)].total += e
            sums[node.name, default: (0, 0)].count += 1
        }
        return ((squares / max(count, 1)).squareRoot(), sums.mapValues { $0.total / $0.count })
    }

    /// The site with this calibration's exponent, reference power and node adjustments.
    public func applied(to site: Site) -> Site {
        var site = site
        site.positioning.absorption = absorption
        site.positioning.txRefDefault = txRef
        for i in site.nodes.indices { site.nodes[i].rxAdj = rxAdj[site.nodes[i].name] ?? 0 }
        return site
    }
}
