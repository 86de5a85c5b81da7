import Wire

extension WalkOracleSearch {
    /// The cost at `p`, on the exact model (not the grid's table).
    func cost(_ terms: Terms, at p: Point2) -> Double {
        terms.cost { squaredDistance(p, $0).basis }
    }

    private func squaredDistance(_ p: Point2, _ j: Int) -> (basis: Double, dx: Double, dy: Double, squared: Double) {
        let node = oracle.nodes[j].point
        let dx = p.x - node.x, dy = p.y - node.y, dz = z - node.z
        let squared = dx * dx + dy * dy + dz * dz
        return (logDistanceBasis(squared: squared), dx, dy, squared)
    }

    /// Levenberg–Marquardt on (x, y) from `start`, kept inside the floor's bounds (a step
    /// pushing out of an edge is solved along the edge), then a compass search down to 1 mm.
    func refine(_ terms: Terms, from start: Point2) -> (Point2, Double) {
        var p = start, current = cost(terms, at: p), lambda = 1e-3
        for _ in 0..<50 {
            let (a, b, c, gx, gy) = normalEquations(terms, at: p)
            let a1 = a * (1 + lambda) + 1e-12, c1 = c * (1 + lambda) + 1e-12, det = a1 * c1 - b * b
            guard det > 0 else { break }
            let step = boundedStep(p, sx: -(c1 * gx - b * gy) / det, sy: -(a1 * gy - b * gx) / det, gx: gx, gy: gy, a1: a1, c1: c1)
            let next = clamped(Point2(p.x + step.x, p.y + step.y))
            let nextCost = cost(terms, at: next)
            if nextCost < current {
                let moved = abs(next.x - p.x) + abs(next.y - p.y)
                p = next; current = nextCost; lambda = max(lambda / 10, 1e-9)
                if moved < 1e-5 { break }
            } else {
                lambda *= 10
                if lambda > 1e8 { break }
            }
        }
        return polish(terms, from: p, cost: current)
    }

    /// `JᵀWJ` (a, b; b, c) and `JᵀW r` (gx, gy) at `p`, for residuals `r = target - n·basis`
    /// about their weighted mean when the reference is free.
    private func normalEquations(_ terms: Terms, at p: Point2) -> (Double, Double, Double, Double, Double) {
        let count = terms.receivers.count
        var r = [Double](repeating: 0, count: count), jx = r, jy = r
        for k in 0..<count {
            let d = squaredDistance(p, terms.receivers[k])
            // d(-n·basis)/dx = n·10/ln10·dx/d²; flat inside the 0.1 m the distance is clamped at.
            let slope = d.squared > 0.01 ? terms.exponents[k] * 10 / (2.302585092994046 * d.squared) : 0
            r[k] = terms.targets[k] - terms.exponents[k] * d.basis
            jx[k] = slope * d.dx; jy[k] = slope * d.dy
        }
        if terms.freeReference {
            let weight = max(terms.weights.reduce(0, +), .leastNormalMagnitude)
            func centre(_ values: inout [Double]) {
                let mean = zip(values, terms.weights).reduce(0) { $0 + $1.0 * $1.1 } / weight
                for k in values.indices { values[k] -= mean }
            }
            centre(&r); centre(&jx); centre(&jy)
        }
        var a = 0.0, b = 0.0, c = 0.0, gx = 0.0, gy = 0.0
        for k in 0..<count {
            let w = terms.weights[k]
            a += w * jx[k] * jx[k]; b += w * jx[k] * jy[k]; c += w * jy[k] * jy[k]; gx += w * jx[k] * r[k]; gy += w * jy[k] * r[k]
        }
        return (a, b, c, gx, gy)
    }

    /// The step, with the component pushing out of an edge the point is on removed and the
    /// other solved alone.
    private func boundedStep(_ p: Point2, sx: Double, sy: Double, gx: Double, gy: Double, a1: Double, c1: Double) -> Point2 {
        let bounds = oracle.grid.bounds
        var sx = sx, sy = sy
        let outX = (p.x <= bounds.min.x && sx < 0) || (p.x >= bounds.max.x && sx > 0)
        let outY = (p.y <= bounds.min.y && sy < 0) || (p.y >= bounds.max.y && sy > 0)
        if outX { sx = 0; sy = outY ? 0 : -gy / c1 }
        if outY { sy = 0; sx = outX ? 0 : -gx / a1 }
        return Point2(sx, sy)
    }

    private func clamped(_ p: Point2) -> Point2 {
        let bounds = oracle.grid.bounds
        return Point2(min(max(p.x, bounds.min.x), bounds.max.x), min(max(p.y, bounds.min.y), bounds.max.y))
    }

    /// A compass search from `p` down to 1 mm, starting at a quarter of the grid's step: where
    /// an edge bounds the slope, the slope alone can stop short of the least cost nearby.
    private func polish(_ terms: Terms, from start: Point2, cost first: Double) -> (Point2, Double) {
        var p = start, current = first
        var stride = max(oracle.grid.spacing.x, oracle.grid.spacing.y) / 4
        while stride >= 0.001 {
            var moved = false
            for (dx, dy) in [(stride, 0.0), (-stride, 0), (0, stride), (0, -stride)] {
                let q = clamped(Point2(p.x + dx, p.y + dy))
                let c = cost(terms, at: q)
                if c < current { p = q; current = c; moved = true }
            }
            if !moved { stride /= 2 }
        }
        return (p, current)
    }
}
