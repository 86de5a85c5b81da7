import Wire
import SiteModel

/// The site as the simulation needs it: floors stacked by height, each node placed on the
/// floor it physically stands on, rooms found by point, and the walls between two points.
package struct World: Sendable {
    package let site: Site
    /// Each floor's storey counted from the lowest (floors at the same height share one).
    let levels: [Int]
    /// Each node's floor index, and its position.
    let nodeFloors: [Int]
    package let nodePoints: [Point3]
    /// Per floor, every wall's segments in the site's order, and where its doors are: the
    /// channel walks them for every line it draws, so they are laid out flat once.
    let segments: [[(p: Point2, q: Point2, attenuation: Double)]]
    let doorPoints: [[Point2]]

    init(site: Site) {
        self.site = site
        let heights = Array(Set(site.floors.map(\.bounds.min.z))).sorted()
        levels = site.floors.map { f in heights.firstIndex(of: f.bounds.min.z) ?? 0 }
        nodeFloors = site.nodes.map { Self.floor(of: $0, in: site) }
        nodePoints = site.nodes.map(\.point)
        segments = site.floors.map { f in
            f.walls.flatMap { wall in (1..<max(wall.points.count, 1)).map { (wall.points[$0 - 1], wall.points[$0], wall.attenuation) } }
        }
        doorPoints = site.floors.map { $0.doors.map(\.at) }
    }

    /// The floor a node stands on: of the floors it lists, the one whose height range holds it;
    /// else any floor whose box holds it; else the first it lists; else the first floor.
    static func floor(of node: Node, in site: Site) -> Int {
        let listed = site.floors.indices.filter { node.floors.contains(site.floors[$0].id) }
        func holdsHeight(_ i: Int) -> Bool { (site.floors[i].bounds.min.z...site.floors[i].bounds.max.z).contains(node.point.z) }
        if let i = listed.first(where: holdsHeight) { return i }
        if let i = site.floors.indices.first(where: { holdsHeight($0) && World.inBounds(site.floors[$0], node.point.xy) }) { return i }
        return listed.first ?? 0
    }

    static func inBounds(_ floor: Floor, _ p: Point2) -> Bool {
        (floor.bounds.min.x...floor.bounds.max.x).contains(p.x) && (floor.bounds.min.y...floor.bounds.max.y).contains(p.y)
    }

    func floorIndex(_ id: String) -> Int? { site.floors.firstIndex { $0.id == id } }

    /// The first floor whose box holds `p`, for waypoints that name no floor.
    func floorIndex(containing p: Point2) -> Int? { site.floors.firstIndex { World.inBounds($0, p) } }

    /// The room of `floor` holding `p` (the first listed, should rooms touch), if any.
    func room(_ floor: Int, _ p: Point2) -> Int? {
        site.floors[floor].rooms.firstIndex { Polygon.contains($0.points, p) }
    }

    /// (floor, room) of a room id; the first floor that has it.
    func room(named id: String) -> (floor: Int, room: Int)? {
        for (f, floor) in site.floors.enumerated() {
            if let r = floor.rooms.firstIndex(where: { $0.id == id }) { return (f, r) }
        }
        return nil
    }

    /// Height above ground of a device carried `height` m above floor `floor`.
    func z(_ floor: Int, height: Double) -> Double { site.floors[floor].bounds.min.z + height }

    /// dB of the walls of `floor` crossed by the line `a`–`b`. A crossing within
    /// `doorWidth / 2` of one of the floor's doors is the open door, and costs nothing.
    func wallLoss(_ floor: Int, _ a: Point2, _ b: Point2, doorWidth: Double) -> Double {
        var loss = 0.0
        for wall in segments[floor] {
            // Boxes apart (by more than `intersects`' tolerance) cannot cross: most walls of a
            // large floor are skipped before the four orientations are computed.
            guard min(a.x, b.x) <= max(wall.p.x, wall.q.x) + 1e-9, min(wall.p.x, wall.q.x) <= max(a.x, b.x) + 1e-9,
                  min(a.y, b.y) <= max(wall.p.y, wall.q.y) + 1e-9, min(wall.p.y, wall.q.y) <= max(a.y, b.y) + 1e-9,
                  Segment.intersects(a, b, wall.p, wall.q) else { continue }
            let crossing = World.crossing(a, b, wall.p, wall.q)
            let throughDoor = doorPoints[floor].contains { door in
                let dx = door.x - crossing.x, dy = door.y - crossing.y
                return (dx * dx + dy * dy).squareRoot() <= doorWidth / 2
            }
            if !throughDoor { loss += wall.attenuation }
        }
        return loss
    }

    /// Where `a`–`b` meets `p`–`q` (they intersect); the nearer end of `a`–`b` when parallel.
    static func crossing(_ a: Point2, _ b: Point2, _ p: Point2, _ q: Point2) -> Point2 {
        let rx = b.x - a.x, ry = b.y - a.y, sx = q.x - p.x, sy = q.y - p.y
        let denominator = rx * sy - ry * sx
        guard abs(denominator) > 1e-12 else { return Segment.distance(a, p, q) < Segment.distance(b, p, q) ? a : b }
        let t = ((p.x - a.x) * sy - (p.y - a.y) * sx) / denominator
        return Point2(a.x + t * rx, a.y + t * ry)
    }
}
