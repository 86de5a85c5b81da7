import Wire

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
        let doors = site.floors[floor].doors
        guard let startRoom = room(floor, a), let endRoom = room(floor, b), startRoom != endRoom, !doors.isEmpty else { return [b] }
        let rooms = site.floors[floor].rooms
        // State i: door i/2 crossed into its room (i % 2 == 0 ? first : second).
        let sides = doors.map { door -> (Point2, Point2)? in
            guard let r0 = rooms.firstIndex(where: { $0.id == door.between.0 }),
                  let r1 = rooms.firstIndex(where: { $0.id == door.between.1 }) else { return nil }
            return (approach(floor, door.at, room: r0), approach(floor, door.at, room: r1))
        }
        func roomOf(_ state: Int) -> Int? {
            let door = doors[state / 2]
            return rooms.firstIndex { $0.id == (state % 2 == 0 ? door.between.0 : door.between.1) }
        }
        func point(_ state: Int) -> Point2? { sides[state / 2].map { state % 2 == 0 ? $0.0 : $0.1 } }
        /// Entering state `s` from a point in the other room: the near approach, the door, the far approach.
        func entry(_ s: Int) -> (near: Point2, far: Point2)? {
            guard let pair = sides[s / 2] else { return nil }
            return s % 2 == 0 ? (pair.1, pair.0) : (pair.0, pair.1)
        }
        let count = doors.count * 2
        var distance = [Double](repeating: .infinity, count: count)
        var previous = [Int](repeating: -1, count: count)
        var done = [Bool](repeating: false, count: count)
        func relax(from p: Point2, base: Double, inRoom r: Int, via: Int) {
            for s in 0..<count where !done[s] {
                guard let e = entry(s), roomOf(s ^ 1) == r else { continue }
                let door = doors[s / 2].at
                let d = base + length(p, e.near) + length(e.near, door) + length(door, e.far)
                if d < distance[s] { distance[s] = d; previous[s] = via }
            }
        }
        relax(from: a, base: 0, inRoom: startRoom, via: -1)
        var best = (cost: Double.infinity, state: -1)
        while let s = (0..<count).filter({ !done[$0] && distance[$0].isFinite }).min(by: { distance[$0] < distance[$1] }) {
            done[s] = true
            guard let here = point(s), let r = roomOf(s) else { continue }
            if r == endRoom, distance[s] + length(here, b) < best.cost { best = (distance[s] + length(here, b), s) }
            relax(from: here, base: distance[s], inRoom: r, via: s)
        }
        guard best.state >= 0 else { return [b] }
        var chain: [Int] = []
        var s = best.state
        while s >= 0 { chain.append(s); s = previous[s] }
        var points: [Point2] = []
        for s in chain.reversed() {
            guard let e = entry(s) else { continue }
            points += [e.near, doors[s / 2].at, e.far]
        }
        return points + [b]
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
