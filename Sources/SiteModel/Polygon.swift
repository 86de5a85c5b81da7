/// Plane geometry on floor plans: the few primitives rooms, zones and walls need.
public enum Polygon {
    /// Whether `p` lies inside the polygon (even-odd rule); points on an edge count as inside.
    public static func contains(_ polygon: [Point2], _ p: Point2) -> Bool {
        guard polygon.count >= 3 else { return false }
        var inside = false
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[j]
            if Segment.distance(p, a, b) < 1e-9 { return true }
            if (a.y > p.y) != (b.y > p.y) {
                let xCross = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x
                if p.x < xCross { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Signed area (positive when counter-clockwise).
    public static func signedArea(_ polygon: [Point2]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var sum = 0.0
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            sum += (polygon[j].x * polygon[i].y) - (polygon[i].x * polygon[j].y)
            j = i
        }
        return sum / 2
    }

    /// The area centroid; the vertex mean for a degenerate polygon.
    public static func centroid(_ polygon: [Point2]) -> Point2 {
        let area = signedArea(polygon)
        guard abs(area) > 1e-12 else {
            let n = Double(max(polygon.count, 1))
            return Point2(polygon.reduce(0) { $0 + $1.x } / n, polygon.reduce(0) { $0 + $1.y } / n)
        }
        var cx = 0.0, cy = 0.0
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            let cross = polygon[j].x * polygon[i].y - polygon[i].x * polygon[j].y
            cx += (polygon[j].x + polygon[i].x) * cross
            cy += (polygon[j].y + polygon[i].y) * cross
            j = i
        }
        return Point2(cx / (6 * area), cy / (6 * area))
    }

    /// Distance from `p` to the polygon's boundary.
    public static func distanceToBoundary(_ polygon: [Point2], _ p: Point2) -> Double {
        var best = Double.infinity
        var j = polygon.count - 1
        for i in 0..<polygon.count {
            best = min(best, Segment.distance(p, polygon[j], polygon[i]))
            j = i
        }
        return best
    }
}

public enum Segment {
    /// Distance from `p` to the segment `a`–`b`.
    public static func distance(_ p: Point2, _ a: Point2, _ b: Point2) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared : 0
        t = max(0, min(1, t))
        let ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y
        return (ex * ex + ey * ey).squareRoot()
    }

    /// Whether segments `p1`–`p2` and `q1`–`q2` cross (touching counts).
    public static func intersects(_ p1: Point2, _ p2: Point2, _ q1: Point2, _ q2: Point2) -> Bool {
        func orient(_ a: Point2, _ b: Point2, _ c: Point2) -> Double { (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) }
        func within(_ a: Point2, _ b: Point2, _ c: Point2) -> Bool {
            min(a.x, b.x) - 1e-12 <= c.x && c.x <= max(a.x, b.x) + 1e-12 && min(a.y, b.y) - 1e-12 <= c.y && c.y <= max(a.y, b.y) + 1e-12
        }
        let d1 = orient(q1, q2, p1), d2 = orient(q1, q2, p2), d3 = orient(p1, p2, q1), d4 = orient(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0 && within(q1, q2, p1) { return true }
        if d2 == 0 && within(q1, q2, p2) { return true }
        if d3 == 0 && within(p1, p2, q1) { return true }
        if d4 == 0 && within(p1, p2, q2) { return true }
        return false
    }
}
