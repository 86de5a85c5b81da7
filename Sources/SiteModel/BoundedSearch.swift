/// The pieces of a bounded 2-D least-squares search shared by the simulated sites' oracle and
/// the real walks' oracle: both scan a grid, keep its best distinct cells, and refine each
/// without a gradient, since walls (steps in the model) and the floor's edges stop a slope.
public enum BoundedSearch {
    /// Keeps `best` (lowest cost first) the `starts` lowest cells no two of which are
    /// neighbours on a grid of `columns`: a cell beside a better one lies in its basin, and
    /// would only refine to it again.
    public static func keep(_ best: inout [(cost: Double, cell: Int)], cost: Double, cell: Int, columns: Int, starts: Int) {
        guard best.count < starts || cost < best[best.count - 1].cost else { return }
        func near(_ other: Int) -> Bool { abs(other % columns - cell % columns) <= 1 && abs(other / columns - cell / columns) <= 1 }
        guard !best.contains(where: { $0.cost <= cost && near($0.cell) }) else { return }
        best.removeAll { near($0.cell) }
        best.insert((cost, cell), at: best.firstIndex { $0.cost > cost } ?? best.count)
        if best.count > starts { best.removeLast() }
    }

    /// A compass search for the least `cost` from `start` (whose cost is `first`), inside
    /// `bounds`: steps of `stride` east, west, north and south while one lowers the cost, the
    /// stride halved when none does, until it is under `stop`.
    public static func compass(from start: Point2, cost first: Double, stride: Double, stop: Double,
                               bounds: (min: Point2, max: Point2), _ cost: (Point2) -> Double) -> (Point2, Double) {
        var p = start, current = first, stride = stride
        while stride >= stop {
            var moved = false
            for (dx, dy) in [(stride, 0.0), (-stride, 0), (0, stride), (0, -stride)] {
                let q = Point2(min(max(p.x + dx, bounds.min.x), bounds.max.x), min(max(p.y + dy, bounds.min.y), bounds.max.y))
                let c = cost(q)
                if c < current { p = q; current = c; moved = true }
            }
            if !moved { stride /= 2 }
        }
        return (p, current)
    }
}
