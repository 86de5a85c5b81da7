/// The survey's linear model, one row per cell (a node hearing a device around one point):
/// `y = n_g·basis + a_j + tx_k`, where `y` is the cell's median RSSI plus the walls' loss,
/// `basis` is `-10·log10(d)`, `n_g` the exponent of the cell's group (one for the site, or per
/// floor, or per node), `a_j = -rx_adj` of node `j` and `tx_k` the `tx_ref` of device `k`.
///
/// A constant added to every `a_j` and to every `tx_k` explains the data as well (a common
/// offset cannot be told from transmit power), so the gauge is fixed by `Σ a_j = 0`: the
/// fitted `rx_adj` average 0 and the devices' `tx_ref` carry the common level.
struct SurveySystem {
    struct Row {
        var group: Int, node: Int, device: Int
        var basis: Double, y: Double
        /// The cell's own weight (more readings, up to a point, say more).
        var weight: Double
    }

    let groups: Int, nodes: Int, devices: Int
    var rows: [Row] = []

    /// Unknowns: `[n_0 … n_{groups-1}, a_0 … a_{nodes-1}, tx_0 … tx_{devices-1}]`.
    var size: Int { groups + nodes + devices }

    struct Solution {
        var exponents: [Double], offsets: [Double], powers: [Double]
        var residuals: [Double]
        /// Robust SD of the residuals (dB).
        var scale: Double
    }

    /// Huber's constant, in robust standard deviations: a cell further off (a wall the site does
    /// not describe, a body between tag and node) weighs less.
    static let huber = 1.345
    static let steps = 10

    /// Least squares reweighted (Huber) `steps` times; `nil` when singular (distances all alike,
    /// a device heard by one node only, …).
    func robustFit() -> Solution? {
        var robust = [Double](repeating: 1, count: rows.count)
        var solution: Solution?
        for _ in 0...Self.steps {
            guard let x = solve(weights: robust) else { return nil }
            let exponents = Array(x[0..<groups]), offsets = Array(x[groups..<(groups + nodes)])
            let powers = Array(x[(groups + nodes)..<size])
            let residuals = rows.map { $0.y - exponents[$0.group] * $0.basis - offsets[$0.node] - powers[$0.device] }
            let scale = 1.4826 * surveyMedian(residuals.map(abs))
            solution = Solution(exponents: exponents, offsets: offsets, powers: powers, residuals: residuals, scale: scale)
            guard scale > 1e-9 else { break }
            let next = residuals.map { min(1, Self.huber * scale / max(abs($0), 1e-12)) }
            if zip(next, robust).allSatisfy({ abs($0 - $1) < 1e-6 }) { break }
            robust = next
        }
        return solution
    }

    /// The normal equations with the gauge as a Lagrange row, solved.
    private func solve(weights robust: [Double]) -> [Double]? {
        let m = size + 1
        var a = [Double](repeating: 0, count: m * m), b = [Double](repeating: 0, count: m)
        for (row, r) in zip(rows, robust) {
            let w = row.weight * r
            let columns = [(row.group, row.basis), (groups + row.node, 1.0), (groups + nodes + row.device, 1.0)]
            for (i, vi) in columns {
                b[i] += w * vi * row.y
                for (j, vj) in columns { a[i * m + j] += w * vi * vj }
            }
        }
        for j in 0..<nodes {
            a[size * m + groups + j] = 1
            a[(groups + j) * m + size] = 1
        }
        // The survey's normal equations scale with the readings: singular relative to their largest entry.
        return solveLinear(a, b, size: m, pivotFloor: 1e-10 * max(a.map(abs).max() ?? 0, 1))
    }
}

func surveyMedian(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let m = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
}
