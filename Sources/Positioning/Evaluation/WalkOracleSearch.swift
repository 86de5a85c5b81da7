import Wire
import SiteModel

/// The walk oracle's grid over the floor's bounds, edges included (a fix held on an edge is
/// often the best there is): per point and receiver the squared horizontal distance, once.
struct WalkOracleGrid: Sendable {
    let bounds: (min: Point2, max: Point2)
    let origin: Point2
    let spacing: Point2
    let columns: Int
    let rows: Int
    /// Point-major, receiver-contiguous: `horizontal[cell * receivers + j]`.
    let horizontal: [Double]
    let receivers: Int

    init(bounds: (min: Point2, max: Point2), step: Double, nodes: [Node]) {
        let width = max(bounds.max.x - bounds.min.x, 0), depth = max(bounds.max.y - bounds.min.y, 0)
        let step = step.isFinite && step > 0 ? step : 0.1
        let gaps = (x: max(Int((width / step).rounded(.up)), 1), y: max(Int((depth / step).rounded(.up)), 1))
        self.bounds = bounds
        origin = bounds.min
        spacing = Point2(width / Double(gaps.x), depth / Double(gaps.y))
        columns = gaps.x + 1
        rows = gaps.y + 1
        receivers = nodes.count
        var table: [Double] = []
        table.reserveCapacity(columns * rows * nodes.count)
        for c in 0..<(columns * rows) {
            let p = Point2(origin.x + Double(c % columns) * spacing.x, origin.y + Double(c / columns) * spacing.y)
            for n in nodes { table.append((p.x - n.point.x) * (p.x - n.point.x) + (p.y - n.point.y) * (p.y - n.point.y)) }
        }
        horizontal = table
    }

    var cells: Int { columns * rows }

    func point(_ cell: Int) -> Point2 {
        Point2(origin.x + Double(cell % columns) * spacing.x, origin.y + Double(cell / columns) * spacing.y)
    }
}

/// `-10·log10(d)` for a squared distance, the model's distance clamped at 0.1 m.
@inline(__always)
func logDistanceBasis(squared: Double) -> Double { -5 * Elementary.log10(max(squared, 0.01)) }

/// One moment's least-squares search at one height. The basis (`-10·log10 d` per grid point
/// and receiver) is tabulated on first use and shared by every variant of the moment.
struct WalkOracleSearch {
    /// The best grid points refined: more than one, since two basins can be a grid step apart in cost.
    static let starts = 3

    /// What one variant fits at one moment: per used receiver its target (mean RSSI less the
    /// model's intercept), exponent and weight, and whether a common shift is free.
    struct Terms {
        var receivers: [Int] = []
        var targets: [Double] = []
        var exponents: [Double] = []
        var weights: [Double] = []
        var freeReference = false

        init(moment: WalkMoment, variant: WalkOracleVariant, receivers used: [Int]) {
            receivers = used
            targets = used.map { moment.means[$0] - variant.model.intercepts[$0] }
            exponents = used.map { variant.model.exponents[$0] }
            weights = used.map { variant.weighted ? Double(moment.counts[$0]) : 1 }
            freeReference = variant.freeReference
        }

        /// The weighted sum of squared residuals, given each used receiver's basis; with the
        /// reference free, about the residuals' weighted mean (the shift that fits best).
        func cost(_ basis: (Int) -> Double) -> Double {
            var sum = 0.0, squares = 0.0, weight = 0.0
            for k in receivers.indices {
                let r = targets[k] - exponents[k] * basis(receivers[k])
                sum += weights[k] * r; squares += weights[k] * r * r; weight += weights[k]
            }
            return freeReference && weight > 0 ? squares - sum * sum / weight : squares
        }
    }

    let oracle: WalkOracle
    let z: Double
    private var basis: [Double] = []

    init(oracle: WalkOracle, z: Double) {
        self.oracle = oracle; self.z = z
    }

    /// The least-squares position for `terms`: the grid's best distinct points, each refined.
    mutating func fix(_ terms: Terms) -> Point2 {
        let grid = oracle.grid
        guard !terms.receivers.isEmpty else { return grid.point(grid.cells / 2) }
        tabulate()
        let k = grid.receivers
        var best: [(cost: Double, cell: Int)] = []
        for c in 0..<grid.cells {
            let cost = basis.withUnsafeBufferPointer { b in terms.cost { b[c * k + $0] } }
            if cost.isFinite { BoundedSearch.keep(&best, cost: cost, cell: c, columns: grid.columns, starts: Self.starts) }
        }
        var fix = grid.point(grid.cells / 2), fixCost = Double.infinity
        for start in best {
            let (p, cost) = refine(terms, from: grid.point(start.cell))
            if cost < fixCost { fix = p; fixCost = cost }
        }
        return fix
    }

    private mutating func tabulate() {
        guard basis.isEmpty else { return }
        let grid = oracle.grid
        let heights = oracle.nodes.map { (z - $0.point.z) * (z - $0.point.z) }
        basis = grid.horizontal.indices.map { i in logDistanceBasis(squared: grid.horizontal[i] + heights[i % grid.receivers]) }
    }
}
