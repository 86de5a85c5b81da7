import Testing
@testable import Positioning
import Wire
import SiteModel

/// The room test at a solve weighs only the rooms near the fix and those holding evidence
/// (`SiteGeometry.forEachRoom`, `RoomTest.mayPrune`). Its room changes must be those of weighing
/// every room of the site in order, as it did: `EveryRoom` below is that test, run side by side
/// on the same fixes.
struct RoomNearTests {
    /// Two floors of 4 × 3 m rooms in a 6 × 5 grid with a corridor gap, an L-shaped room, a room
    /// drawn with no points, doors on the ground floor (the upper one joins touching rooms).
    private static func site() -> Site {
        var site = Site()
        for f in 0..<2 {
            var floor = Floor(id: "f\(f)", name: "F", bounds: (Point3(-2, -2, Double(f) * 3), Point3(27, 17, Double(f) * 3 + 3)))
            for r in 0..<5 {
                for c in 0..<6 where !(r == 4 && c >= 4) {
                    let x = Double(c) * 4 + (c >= 3 ? 0.5 : 0), y = Double(r) * 3
                    floor.rooms.append(Room(id: "f\(f)r\(r)c\(c)", name: "R",
                                            points: [Point2(x, y), Point2(x + 4, y), Point2(x + 4, y + 3), Point2(x, y + 3)]))
                }
            }
            floor.rooms.append(Room(id: "f\(f)ell", name: "L", points: [Point2(16.5, 12), Point2(24.5, 12), Point2(24.5, 13.5),
                                                                        Point2(20.5, 13.5), Point2(20.5, 16), Point2(16.5, 16)]))
            floor.rooms.append(Room(id: "f\(f)none", name: "None", points: []))
            if f == 0 {
                for r in 0..<5 {
                    for c in 0..<5 where !(r == 4 && c >= 3) {
                        floor.doors.append(Door(between: ("f0r\(r)c\(c)", "f0r\(r)c\(c + 1)"), at: Point2(0, 0)))
                    }
                }
                floor.doors.append(Door(between: ("f0r0c0", "f0r1c0"), at: Point2(0, 0)))
            }
            site.floors.append(floor)
        }
        return site
    }

    @Test(arguments: [(1, 1.0, 0.7, 1.5), (2, 1.0, 0.7, 1.5), (3, 0.8, 0.3, 1.1), (4, 2.0, 0.0, 2.0)] as [(UInt64, Double, Double, Double)])
    func roomChangesAreThoseOfWeighingEveryRoom(seed: UInt64, step: Double, drift: Double, heardStep: Double) {
        var options = EngineOptions()
        options.roomStep = step
        options.roomDrift = drift
        options.heardStep = heardStep
        let geometry = SiteGeometry(Self.site())
        var rng = SeededGenerator(seed: seed)
        var presence = Presence(), reference = EveryRoom()
        var got: [String] = [], expected: [String] = []
        // A walker who wanders, jumps now and then (a lost fix), changes floor, steps off the
        // plan, with nodes heard in a few rooms around it.
        var p = Point2(2, 2), floor = 0, t = 0.0
        for i in 0..<6_000 {
            p = Point2(p.x + rng.gaussian() * 0.6, p.y + rng.gaussian() * 0.6)
            if i % 500 == 250 { p = Point2(Double.random(in: -3..<28, using: &rng), Double.random(in: -3..<18, using: &rng)) }
            if i % 700 == 350 { floor = 1 - floor }
            t += Double.random(in: 0..<1.2, using: &rng)
            var heard = [Double](repeating: -.infinity, count: geometry.rooms.count)
            for _ in 0..<3 { heard[Int.random(in: 0..<heard.count, using: &rng)] = Double.random(in: -90 ..< -50, using: &rng) }
            let confidence = Double.random(in: 0..<0.8, using: &rng), contested = rng.next() % 4 == 0
            presence.observe(p, floor: floor, confidence: confidence, floorContested: contested, heard: heard, at: t,
                             site: geometry, options: options) { kind, zone, isRoom, dwell in
                if isRoom { got.append("\(kind) \(zone) \(dwell ?? -1)") }
            }
            reference.observe(p, floor: floor, confidence: confidence, floorContested: contested, heard: heard, at: t,
                              site: geometry, options: options) { kind, zone, dwell in expected.append("\(kind) \(zone) \(dwell ?? -1)") }
            #expect(presence.room == reference.room, "solve \(i)")
        }
        #expect(got == expected)
        #expect(got.count > 20, "the walk changes room often enough to test anything")
    }

    @Test func aPlanAtTheEdgeOfWhatADoubleHoldsIsLookedUpAsEveryOutlineWould() {
        // Extents that overflow (1e308 apart) and a tiny room far from the others: the grid of
        // boxes must neither trap nor leave a room out.
        var site = Site()
        var floor = Floor(id: "f", name: "F", bounds: (Point3(-1e308, -1e308, 0), Point3(1e308, 1e308, 3)))
        floor.rooms = [Room(id: "low", name: "L", points: [Point2(-1e308, -1e308), Point2(-9e307, -1e308), Point2(-9e307, -9e307), Point2(-1e308, -9e307)]),
                       Room(id: "mid", name: "M", points: [Point2(0, 0), Point2(4, 0), Point2(4, 3), Point2(0, 3)]),
                       Room(id: "tiny", name: "T", points: [Point2(10, 10), Point2(10.001, 10), Point2(10.001, 10.001), Point2(10, 10.001)]),
                       Room(id: "high", name: "H", points: [Point2(9e307, 9e307), Point2(1e308, 9e307), Point2(1e308, 1e308), Point2(9e307, 1e308)])]
        site.floors = [floor]
        let geometry = SiteGeometry(site)
        let points = [Point2(2, 1), Point2(10.0005, 10.0005), Point2(-9.5e307, -9.5e307), Point2(9.5e307, 9.5e307), Point2(50, -7), Point2(1e300, -1e300)]
        for p in points { Self.expectRoomAsEveryOutline(geometry, at: p) }
    }

    @Test func manyLargeOverlappingRoomsKeepTheGridSmallAndAreLookedUpAsEveryOutlineWould() {
        // 400 small rooms in a 20 × 20 grid, then 300 rooms each as large as the whole plan
        // (overlapping: check-site warns, the engine must still work): listed in every cell,
        // they would make 300 × ~700 entries; visited at every look-up, they make none.
        var site = Site()
        var floor = Floor(id: "f", name: "F", bounds: (Point3(0, 0, 0), Point3(40, 40, 3)))
        for r in 0..<20 {
            for c in 0..<20 {
                let x = Double(c) * 2, y = Double(r) * 2
                floor.rooms.append(Room(id: "r\(r)c\(c)", name: "R", points: [Point2(x, y), Point2(x + 2, y), Point2(x + 2, y + 2), Point2(x, y + 2)]))
            }
        }
        for i in 0..<300 {
            let d = Double(i) * 0.01
            floor.rooms.append(Room(id: "big\(i)", name: "B", points: [Point2(d, d), Point2(40 - d, d), Point2(40 - d, 40 - d), Point2(d, 40 - d)]))
        }
        site.floors = [floor]
        let geometry = SiteGeometry(site)
        let grid = geometry.floors[0].grid
        #expect(grid.everywhere.count == 300)
        #expect(grid.entries.count <= 400 * SiteGeometry.RoomGrid.spreadCells)
        var random = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            Self.expectRoomAsEveryOutline(geometry, at: Point2(Double(random.next() % 44_000) / 1_000 - 2, Double(random.next() % 44_000) / 1_000 - 2))
        }
    }

    /// `room(at:)` against measuring every outline of floor 0 in order.
    private static func expectRoomAsEveryOutline(_ geometry: SiteGeometry, at p: Point2) {
        var every: (room: Int, depth: Double)?
        for r in geometry.floors[0].rooms {
            let edge = Polygon.distanceToBoundary(geometry.rooms[r].points, p)
            if Polygon.contains(geometry.rooms[r].points, p) { every = (r, edge); break }
            if -edge > (every?.depth ?? -.infinity) { every = (r, -edge) }
        }
        let found = geometry.room(at: p, floor: 0)
        #expect(found?.room == every?.room && found?.depth.bitPattern == every?.depth.bitPattern, "\(p)")
    }
}

/// The room test as it was: every room of the site weighed at every solve, in order.
private struct EveryRoom {
    var room = -1, roomSince = 0.0
    var evidence: [Int: Double] = [:]
    var lastObserved = -Double.infinity
    var firstRoom = -1, firstCount = 0

    mutating func observe(_ p: Point2, floor f: Int, confidence: Double, floorContested: Bool, heard: [Double], at t: Double,
                          site: SiteGeometry, options: EngineOptions, emit: (ZoneEvent.Kind, Int, Double?) -> Void) {
        let dt = min(max(t - lastObserved, 0), 2)
        lastObserved = t
        guard room >= 0 else {
            guard let (r, _) = site.room(at: p, floor: f), confidence >= options.minimumConfidence else { return }
            firstCount = r == firstRoom ? firstCount + 1 : 1
            firstRoom = r
            guard firstCount >= options.firstRoomSolves || confidence >= options.firstRoomConfidence else { return }
            return enter(r, at: t, emit: emit)
        }
        guard confidence >= options.minimumConfidence, site.floors.indices.contains(f) else { return }
        let weight = min(confidence / options.roomConfidence, 1) * dt
        let floorWeight = floorContested ? dt : weight
        let crossing = site.rooms[room].floor != f
        let cap = options.roomStep
        let here = site.rooms[room].floor == f ? site.signedDepth(room: room, at: p) : -cap
        var winner = -1, winnerRatio = 1.0
        for c in site.rooms.indices where c != room {
            let before = evidence[c] ?? 0
            let after: Double
            if site.rooms[c].floor == f {
                var step = min(max(site.signedDepth(room: c, at: p) - here, -cap), cap)
                let louder = heard[c] - heard[room]
                if louder.isFinite { step += options.heardStep * min(max(louder / options.heardScale, -1), 1) }
                after = max(0, before + (crossing ? floorWeight : weight) * (step - options.roomDrift))
            } else {
                after = max(0, before - floorWeight * (cap + options.roomDrift))
            }
            evidence[c] = after > 0 ? after : nil
            guard site.rooms[c].floor == f else { continue }
            let joined = site.mayMove(from: room, to: c) || site.rooms[room].floor != f
            let ratio = after / (options.roomEvidence * (joined ? 1 : options.farRoomDwellFactor))
            if ratio >= winnerRatio { winner = c; winnerRatio = ratio }
        }
        guard winner >= 0 else { return }
        emit(.exit, room, t - roomSince)
        enter(winner, at: t, emit: emit)
    }

    private mutating func enter(_ r: Int, at t: Double, emit: (ZoneEvent.Kind, Int, Double?) -> Void) {
        room = r; roomSince = t
        firstRoom = -1; firstCount = 0
        evidence.removeAll()
        emit(.enter, r, nil)
    }
}
