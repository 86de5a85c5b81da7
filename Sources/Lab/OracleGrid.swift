import ElementaryFunctions
import Simulation
import Wire
import SiteModel

/// The oracle's search: the channel's own `-pathLoss - obstruction` tabulated per node over
/// a grid of each floor, once per floor and device height; a bounded scan of the grid for its
/// best points no two of which are neighbours; from each, Levenberg–Marquardt and a compass
/// search on the exact model (walls evaluated where each step lands). The fix is the least
/// squares' optimum up to slivers thinner than the grid, where a line grazes a door's edge or a
/// wall's end (OracleTests measures how often a finer exact grid does better).
struct OracleGrid {
    let channel: Channel
    /// Grid points per floor: a small floor gets a fine grid (down to `finest`), a large one a
    /// coarser grid, at the same cost per search.
    let points: Int
    static let finest = Simulation.oracleFinestStep
    /// The best points refined: more than one, since two basins can be a grid step apart in cost.
    static let starts = 3

    /// One floor's grid points, row-major, edges included (a fix outside the floor is held on
    /// its edge, so the best fit is often there), `spacing` apart; per point
    /// every node's obstruction (walls or floors), node-contiguous.
    private struct Floor {
        var origin: Point2
        var spacing: Point2
        var columns: Int
        var rows: Int
        var obstruction: [Double]
        var cells: Int { columns * rows }
    }

    private var floors: [Int: Floor] = [:]
    /// Per floor and height (bit pattern): `-pathLoss - obstruction` per cell and node.
    private var gains: [Key: [Double]] = [:]
    private struct Key: Hashable { var floor: Int; var z: UInt64 }

    init(channel: Channel, points: Int) {
        self.channel = channel
        self.points = points
    }

    private var nodeCount: Int { channel.world.site.nodes.count }

    private func centre(_ f: Floor, _ c: Int) -> Point2 {
        Point2(f.origin.x + Double(c % f.columns) * f.spacing.x, f.origin.y + Double(c / f.columns) * f.spacing.y)
    }

    private mutating func floor(_ index: Int) -> Floor {
        if let f = floors[index] { return f }
        let bounds = channel.world.site.floors[index].bounds
        let width = bounds.max.x - bounds.min.x, depth = bounds.max.y - bounds.min.y
        let step = max((width * depth / Double(points)).squareRoot(), Self.finest)
        let gaps = (x: max(Int((width / step).rounded(.up)), 1), y: max(Int((depth / step).rounded(.up)), 1))
        var f = Floor(origin: bounds.min.xy, spacing: Point2(width / Double(gaps.x), depth / Double(gaps.y)),
                      columns: gaps.x + 1, rows: gaps.y + 1, obstruction: [])
        f.obstruction.reserveCapacity(f.cells * nodeCount)
        for c in 0..<f.cells {
            let p = centre(f, c)
            for n in 0..<nodeCount { f.obstruction.append(channel.obstruction(p, floor: index, node: n)) }
        }
        floors[index] = f
        return f
    }

    private mutating func gains(_ index: Int, z: Double) -> (Floor, [Double]) {
        let f = floor(index)
        let key = Key(floor: index, z: z.bitPattern)
        if let g = gains[key] { return (f, g) }
        var g = f.obstruction
        for c in 0..<f.cells {
            let p = centre(f, c)
            for n in 0..<nodeCount { g[c * nodeCount + n] = -channel.pathLoss(Point3(p.x, p.y, z), node: n) - g[c * nodeCount + n] }
        }
        gains[key] = g
        return (f, g)
    }

    /// The least-squares position on `floor` at height `z` for mean RSSI `targets` (less the
    /// model's power at 1 m) heard by `nodes`. With no node heard, the floor's centre.
    mutating func fix(targets: [Double], nodes: [Int], floor index: Int, z: Double) -> Point2 {
        let (f, g) = gains(index, z: z)
        guard !nodes.isEmpty else { return centre(f, f.cells / 2) }
        // The loudest first: they change most from cell to cell, so a poor cell exceeds the
        // bound after a few nodes.
        let order = nodes.indices.sorted { targets[$0] > targets[$1] }
        let columns = order.map { nodes[$0] }, wanted = order.map { targets[$0] }
        let best = scan(g, nodes: columns, targets: wanted, columns: f.columns, cells: f.cells)
        // No cell kept: the targets are not finite (the channel's means always are).
        guard let first = best.first else { return centre(f, f.cells / 2) }
        var fix = centre(f, first.cell), fixCost = Double.infinity
        for start in best {
            let (q, cost) = refine(from: centre(f, start.cell), stride: max(f.spacing.x, f.spacing.y) / 4, targets: wanted,
                                   nodes: columns, floor: index, z: z)
            if cost < fixCost { fix = q; fixCost = cost }
        }
        return fix
    }

    /// The `starts` best grid points no two of which are neighbours. Each point's cost stops
    /// adding nodes once it passes the worst kept: the scan is exact, and most points stop early.
    private func scan(_ g: [Double], nodes: [Int], targets: [Double], columns: Int, cells: Int) -> [(cost: Double, cell: Int)] {
        var best: [(cost: Double, cell: Int)] = []
        for c in 0..<cells {
            let bound = best.count < Self.starts ? Double.infinity : best[best.count - 1].cost
            let base = c * nodeCount
            var cost = 0.0
            for j in nodes.indices {
                let d = targets[j] - g[base + nodes[j]]
                cost += d * d
                if cost >= bound { break }
            }
            guard cost < bound else { continue }
            BoundedSearch.keep(&best, cost: cost, cell: c, columns: columns, starts: Self.starts)
        }
        return best
    }

    /// The least-squares cost at `p`, on the exact model.
    func cost(_ p: Point2, targets: [Double], nodes: [Int], floor: Int, z: Double) -> Double {
        var r = [Double](repeating: 0, count: nodes.count)
        return residuals(p, targets: targets, nodes: nodes, floor: floor, z: z, into: &r)
    }

    /// Per node, `target - model` at `p`: walls along each line evaluated there, not read
    /// from the grid.
    private func residuals(_ p: Point2, targets: [Double], nodes: [Int], floor: Int, z: Double, into r: inout [Double]) -> Double {
        var sum = 0.0
        for (j, n) in nodes.enumerated() {
            r[j] = targets[j] + channel.pathLoss(Point3(p.x, p.y, z), node: n) + channel.obstruction(p, floor: floor, node: n)
            sum += r[j] * r[j]
        }
        return sum
    }

    /// Levenberg–Marquardt on (x, y) from `start`, kept inside the floor's bounds; walls are
    /// steps in the model, so only the path loss has a slope, and a step is kept only when the
    /// exact cost falls.
    private func refine(from start: Point2, stride: Double, targets: [Double], nodes: [Int], floor: Int, z: Double) -> (Point2, Double) {
        let bounds = channel.world.site.floors[floor].bounds
        var r = [Double](repeating: 0, count: nodes.count), trial = r
        var p = start, current = residuals(p, targets: targets, nodes: nodes, floor: floor, z: z, into: &r)
        var lambda = 1e-3
        for _ in 0..<40 {
            var a = 0.0, b = 0.0, c = 0.0, gx = 0.0, gy = 0.0
            for (j, n) in nodes.enumerated() {
                let node = channel.world.nodePoints[n]
                let dx = p.x - node.x, dy = p.y - node.y, dz = z - node.z
                let squared = dx * dx + dy * dy + dz * dz
                // d(-slope·log10 d)/dx; flat inside the 0.1 m the path loss is clamped at.
                let k = squared > 0.01 ? -channel.slope / (Elementary.ln10 * squared) : 0
                let jx = k * dx, jy = k * dy
                a += jx * jx; b += jx * jy; c += jy * jy; gx += jx * r[j]; gy += jy * r[j]
            }
            let a1 = a * (1 + lambda), c1 = c * (1 + lambda), det = a1 * c1 - b * b
            guard det > 1e-18 else { break }
            var sx = (c1 * gx - b * gy) / det, sy = (a1 * gy - b * gx) / det
            // On the floor's edge, pushing outward: solve along the edge alone.
            if (p.x <= bounds.min.x && sx < 0) || (p.x >= bounds.max.x && sx > 0) { sx = 0; sy = gy / c1 }
            if (p.y <= bounds.min.y && sy < 0) || (p.y >= bounds.max.y && sy > 0) {
                sy = 0
                sx = (p.x <= bounds.min.x && gx < 0) || (p.x >= bounds.max.x && gx > 0) ? 0 : gx / a1
            }
            let next = Point2(min(max(p.x + sx, bounds.min.x), bounds.max.x), min(max(p.y + sy, bounds.min.y), bounds.max.y))
            let nextCost = residuals(next, targets: targets, nodes: nodes, floor: floor, z: z, into: &trial)
            if nextCost < current {
                let moved = abs(next.x - p.x) + abs(next.y - p.y)
                p = next; current = nextCost; swap(&r, &trial); lambda = max(lambda / 10, 1e-9)
                if moved < 1e-4 { break }
            } else {
                lambda *= 10
                if lambda > 1e6 { break }
            }
        }
        return polish(p, cost: current, stride: stride, targets: targets, nodes: nodes, floor: floor, z: z)
    }

    /// A compass search from `p` down to 2 mm: the model's walls are steps, and the floor's
    /// edges a bound, where the slope alone stops short of the least cost nearby.
    private func polish(_ start: Point2, cost: Double, stride first: Double, targets: [Double], nodes: [Int], floor: Int, z: Double) -> (Point2, Double) {
        let bounds = channel.world.site.floors[floor].bounds
        var r = [Double](repeating: 0, count: nodes.count)
        return BoundedSearch.compass(from: start, cost: cost, stride: first, stop: 0.002, bounds: (bounds.min.xy, bounds.max.xy)) { q in
            residuals(q, targets: targets, nodes: nodes, floor: floor, z: z, into: &r)
        }
    }
}
