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

    /// The calibration of a solved system: `txRef` is the mean intercept of the `heard` nodes,
    /// so their `rxAdj` average 0 (the data fix only differences between receivers and a
    /// common level shared by every transmitter and every receiver).
    init(absorption: Double, intercepts: [Double], heard: [Int], nodes: [Node]) {
        let txRef = heard.isEmpty ? -59 : heard.map { intercepts[$0] }.reduce(0, +) / Double(heard.count)
        var rxAdj: [String: Double] = [:]
        for i in heard { rxAdj[nodes[i].name] = txRef - intercepts[i] }
        self.init(absorption: absorption, txRef: txRef, rxAdj: rxAdj)
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

/// The normal equations of `y = b_node + n·basis` (weighted linear least squares): one
/// exponent `n` and one intercept `b` per receiving node, where `basis` is `-10·log10(d)` and
/// `y` the RSSI with whatever the model already knows (walls, announced power) taken out.
struct ReceiverOffsetSystem {
    let nodes: Int
    /// Unknowns: `[n, b_0 … b_{nodes-1}]`.
    var size: Int { nodes + 1 }
    private var normal: [Double]
    private var rhs: [Double]
    private(set) var rows = 0

    init(nodes: Int) {
        self.nodes = nodes
        normal = [Double](repeating: 0, count: (nodes + 1) * (nodes + 1))
        rhs = [Double](repeating: 0, count: nodes + 1)
    }

    mutating func add(node: Int, basis: Double, y: Double, weight: Double = 1) {
        let columns = [(0, basis), (node + 1, 1.0)]
        for (r, vr) in columns {
            rhs[r] += weight * vr * y
            for (c, vc) in columns { normal[r * size + c] += weight * vr * vc }
        }
        rows += 1
    }

    /// A prior holding the intercepts of `nodes` toward their mean: `weight · Σ (b_j − b̄)²`
    /// added to the squared residuals. The data fix only differences between intercepts, so
    /// this holds each receiver's offset (`b̄ − b_j`) toward 0 and leaves their common level free.
    mutating func addSpreadPrior(nodes held: [Int], weight: Double) {
        guard weight > 0, !held.isEmpty else { return }
        let share = 1 / Double(held.count)
        for j in held {
            for l in held { normal[(j + 1) * size + l + 1] += weight * ((j == l ? 1 : 0) - share) }
        }
    }

    /// The summed weight of `node`'s rows (their count when unweighted).
    func weight(ofNode node: Int) -> Double { normal[(node + 1) * size + node + 1] }

    /// The leverage of a row (its hat-matrix diagonal, 0...1): how much its own `y` moves its
    /// fitted value; 1 for a node's only row (and when the system is singular).
    func leverage(node: Int, basis: Double, weight: Double = 1) -> Double {
        var a = normal
        for i in 1..<size where a[i * size + i] == 0 { a[i * size + i] = 1 }
        var x = [Double](repeating: 0, count: size)
        x[0] = basis; x[node + 1] = 1
        guard let z = solveLinear(a, x, size: size) else { return 1 }
        return weight * (basis * z[0] + z[node + 1])
    }

    /// `nil` when singular (every distance alike); a node without rows gets intercept 0.
    func solve() -> (exponent: Double, intercepts: [Double])? {
        var a = normal
        for i in 1..<size where a[i * size + i] == 0 { a[i * size + i] = 1 }
        guard let x = solveLinear(a, rhs, size: size) else { return nil }
        return (x[0], Array(x.dropFirst()))
    }
}

/// Gaussian elimination with partial pivoting on a row-major `size × size` system.
func solveLinear(_ matrix: [Double], _ vector: [Double], size n: Int) -> [Double]? {
    var a = matrix, b = vector
    for col in 0..<n {
        var pivot = col
        for r in col..<n where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
        guard abs(a[pivot * n + col]) > 1e-12 else { return nil }
        if pivot != col {
            for c in 0..<n { a.swapAt(col * n + c, pivot * n + c) }
            b.swapAt(col, pivot)
        }
        for r in (col + 1)..<n {
            let f = a[r * n + col] / a[col * n + col]
            guard f != 0 else { continue }
            for c in col..<n { a[r * n + c] -= f * a[col * n + c] }
            b[r] -= f * b[col]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for r in stride(from: n - 1, through: 0, by: -1) {
        var s = b[r]
        for c in (r + 1)..<n { s -= a[r * n + c] * x[c] }
        x[r] = s / a[r * n + r]
    }
    return x
}
