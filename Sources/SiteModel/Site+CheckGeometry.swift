/// The plane geometry behind `Site.geometryWarnings`.
extension Site {
    /// A point well inside a polygon: the centroid when it is inside, else the grid point
    /// farthest from the outline (an L-shaped room's centroid can lie outside it).
    static func interiorPoint(_ polygon: [Point2]) -> Point2 {
        let centroid = Polygon.centroid(polygon)
        if Polygon.contains(polygon, centroid) && Polygon.distanceToBoundary(polygon, centroid) > 0.1 { return centroid }
        let box = boundingBox(polygon)
        var best = centroid, bestDistance = -1.0
        let steps = 24
        for i in 0..<steps {
            for j in 0..<steps {
                let p = Point2(box.min.x + (Double(i) + 0.5) * (box.max.x - box.min.x) / Double(steps),
                               box.min.y + (Double(j) + 0.5) * (box.max.y - box.min.y) / Double(steps))
                guard Polygon.contains(polygon, p) else { continue }
                let d = Polygon.distanceToBoundary(polygon, p)
                if d > bestDistance { best = p; bestDistance = d }
            }
        }
        return best
    }

    /// Wall segments the straight line from `a` to `b` crosses.
    static func wallsCrossed(_ walls: [Wall], _ a: Point2, _ b: Point2) -> Int {
        var count = 0
        for wall in walls where wall.points.count >= 2 {
            for k in 1..<wall.points.count where Segment.intersects(a, b, wall.points[k - 1], wall.points[k]) {
                count += 1
            }
        }
        return count
    }

    /// The extent of the points along their best-fit line and the width of the band across it.
    static func lineBand(_ points: [Point2]) -> (length: Double, width: Double) {
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.x } / n, my = points.reduce(0) { $0 + $1.y } / n
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for p in points { sxx += (p.x - mx) * (p.x - mx); syy += (p.y - my) * (p.y - my); sxy += (p.x - mx) * (p.y - my) }
        // The covariance's main eigenvector, without trigonometry (this module links no libm calls but sqrt).
        let largest = (sxx + syy) / 2 + (((sxx - syy) / 2) * ((sxx - syy) / 2) + sxy * sxy).squareRoot()
        var ux = largest - syy, uy = sxy
        if abs(ux) + abs(uy) < 1e-12 { ux = sxy; uy = largest - sxx }
        if abs(ux) + abs(uy) < 1e-12 { ux = 1; uy = 0 }
        let norm = (ux * ux + uy * uy).squareRoot()
        ux /= norm; uy /= norm
        let along = points.map { (p: Point2) in (p.x - mx) * ux + (p.y - my) * uy }
        let across = points.map { (p: Point2) in -(p.x - mx) * uy + (p.y - my) * ux }
        return ((along.max() ?? 0) - (along.min() ?? 0), (across.max() ?? 0) - (across.min() ?? 0))
    }

    /// The area inside both polygons, estimated on a 16 × 16 grid over their common box;
    /// 0 when they only share edges or the overlap is under 0.05 m².
    static func overlapArea(_ a: [Point2], _ b: [Point2]) -> Double {
        let ba = boundingBox(a), bb = boundingBox(b)
        let lo = Point2(max(ba.min.x, bb.min.x), max(ba.min.y, bb.min.y))
        let hi = Point2(min(ba.max.x, bb.max.x), min(ba.max.y, bb.max.y))
        guard hi.x - lo.x > 1e-6, hi.y - lo.y > 1e-6 else { return 0 }
        let steps = 16
        let cx = (hi.x - lo.x) / Double(steps), cy = (hi.y - lo.y) / Double(steps)
        var inside = 0
        for i in 0..<steps {
            for j in 0..<steps {
                let p = Point2(lo.x + (Double(i) + 0.5) * cx, lo.y + (Double(j) + 0.5) * cy)
                if strictlyInside(a, p) && strictlyInside(b, p) { inside += 1 }
            }
        }
        let area = Double(inside) * cx * cy
        return area >= 0.05 ? area : 0
    }

    private static func strictlyInside(_ polygon: [Point2], _ p: Point2) -> Bool {
        Polygon.contains(polygon, p) && Polygon.distanceToBoundary(polygon, p) > 1e-6
    }

    static func boundingBox(_ polygon: [Point2]) -> (min: Point2, max: Point2) {
        var lo = Point2(.infinity, .infinity), hi = Point2(-.infinity, -.infinity)
        for p in polygon { lo = Point2(min(lo.x, p.x), min(lo.y, p.y)); hi = Point2(max(hi.x, p.x), max(hi.y, p.y)) }
        return (lo, hi)
    }

    static func rounded(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        // Coordinates are any finite numbers: a band 2e19 m long is beyond `Int` (whose
        // init traps); such a length is shown as the Double it is.
        return tenths == tenths.rounded() && abs(tenths) < 1e15 ? String(Int(tenths)) : String(tenths)
    }
}
