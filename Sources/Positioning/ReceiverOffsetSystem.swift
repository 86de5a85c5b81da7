/// The normal equations of `y = b_node + n·basis` (weighted linear least squares): one
/// exponent `n` and one intercept `b` per receiving node, where `basis` is `-10·log10(d)` and
/// `y` the RSSI with whatever the model already knows (walls, announced power) taken out.
public struct ReceiverOffsetSystem: Sendable {
    public let nodes: Int
    /// Unknowns: `[n, b_0 … b_{nodes-1}]`.
    public var size: Int { nodes + 1 }
    private var normal: [Double]
    private var rhs: [Double]
    public private(set) var rows = 0

    public init(nodes: Int) {
        self.nodes = nodes
        normal = [Double](repeating: 0, count: (nodes + 1) * (nodes + 1))
        rhs = [Double](repeating: 0, count: nodes + 1)
    }

    public mutating func add(node: Int, basis: Double, y: Double, weight: Double = 1) {
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
    public mutating func addSpreadPrior(nodes held: [Int], weight: Double) {
        guard weight > 0, !held.isEmpty else { return }
        let share = 1 / Double(held.count)
        for j in held {
            for l in held { normal[(j + 1) * size + l + 1] += weight * ((j == l ? 1 : 0) - share) }
        }
    }

    /// The summed weight of `node`'s rows (their count when unweighted).
    public func weight(ofNode node: Int) -> Double { normal[(node + 1) * size + node + 1] }

    /// The leverage of a row (its hat-matrix diagonal, 0...1): how much its own `y` moves its
    /// fitted value; 1 for a node's only row (and when the system is singular).
    public func leverage(node: Int, basis: Double, weight: Double = 1) -> Double {
        var a = normal
        for i in 1..<size where a[i * size + i] == 0 { a[i * size + i] = 1 }
        var x = [Double](repeating: 0, count: size)
        x[0] = basis; x[node + 1] = 1
        guard let z = solveLinear(a, x, size: size) else { return 1 }
        return weight * (basis * z[0] + z[node + 1])
    }

    /// `nil` when singular (every distance alike); a node without rows gets intercept 0.
    public func solve() -> (exponent: Double, intercepts: [Double])? {
        var a = normal
        for i in 1..<size where a[i * size + i] == 0 { a[i * size + i] = 1 }
        guard let x = solveLinear(a, rhs, size: size) else { return nil }
        return (x[0], Array(x.dropFirst()))
    }
}

/// Gaussian elimination with partial pivoting on a row-major `size × size` system; `nil` when a
/// pivot is not above `pivotFloor` (singular, or nearly).
public func solveLinear(_ matrix: [Double], _ vector: [Double], size n: Int, pivotFloor: Double = 1e-12) -> [Double]? {
    var a = matrix, b = vector
    for col in 0..<n {
        var pivot = col
        for r in col..<n where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
        guard abs(a[pivot * n + col]) > pivotFloor else { return nil }
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

extension ReceiverOffsetSystem {
    /// The gauge of a solved system: the data fix only differences between receivers and a
    /// common level shared by every transmitter and every receiver, so the level is the mean
    /// intercept of the `heard` nodes (-59 when none) and each heard node's offset (its
    /// `rx_adj`) is the level less its intercept: they average 0. `names` are the nodes' names
    /// in the system's order.
    public static func gauge(intercepts: [Double], heard: [Int], names: [String]) -> (level: Double, offsets: [String: Double]) {
        let level = heard.isEmpty ? -59 : heard.map { intercepts[$0] }.reduce(0, +) / Double(heard.count)
        var offsets: [String: Double] = [:]
        for i in heard { offsets[names[i]] = level - intercepts[i] }
        return (level, offsets)
    }
}
