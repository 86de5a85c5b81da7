import Wire
import SiteModel

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
    /// The smallest cell, m: finer than RSSI resolves, and the solver refines from the best one.
    static let leastCell = 0.5
    /// A floor narrower than this (m) is given this width: a grid of no width has no cells.
    static let leastExtent = 0.1

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
        cell = max(Self.leastCell, (width * depth / Double(Self.maximumCells)).squareRoot())
        columns = clampedIndex((width / cell).rounded(.up), 1, Self.maximumCells)
        rows = clampedIndex((depth / cell).rounded(.up), 1, Self.maximumCells)
        origin = info.min.xy
        z = info.min.z + height
        loss = [Float](repeating: .infinity, count: site.nodes.count * columns * rows)
        for (n, node) in site.nodes.enumerated() where node.floors.contains(f) {
            for r in 0..<rows {
                for c in 0..<columns {
                    let p = center(column: c, row: r)
                    let d = max(distance(p, node.point), PathLoss.minimumDistance)
                    let walls = site.extraLoss(node: n, floor: f, at: p.xy)
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
        let width = (c1 - c0) / stride + 1
        var best: (column: Int, row: Int)?
        var bestCost = Float.infinity
        // A row at a time, in pieces of at most `piece` cells (a multiple of the eight lanes of
        // `accumulate`): the costs and the cells' offsets stay on the stack.
        let piece = 256
        withUnsafeTemporaryAllocation(of: Term.self, capacity: obs.count) { terms in
            for (i, o) in obs.enumerated() {
                terms.initializeElement(at: i, to: Term(o, problem: problem, base: Int(o.node) * cellCount))
            }
            withUnsafeTemporaryAllocation(of: Float.self, capacity: piece) { cost in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: piece) { offsets in
                    // The piece whose cells' offsets are in `offsets` (every row's are the same).
                    var offsetsOf = -1
                    for r in Swift.stride(from: r0, through: r1, by: stride) {
                        for first in Swift.stride(from: 0, to: width, by: piece) {
                            let count = min(piece, width - first)
                            if offsetsOf != first {
                                // Lanes past the piece's end take its last cell again: their
                                // costs are written but never read.
                                for i in 0..<(count + 7) / 8 * 8 { offsets[i] = Int32(min(i, count - 1) * stride) }
                                offsetsOf = first
                            }
                            accumulate(UnsafeBufferPointer(terms), huber: Float(problem.huber), from: r * columns + c0 + first * stride,
                                       stride: stride, offsets: UnsafeBufferPointer(offsets), count: count, into: cost)
                            for k in 0..<count where cost[k] < bestCost {
                                bestCost = cost[k]
                                best = (c0 + (first + k) * stride, r)
                            }
                        }
                    }
                }
            }
        }
        return best.map { center(column: $0.column, row: $0.row) }
    }

    /// What the search needs of one observation, worked out once per search, not per row.
    private struct Term {
        /// The observation's node's first cell in `loss`.
        var base: Int
        /// Measured RSSI less the reference power.
        var target: Float
        var inverseSigma: Float
        var weight: Float

        init(_ o: Observation, problem: Problem, base: Int) {
            self.base = base
            target = Float(o.rssi - o.txRef)
            inverseSigma = Float(1 / (problem.sigma * o.spread))
            weight = Float(problem.weight(o))
        }
    }

    /// The robust cost of `count` cells from cell `start` of the grid, every `stride`-th,
    /// into `cost`; `offsets` holds each cell's offset from `start`, lanes past the last cell
    /// taking it again.
    ///
    /// Eight cells at a time in SIMD lanes (the search was a sixth of the work queue's
    /// instructions at the end-to-end ladder's top): each lane does the scalar loop's
    /// arithmetic, the same operations over the observations in the same order, so every cost
    /// is bit for bit what a loop per cell gave, and so is the cell chosen. At strides 1 and 2
    /// (most searches) the eight cells are loaded at once, the lanes past the row's end reading
    /// the cells after it, or the row's last cell again at the end of the table; at wider
    /// strides they are gathered. `offsets` and `cost` have room for `count` rounded up to eight.
    private func accumulate(_ terms: UnsafeBufferPointer<Term>, huber: Float, from start: Int, stride: Int,
                            offsets: UnsafeBufferPointer<Int32>, count: Int, into cost: UnsafeMutableBufferPointer<Float>) {
        loss.withUnsafeBufferPointer { loss in
            for k in Swift.stride(from: 0, to: count, by: 8) {
                let o = offsets.baseAddress! + k
                var sum = SIMD8<Float>()
                for term in terms {
                    let row = loss.baseAddress! + term.base + start
                    let first = term.base + start + k * stride
                    let l = stride <= 2 && first + 8 * stride <= loss.count
                        ? (stride == 1 ? UnsafeRawPointer(row + k).loadUnaligned(as: SIMD8<Float>.self)
                                       : UnsafeRawPointer(row + 2 * k).loadUnaligned(as: SIMD16<Float>.self).evenHalf)
                        : SIMD8<Float>(row[Int(o[0])], row[Int(o[1])], row[Int(o[2])], row[Int(o[3])],
                                       row[Int(o[4])], row[Int(o[5])], row[Int(o[6])], row[Int(o[7])])
                    // Measured minus expected: rssi - (txRef - loss).
                    let d = (term.target + l) * term.inverseSigma
                    // `abs`, which clears the sign bit.
                    let e = unsafeBitCast(unsafeBitCast(d, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
                    let quadratic = 0.5 * e * e, linear = huber * (e - 0.5 * huber)
                    sum += term.weight * linear.replacing(with: quadratic, where: e .<= huber)
                }
                UnsafeMutableRawPointer(cost.baseAddress! + k).storeBytes(of: sum, as: SIMD8<Float>.self)
            }
        }
    }

    private func index(_ v: Double, _ origin: Double, _ count: Int) -> Int {
        clampedIndex((v - origin) / cell, 0, count - 1)
    }

    private static func extent(_ v: Double) -> Double { v.isFinite ? max(v, leastExtent) : leastExtent }
}

/// `v` truncated to an Int within `lo...hi`; NaN gives `lo`, so a non-finite coordinate can
/// never trap (as `Int(_:)` does) or index outside an array.
@inline(__always)
func clampedIndex(_ v: Double, _ lo: Int, _ hi: Int) -> Int {
    guard v > Double(lo) else { return lo }
    guard v < Double(hi) else { return hi }
    return Int(v)
}
