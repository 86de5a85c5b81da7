import Wire

/// The path loss from every node to every cell of a coarse grid over one floor, walls
/// included, computed once: a global search then costs one subtraction per node and cell.
///
/// Levenberg–Marquardt finds the minimum nearest its start, and the robust cost in dB has
/// several (mirror images across a line of nodes, the wrong side of a wall, the basin a thin
/// first window pointed to). Started from the track's prediction it can stay in the wrong one
/// for many seconds; the grid sees every basin at each solve, so the solver can leave it.
struct LossGrid: Sendable {
    /// Cells per floor at most; the cell grows on big floors to stay within this.
    static let maximumCells = 4_000
    /// Cells one search visits at most; bigger regions are searched on every other cell (or
    /// sparser): the solver refines from the best one anyway.
    static let searchCells = 700
    /// Metres searched around the bounding box of the nodes that hear the device.
    static let reach = 4.0

    var origin: Point2
    var cell: Double
    var columns: Int
    var rows: Int
    /// Height of the cells' centres (absolute), where a carried device usually is.
    var z: Double
    /// Node-major: `loss[node * cellCount + row * columns + column]` = `slope·ln d + walls`, dB.
    var loss: [Float]

    var cellCount: Int { columns * rows }

    init(floor f: Int, site: SiteGeometry, slope: Double, height: Double) {
        let info = site.floors[f]
        // A floor whose box is not finite (a site no check caught) gets a token grid, not a trap.
        let width = Self.extent(info.max.x - info.min.x), depth = Self.extent(info.max.y - info.min.y)
        cell = max(0.5, (width * depth / Double(Self.maximumCells)).squareRoot())
        columns = clampedIndex((width / cell).rounded(.up), 1, Self.maximumCells)
        rows = clampedIndex((depth / cell).rounded(.up), 1, Self.maximumCells)
        origin = info.min.xy
        z = info.min.z + height
        loss = [Float](repeating: .infinity, count: site.nodes.count * columns * rows)
        for (n, node) in site.nodes.enumerated() where node.floors.contains(f) {
            for r in 0..<rows {
                for c in 0..<columns {
                    let p = center(column: c, row: r)
                    let d = max(distance(p, node.point), 0.3)
                    let walls = site.wallLoss(floor: f, from: p.xy, to: node.point.xy)
                    loss[n * cellCount + r * columns + c] = Float(slope * Elementary.log(d) + walls)
                }
            }
        }
    }

    func center(column c: Int, row r: Int) -> Point3 {
        Point3(origin.x + (Double(c) + 0.5) * cell, origin.y + (Double(r) + 0.5) * cell, z)
    }

    /// The centre of the cell where the observations fit best (the same robust cost as the
    /// solver's, walls included), searched around the nodes that heard the device.
    func best(_ obs: [Observation], problem: Problem) -> Point3? {
        guard let first = obs.first else { return nil }
        var lo = first.position.xy, hi = first.position.xy
        for o in obs {
            lo = Point2(min(lo.x, o.position.x), min(lo.y, o.position.y))
            hi = Point2(max(hi.x, o.position.x), max(hi.y, o.position.y))
        }
        let c0 = index(lo.x - Self.reach, origin.x, columns), c1 = index(hi.x + Self.reach, origin.x, columns)
        let r0 = index(lo.y - Self.reach, origin.y, rows), r1 = index(hi.y + Self.reach, origin.y, rows)
        let region = (c1 - c0 + 1) * (r1 - r0 + 1)
        var stride = 1
        while region / (stride * stride) > Self.searchCells { stride += 1 }
        let width = (c1 - c0) / stride + 1, height = (r1 - r0) / stride + 1
        let searched = Cells(column: c0, row: r0, stride: stride, width: width)
        var bestCost = Float.infinity, bestCell = -1
        // The region's cells in row-major order, `piece` at a time (1 kB, so the costs stay on
        // the stack): a piece spans several rows of a small region, so each observation's
        // constants are worked out once per piece rather than once per row.
        let piece = 256
        withUnsafeTemporaryAllocation(of: Float.self, capacity: piece) { cost in
            loss.withUnsafeBufferPointer { loss in
                for first in Swift.stride(from: 0, to: width * height, by: piece) {
                    let count = min(piece, width * height - first)
                    accumulate(obs, problem: problem, loss: loss, cells: searched, from: first, count: count, into: cost)
                    // The first of equal cells, as a scan of the rows in order finds it.
                    for k in 0..<count where cost[k] < bestCost { bestCost = cost[k]; bestCell = first + k }
                }
            }
        }
        guard bestCell >= 0 else { return nil }
        return center(column: c0 + bestCell % width * stride, row: r0 + bestCell / width * stride)
    }

    /// The cells one search visits: every `stride`-th column and row from (`column`, `row`),
    /// `width` columns a row, numbered row by row.
    private struct Cells {
        var column: Int
        var row: Int
        var stride: Int
        var width: Int
    }

    /// The robust cost of the searched cells `first ..< first + count`.
    private func accumulate(_ obs: [Observation], problem: Problem, loss: UnsafeBufferPointer<Float>, cells: Cells,
                            from first: Int, count: Int, into cost: UnsafeMutableBufferPointer<Float>) {
        for k in 0..<count { cost[k] = 0 }
        let huber = Float(problem.huber)
        for o in obs {
            let inverseSigma = Float(1 / (problem.sigma * o.spread))
            let target = Float(o.rssi - o.txRef), w = Float(problem.weight(o))
            let node = Int(o.node) * cellCount
            // A row (or the part of one) at a time: the cells of a row lie `stride` apart.
            var k = 0, row = first / cells.width, column = first % cells.width
            while k < count {
                let run = min(cells.width - column, count - k)
                let at = node + (cells.row + row * cells.stride) * columns + cells.column + column * cells.stride
                // Adjacent cells (the usual search) as a loop of their own, which the compiler vectorises.
                if cells.stride == 1 {
                    Self.addHuber(loss, from: at, stride: 1, target: target, inverseSigma: inverseSigma, weight: w, huber: huber,
                                  into: cost.baseAddress! + k, count: run)
                } else {
                    Self.addHuber(loss, from: at, stride: cells.stride, target: target, inverseSigma: inverseSigma, weight: w,
                                  huber: huber, into: cost.baseAddress! + k, count: run)
                }
                k += run; row += 1; column = 0
            }
        }
    }

    /// Adds one observation's weighted Huber cost at `count` cells `stride` apart from
    /// `loss[at]`. Both branches of the loss are worked out, so the loop has no branch.
    @inline(__always)
    private static func addHuber(_ loss: UnsafeBufferPointer<Float>, from at: Int, stride: Int, target: Float, inverseSigma: Float,
                                 weight w: Float, huber: Float, into cost: UnsafeMutablePointer<Float>, count: Int) {
        let linear = 0.5 * huber
        for j in 0..<count {
            // Measured minus expected: rssi - (txRef - loss). The index cannot overflow (it is
            // within `loss`), and a checked one would keep the loop from being vectorised.
            let e = abs((target + loss[at &+ j &* stride]) * inverseSigma)
            let quadratic = 0.5 * e * e, beyond = huber * (e - linear)
            cost[j] += w * (e <= huber ? quadratic : beyond)
        }
    }

    private func index(_ v: Double, _ origin: Double, _ count: Int) -> Int {
        clampedIndex((v - origin) / cell, 0, count - 1)
    }

    private static func extent(_ v: Double) -> Double { v.isFinite ? max(v, 0.1) : 0.1 }
}

/// `v` truncated to an Int within `lo...hi`; NaN gives `lo`, so a non-finite coordinate can
/// never trap (as `Int(_:)` does) or index outside an array.
@inline(__always)
func clampedIndex(_ v: Double, _ lo: Int, _ hi: Int) -> Int {
    guard v > Double(lo) else { return lo }
    guard v < Double(hi) else { return hi }
    return Int(v)
}
