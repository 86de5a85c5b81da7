import Wire
import SiteModel

/// The site compiled for the engine: dense indices for floors, rooms, zones and nodes,
/// walls as flat segments, and which rooms a device may move between.
struct SiteGeometry: Sendable {
    struct FloorInfo: Sendable {
        var id: String
        var min: Point3
        var max: Point3
        var walls: [WallSegment]
        var rooms: [Int]
        /// The floor's rooms by where their boxes lie (`forEachRoom(near:within:floor:_:)`).
        var grid = RoomGrid()
    }

    struct WallSegment: Sendable {
        var a: Point2
        var b: Point2
        var attenuation: Double
    }

    /// A room or a non-room zone, with the floor it lies on.
    struct Area: Sendable {
        var id: String
        var floor: Int
        var points: [Point2]
        /// √area: how big a margin the area can afford.
        var size: Double
        /// The outline's bounding box: no point of the area is nearer to a point outside it.
        var low: Point2
        var high: Point2

        init(id: String, floor: Int, points: [Point2]) {
            self.id = id; self.floor = floor; self.points = points
            size = abs(Polygon.signedArea(points)).squareRoot()
            low = Point2(points.lazy.map(\.x).min() ?? .infinity, points.lazy.map(\.y).min() ?? .infinity)
            high = Point2(points.lazy.map(\.x).max() ?? -.infinity, points.lazy.map(\.y).max() ?? -.infinity)
        }

        /// Whether `p` lies in the bounding box widened by `margin` on every side.
        @inline(__always)
        func boxHolds(_ p: Point2, margin: Double) -> Bool {
            p.x >= low.x - margin && p.x <= high.x + margin && p.y >= low.y - margin && p.y <= high.y + margin
        }

        /// How far `p` lies outside the bounding box (0 inside it): a lower bound of its
        /// distance to the area.
        func boxDistance(_ p: Point2) -> Double {
            let dx = max(low.x - p.x, 0, p.x - high.x), dy = max(low.y - p.y, 0, p.y - high.y)
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    struct NodeInfo: Sendable {
        var name: String
        var point: Point3
        /// Floor indices this node hears; every floor when the site lists none.
        var floors: [Int]
        var rxAdj: Double
    }

    var floors: [FloorInfo] = []
    var rooms: [Area] = []
    var zones: [Area] = []
    var nodes: [NodeInfo] = []
    /// `roomCount × roomCount`: whether a device may go straight from one room to the other.
    var adjacent: [Bool] = []
    /// Per room, the rooms `adjacent` joins it to (the room posterior's transitions).
    var neighbours: [[Int32]] = []
    /// Per node: the room its position lies in on its floor, -1 when none (or several floors).
    var nodeRooms: [Int] = []
    /// Height of a carried device above its floor (`EngineOptions.deviceHeight`), m.
    var deviceHeight: Double?
    /// Per floor, for the default locator's global search; empty for the other locators.
    var grids: [LossGrid] = []
    /// The calibration's radio map, tabulated (empty without one).
    var radioMap = RadioMapGrid()

    /// Tabulates the path loss to a grid over every floor at the usual device height.
    mutating func buildGrids(slope: Double, height: Double) {
        grids = floors.indices.map { LossGrid(floor: $0, site: self, slope: slope, height: height) }
    }

    init(_ site: Site) {
        var floorIndex: [String: Int] = [:]
        for (f, floor) in site.floors.enumerated() {
            floorIndex[floor.id] = f
            var info = FloorInfo(id: floor.id, min: floor.bounds.min, max: floor.bounds.max, walls: [], rooms: [])
            for wall in floor.walls where wall.points.count >= 2 {
                for i in 1..<wall.points.count {
                    info.walls.append(WallSegment(a: wall.points[i - 1], b: wall.points[i], attenuation: wall.attenuation))
                }
            }
            for room in floor.rooms {
                info.rooms.append(rooms.count)
                rooms.append(Area(id: room.id, floor: f, points: room.points))
            }
            floors.append(info)
        }
        for f in floors.indices { floors[f].grid = Self.grid(of: floors[f].rooms, rooms) }
        zones = site.zones.map { Area(id: $0.id, floor: floorIndex[$0.floor] ?? -1, points: $0.points) }
        nodes = site.nodes.map { node in
            let listed = node.floors.compactMap { floorIndex[$0] }
            return NodeInfo(name: node.name, point: node.point,
                            floors: listed.isEmpty ? Array(site.floors.indices) : listed, rxAdj: node.rxAdj)
        }
        adjacent = Self.adjacency(site: site, rooms: rooms)
        if let map = site.radioMap { radioMap = RadioMapGrid(map, site: site) }
        neighbours = rooms.indices.map { a in rooms.indices.filter { $0 != a && adjacent[a * rooms.count + $0] }.map { Int32($0) } }
        nodeRooms = nodes.indices.map { n in
            let node = nodes[n]
            // A node placed by room (a site without a floor plan) is in that room.
            if let room = site.nodes[n].room { return rooms.firstIndex { $0.id == room } ?? -1 }
            guard node.floors.count == 1, let floor = node.floors.first else { return -1 }
            return floors[floor].rooms.first { Polygon.contains(rooms[$0].points, node.point.xy) } ?? -1
        }
    }

    /// Calls `body` once for each room on `floor` whose bounding box may lie within `distance`
    /// of `p` — every one that does, and maybe a few more (the caller tests each), in no set
    /// order — and for each room whose box is not finite.
    func forEachRoom(near p: Point2, within distance: Double, floor: Int, _ body: (Int) -> Void) {
        guard floors.indices.contains(floor) else { return }
        // Through the floor's element in place: a copy of the grid retains and releases its arrays.
        floors[floor].grid.forEachRoom(near: p, within: distance, every: floors[floor].rooms, body)
    }

    /// Summed attenuation of the walls crossed by the line from `a` to `b` on `floor`.
    func wallLoss(floor: Int, from a: Point2, to b: Point2) -> Double {
        guard floors.indices.contains(floor) else { return 0 }
        var loss = 0.0
        for wall in floors[floor].walls where Segment.intersects(a, b, wall.a, wall.b) {
            loss += wall.attenuation
        }
        return loss
    }

    /// The loss beyond distance between a device at `p` on `floor` and node `n`: the walls the
    /// line of sight crosses, less the radio map's correction there (louder than the model: less loss).
    @inline(__always)
    func extraLoss(node n: Int, floor: Int, at p: Point2) -> Double {
        let walls = wallLoss(floor: floor, from: p, to: nodes[n].point.xy)
        return radioMap.isEmpty ? walls : walls - radioMap.correction(node: n, floor: floor, at: p)
    }

    /// The room on `floor` containing `p`, else the nearest one (rooms partition a floor,
    /// so a point in no room sits in a gap of the drawing), with the depth inside it.
    ///
    /// Only rooms whose bounding box comes near `p` are measured (`forEachRoom`): a site of a
    /// hundred rooms measured every outline (most of a solve's instructions at 50,000 devices,
    /// docs/benchmarks.md), where at most a few boxes come near `p`. The answer is the same
    /// room and depth as measuring them all in order.
    func room(at p: Point2, floor: Int) -> (room: Int, depth: Double)? {
        guard floors.indices.contains(floor) else { return nil }
        // A point outside a room's box widened by `boxMargin` is not within `Polygon.contains`'s
        // 1e-9 of its outline, and its ray crosses the outline an even number of times (a point
        // that is not a number is in no box, and in no room either).
        // The first room in the floor's order (the lowest index) that holds `p`, of those whose
        // box comes near it.
        // The closure takes the rooms alone: capturing `self` copied the whole geometry per call.
        var first = Int.max
        let rooms = self.rooms, margin = Self.boxMargin
        forEachRoom(near: p, within: margin, floor: floor) { r in
            if r < first && rooms[r].boxHolds(p, margin: margin) && Polygon.contains(rooms[r].points, p) { first = r }
        }
        if first != Int.max { return (first, Polygon.distanceToBoundary(rooms[first].points, p)) }
        return nearestRoom(to: p, floor: floor)
    }

    /// The room whose outline is nearest to `p` (the first of equals), depth negative: for a
    /// point in no room. A room whose box lies farther than the nearest outline so far cannot
    /// be nearer, so its outline is not measured.
    private func nearestRoom(to p: Point2, floor: Int) -> (room: Int, depth: Double)? {
        var nearest: (room: Int, depth: Double)?
        for r in floors[floor].rooms where !(rooms[r].boxDistance(p) > Self.boxMargin - (nearest?.depth ?? -.infinity)) {
            let edge = Polygon.distanceToBoundary(rooms[r].points, p)
            if -edge > (nearest?.depth ?? -.infinity) { nearest = (r, -edge) }
        }
        return nearest
    }

    /// Metres by which a box test may err toward measuring: far above `Polygon.contains`'s
    /// 1e-9 and the rounding of distances on any floor plan, far below a room's size.
    private static let boxMargin = 1e-6

    /// How deep `p` lies inside `room` (m), negative outside it.
    func signedDepth(room r: Int, at p: Point2) -> Double {
        let edge = Polygon.distanceToBoundary(rooms[r].points, p)
        return Polygon.contains(rooms[r].points, p) ? edge : -edge
    }

    /// `p` moved into the box of `floor`.
    func clamp(_ p: Point3, floor: Int) -> Point3 {
        let f = floors[floor]
        return Point3(Swift.min(Swift.max(p.x, f.min.x), f.max.x),
                      Swift.min(Swift.max(p.y, f.min.y), f.max.y),
                      Swift.min(Swift.max(p.z, f.min.z), f.max.z))
    }

    func mayMove(from a: Int, to b: Int) -> Bool {
        a == b || adjacent[a * rooms.count + b]
    }

    /// Doors decide adjacency on a floor that has any; elsewhere rooms whose outlines come
    /// within 0.3 m of each other are adjacent, and on a floor without a plan every two rooms. Rooms on different floors are never adjacent.
    private static func adjacency(site: Site, rooms: [Area]) -> [Bool] {
        let n = rooms.count
        var adjacent = [Bool](repeating: false, count: n * n)
        var index: [String: Int] = [:]
        for (i, room) in rooms.enumerated() where index[room.id] == nil { index[room.id] = i }
        for (f, floor) in site.floors.enumerated() {
            let here = rooms.indices.filter { rooms[$0].floor == f }
            if !floor.doors.isEmpty {
                for door in floor.doors {
                    guard let a = index[door.between.0], let b = index[door.between.1] else { continue }
                    adjacent[a * n + b] = true
                    adjacent[b * n + a] = true
                }
                continue
            }
            for a in here {
                // Without a plan and without doors nothing says which rooms join: any may.
                for b in here where b > a && (!floor.hasPlan || touching(rooms[a].points, rooms[b].points)) {
                    adjacent[a * n + b] = true
                    adjacent[b * n + a] = true
                }
            }
        }
        return adjacent
    }

    private static func touching(_ p: [Point2], _ q: [Point2], within tolerance: Double = 0.3) -> Bool {
        p.contains { Polygon.distanceToBoundary(q, $0) <= tolerance }
            || q.contains { Polygon.distanceToBoundary(p, $0) <= tolerance }
    }
}
