import Wire

extension WalkOracleSearch {
    /// The cost at `p`, on the exact model (not the grid's table).
    func cost(_ terms: Terms, at p: Point2) -> Double {
        terms.cost { squaredDistance(p, $0) }
    }

    private func squaredDistance(_ p: Point2, _ j: Int) -> Double {
        let node = oracle.nodes[j].point
        let dx = p.x - node.x, dy = p.y - node.y, dz = z - node.z
        return logDistanceBasis(squared: dx * dx + dy * dy + dz * dz)
    }

    /// A compass search from `start` (a grid point) down to 1 mm, starting at a quarter of the
    /// grid's step and kept inside the floor's bounds: it needs no gradient, so an edge that
    /// bounds the slope cannot stop it short of the least cost nearby.
    func refine(_ terms: Terms, from start: Point2) -> (Point2, Double) {
        let bounds = oracle.grid.bounds
        var p = start, current = cost(terms, at: p)
        var stride = max(oracle.grid.spacing.x, oracle.grid.spacing.y) / 4
        while stride >= 0.001 {
            var moved = false
            for (dx, dy) in [(stride, 0.0), (-stride, 0), (0, stride), (0, -stride)] {
                let q = Point2(min(max(p.x + dx, bounds.min.x), bounds.max.x), min(max(p.y + dy, bounds.min.y), bounds.max.y))
                let c = cost(terms, at: q)
                if c < current { p = q; current = c; moved = true }
            }
            if !moved { stride /= 2 }
        }
        return (p, current)
    }
}
