import Testing
@testable import Positioning
import Wire
import SiteModel

// `LossGrid.best` computes eight cells at a time in SIMD lanes; it must choose the cell a
// plain loop per cell chooses, bit for bit, at every stride and row width.

struct GridLanesTests {
    /// One 41 × 27 m floor with walls and a node every 6 m: searches around a few nodes span
    /// every stride from 1 to 3 and rows of every width modulo eight.
    static let site: Site = {
        var site = Site()
        var floor = Floor(id: "hall", name: "Hall", bounds: (Point3(0, 0, 0), Point3(41, 27, 3)))
        floor.walls = [Wall(points: [Point2(13, 0), Point2(13, 20)], attenuation: 5), Wall(points: [Point2(20, 9), Point2(41, 9)], attenuation: 3)]
        site.floors = [floor]
        for x in stride(from: 2.0, through: 40, by: 6) {
            for y in stride(from: 1.5, through: 26, by: 6) { site.nodes.append(Node(name: "n\(site.nodes.count)", point: Point3(x, y, 2.4))) }
        }
        site.positioning.absorption = 2.7
        return site
    }()

    @Test func theLanesChooseTheCellALoopPerCellChooses() throws {
        let geometry = GridSearchTests.geometry(Self.site)
        let grid = try #require(geometry.grids.first)
        var rng = SeededGenerator(seed: 8)
        var strides = Set<Int>(), widths = Set<Int>()
        for _ in 0..<400 {
            // A few nodes near one another (as a device is heard), or far apart.
            let first = Int.random(in: 0..<Self.site.nodes.count, using: &rng)
            let spread = Bool.random(using: &rng) ? 7.0 : 40.0
            var obs: [Observation] = []
            for (i, node) in Self.site.nodes.enumerated() where obs.count < 6 && distance(node.point, Self.site.nodes[first].point) <= spread
                && (i == first || Bool.random(using: &rng)) {
                obs.append(Observation(node: Int32(i), position: node.point, rssi: Double.random(in: -95 ... -45, using: &rng),
                                       txRef: -59, samples: Int.random(in: 1...5, using: &rng),
                                       spread: Double.random(in: 1...1.6, using: &rng)))
            }
            let problem = Problem(sigma: 6, huber: 1.5, slope: PathLoss(exponent: 2.7).slope, floor: 0)
            let (expected, stride, width) = Self.cellChosenOneByOne(grid, obs, problem)
            strides.insert(stride)
            widths.insert(width % 8)
            #expect(grid.best(obs, problem: problem) == expected)
        }
        #expect(strides.isSuperset(of: [1, 2, 3]))
        #expect(widths.count == 8)
    }

    /// The search as it was before the lanes: every cell's cost summed in a loop of its own.
    static func cellChosenOneByOne(_ grid: LossGrid, _ obs: [Observation], _ problem: Problem) -> (Point3?, stride: Int, width: Int) {
        func index(_ v: Double, _ origin: Double, _ count: Int) -> Int { clampedIndex((v - origin) / grid.cell, 0, count - 1) }
        let xs = obs.map(\.position.x), ys = obs.map(\.position.y)
        let c0 = index(xs.min()! - LossGrid.reach, grid.origin.x, grid.columns), c1 = index(xs.max()! + LossGrid.reach, grid.origin.x, grid.columns)
        let r0 = index(ys.min()! - LossGrid.reach, grid.origin.y, grid.rows), r1 = index(ys.max()! + LossGrid.reach, grid.origin.y, grid.rows)
        var stride = 1
        while (c1 - c0 + 1) * (r1 - r0 + 1) / (stride * stride) > LossGrid.searchCells { stride += 1 }
        var best: (cost: Float, column: Int, row: Int)?
        let huber = Float(problem.huber)
        for r in Swift.stride(from: r0, through: r1, by: stride) {
            for c in Swift.stride(from: c0, through: c1, by: stride) {
                var cost: Float = 0
                for o in obs {
                    let e = abs((Float(o.rssi - o.txRef) + grid.loss[Int(o.node) * grid.cellCount + r * grid.columns + c])
                                * Float(1 / (problem.sigma * o.spread)))
                    cost += Float(problem.weight(o)) * (e <= huber ? 0.5 * e * e : huber * (e - 0.5 * huber))
                }
                if cost < best?.cost ?? .infinity { best = (cost, c, r) }
            }
        }
        return (best.map { grid.center(column: $0.column, row: $0.row) }, stride, (c1 - c0) / stride + 1)
    }
}
