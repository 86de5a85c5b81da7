import Testing
@testable import Positioning
import Wire
import SiteModel

/// `SiteGeometry.room(at:floor:)` tests each room's box before its outline: the answer must be
/// the one measuring every outline in order gives, on edges, corners, gaps and outside the floor.
struct RoomLookupTests {
    @Test func theBoxTestFindsTheRoomEveryOutlineWould() {
        var site = Site()
        // Rooms of 3 × 2 m in a 4 × 3 grid with a 0.5 m corridor after the second column, an
        // L-shaped room over two cells, and a room drawn twice (the first one listed wins).
        var floor = Floor(id: "f", name: "F", bounds: (Point3(-2, -2, 0), Point3(16, 9, 3)))
        for r in 0..<3 {
            for c in 0..<4 where !(r == 2 && c >= 2) {
                let x = Double(c) * 3 + (c >= 2 ? 0.5 : 0), y = Double(r) * 2
                floor.rooms.append(Room(id: "r\(r)\(c)", name: "R", points: [Point2(x, y), Point2(x + 3, y), Point2(x + 3, y + 2), Point2(x, y + 2)]))
            }
        }
        floor.rooms.append(Room(id: "ell", name: "L", points: [Point2(6.5, 4), Point2(12.5, 4), Point2(12.5, 6), Point2(9.5, 6),
                                                              Point2(9.5, 8), Point2(6.5, 8)]))
        floor.rooms.append(Room(id: "again", name: "Again", points: [Point2(0, 0), Point2(3, 0), Point2(3, 2), Point2(0, 2)]))
        site.floors = [floor]
        let geometry = SiteGeometry(site)
        var random = SeededGenerator(seed: 5)
        // Points anywhere, on the grid's lines and corners (within 1e-9 counts as inside), just
        // off them, and not finite.
        var points: [Point2] = (0..<4_000).map { _ in Point2(Double.random(in: -2..<16, using: &random), Double.random(in: -2..<9, using: &random)) }
        for x in stride(from: -1.0, through: 13.5, by: 0.5) {
            for y in stride(from: -1.0, through: 8.0, by: 0.5) {
                for nudge in [0, 1e-10, -1e-10, 1e-7, -1e-7] { points.append(Point2(x + nudge, y - nudge)) }
            }
        }
        points += [Point2(.nan, 1), Point2(2, .nan), Point2(.infinity, 1), Point2(-.infinity, -.infinity)]
        for p in points {
            let found = geometry.room(at: p, floor: 0), expected = measuringEveryRoom(geometry, p)
            #expect(found?.room == expected?.room && found?.depth.bitPattern == expected?.depth.bitPattern, "\(p)")
        }
    }

    /// The lookup without box tests: every outline measured, in the floor's order.
    private func measuringEveryRoom(_ site: SiteGeometry, _ p: Point2) -> (room: Int, depth: Double)? {
        var nearest: (room: Int, depth: Double)?
        for r in site.floors[0].rooms {
            let edge = Polygon.distanceToBoundary(site.rooms[r].points, p)
            if Polygon.contains(site.rooms[r].points, p) { return (r, edge) }
            if -edge > (nearest?.depth ?? -.infinity) { nearest = (r, -edge) }
        }
        return nearest
    }
}
