import Wire
import SiteModel

/// Walking routes on one floor that go from room to room only through doors, as people do,
/// so the ground truth never passes through a wall.
///
/// A door is crossed square to its wall: from a point just inside one room, through the
/// door point, to a point just inside the other. The route is the shortest such chain
/// (Dijkstra over doors entered from each side), straight lines within each room.
extension World {
    /// How far either side of a door its approach points lie (m).
    static let doorApproach = 0.5

    /// The points to walk through from `a` to `b` on `floor`, `b` included, `a` not.
    /// Straight when both are in one room, outside every room, or no door chain joins them.
    func route(_ floor: Int, from a: Point2, to b: Point2) -> [Point2] {
        guard let startRoom = room(floor, a), let endRoom = room(floor, b), startRoom != endRoom,
              !site.floors[floor].doors.isEmpty else { return [b] }
        let graph = DoorGraph(world: self, floor: floor)
        guard let chain = graph.shortestChain(from: a, in: startRoom, to: b, in: endRoom) else { return [b] }
        return chain.flatMap { graph.crossing($0) } + [b]
    }

    /// A point `doorApproach` from the door inside `room`: of eight directions, the first
    /// whose point the room holds away from its walls; the door itself if none.
    func approach(_ floor: Int, _ door: Point2, room r: Int) -> Point2 {
        let polygon = site.floors[floor].rooms[r].points
        let d = World.doorApproach, diagonal = d * 0.7071067811865476
        let offsets = [(d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d),
                       (diagonal, diagonal), (-diagonal, diagonal), (diagonal, -diagonal), (-diagonal, -diagonal)]
        for (dx, dy) in offsets {
            let p = Point2(door.x + dx, door.y + dy)
            if Polygon.contains(polygon, p) && Polygon.distanceToBoundary(polygon, p) > 0.05 { return p }
        }
        return door
    }

    /// A point of the room drawn uniformly, kept `margin` m off its walls where it can be.
    func randomPoint(_ floor: Int, room r: Int, margin: Double, rng: inout RandomStream) -> Point2 {
        let polygon = site.floors[floor].rooms[r].points
        let xs = polygon.map(\.x), ys = polygon.map(\.y)
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return Point2(0, 0) }
        for _ in 0..<200 {
            let p = Point2(rng.uniform(x0...x1), rng.uniform(y0...y1))
            if Polygon.contains(polygon, p) && Polygon.distanceToBoundary(polygon, p) >= margin { return p }
        }
        return Polygon.centroid(polygon)
    }
}

func length(_ a: Point2, _ b: Point2) -> Double {
    let dx = b.x - a.x, dy = b.y - a.y
    return (dx * dx + dy * dy).squareRoot()
}

/// Doors as a graph for routing. State `2i` is "through door i into its first room", `2i + 1`
/// "into its second"; crossing goes from the near side's approach point, through the door,
/// to the far side's.
private struct DoorGraph {
    let doors: [Door]
    /// Per door, the rooms it joins and their approach points, `nil` for a door naming a room
    /// the floor does not have.
    let sides: [(rooms: (Int, Int), points: (Point2, Point2))?]

    init(world: World, floor: Int) {
        let rooms = world.site.floors[floor].rooms
        doors = world.site.floors[floor].doors
        sides = doors.map { door in
            guard let r0 = rooms.firstIndex(where: { $0.id == door.between.0 }),
                  let r1 = rooms.firstIndex(where: { $0.id == door.between.1 }) else { return nil }
            return ((r0, r1), (world.approach(floor, door.at, room: r0), world.approach(floor, door.at, room: r1)))
        }
    }

    /// The room a state ends in and the room it starts from.
    func into(_ s: Int) -> Int? { sides[s / 2].map { s % 2 == 0 ? $0.rooms.0 : $0.rooms.1 } }
    func from(_ s: Int) -> Int? { into(s ^ 1) }

    /// The near approach, the door and the far approach of crossing in state `s`.
    func crossing(_ s: Int) -> [Point2] {
        guard let side = sides[s / 2] else { return [] }
        let (near, far) = s % 2 == 0 ? (side.points.1, side.points.0) : (side.points.0, side.points.1)
        return [near, doors[s / 2].at, far]
    }

    func cost(from p: Point2, through s: Int) -> Double {
        let c = crossing(s)
        return c.count == 3 ? length(p, c[0]) + length(c[0], c[1]) + length(c[1], c[2]) : .infinity
    }

    /// The door crossings of the shortest walk (Dijkstra; floors have tens of doors at most).
    func shortestChain(from a: Point2, in startRoom: Int, to b: Point2, in endRoom: Int) -> [Int]? {
        let count = doors.count * 2
        var distance = (0..<count).map { from($0) == startRoom ? cost(from: a, through: $0) : .infinity }
        var previous = [Int](repeating: -1, count: count)
        var done = [Bool](repeating: false, count: count)
        var best = (cost: Double.infinity, state: -1)
        while let s = (0..<count).filter({ !done[$0] && distance[$0].isFinite }).min(by: { distance[$0] < distance[$1] }) {
            done[s] = true
            guard let here = crossing(s).last, let r = into(s) else { continue }
            if r == endRoom, distance[s] + length(here, b) < best.cost { best = (distance[s] + length(here, b), s) }
            for next in 0..<count where !done[next] && from(next) == r {
                let d = distance[s] + cost(from: here, through: next)
                if d < distance[next] { distance[next] = d; previous[next] = s }
            }
        }
        guard best.state >= 0 else { return nil }
        var chain: [Int] = []
        var s = best.state
        while s >= 0 { chain.append(s); s = previous[s] }
        return chain.reversed()
    }
}
