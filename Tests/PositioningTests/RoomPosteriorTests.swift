import Testing
@testable import Positioning
import Wire
import SiteModel

/// The room posterior: a probability over rooms that follows the device through doors only,
/// takes evidence through the seam, and publishes its likeliest rooms.
struct RoomPosteriorTests {
    /// Three rooms in a row, doors only west–middle and middle–east.
    func threeRooms() -> SiteGeometry {
        var site = Site()
        var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(12, 4, 2.5)))
        floor.rooms = [Room(id: "west", name: "West", points: [Point2(0, 0), Point2(4, 0), Point2(4, 4), Point2(0, 4)]),
                       Room(id: "middle", name: "Middle", points: [Point2(4, 0), Point2(8, 0), Point2(8, 4), Point2(4, 4)]),
                       Room(id: "east", name: "East", points: [Point2(8, 0), Point2(12, 0), Point2(12, 4), Point2(8, 4)])]
        floor.doors = [Door(between: ("west", "middle"), at: Point2(4, 2)), Door(between: ("middle", "east"), at: Point2(8, 2))]
        site.floors = [floor]
        return SiteGeometry(site)
    }

    func total(_ p: RoomPosterior) -> Double { p.slots.reduce(0) { $0 + $1.p } + p.rest + p.away }

    @Test func transitionsGoThroughDoorsOnly() {
        let site = threeRooms()
        var posterior = RoomPosterior()
        posterior.admit(0, keep: -1, rooms: 3)
        posterior.admit(1, keep: -1, rooms: 3)
        posterior.admit(2, keep: -1, rooms: 3)
        posterior.weigh(restScore: 0, awayScore: -.infinity) { $0 == 0 ? 20 : 0 }
        #expect(posterior.probability(of: 0, rooms: 3) > 0.999)
        posterior.predict(dt: 5, jump: 0, site: site, options: RoomPosteriorOptions())
        // West gives to the middle room, its only door; nothing reaches the east room at once.
        #expect(posterior.probability(of: 1, rooms: 3) > 0.1)
        #expect(posterior.probability(of: 2, rooms: 3) < 1e-6)
        #expect(abs(total(posterior) - 1) < 1e-9)
    }

    @Test func aStillDeviceDeepInARoomIsSureOfIt() {
        let site = threeRooms()
        var presence = Presence()
        var options = EngineOptions()
        options.room.posterior.decides = true
        var log: [String] = []
        for i in 0..<600 {
            let fix = RoomFix(position: Point2(10, 2), spread: 0.5, confidence: 0.6)
            presence.observe(fix: fix, floor: 0, heard: [-.infinity, -.infinity, -.infinity], evidence: nil, at: Double(i) * 0.5,
                             site: site, options: options) { kind, zone, _, _ in log.append("\(kind) \(site.rooms[zone].id)") }
        }
        #expect(log == ["enter east"])
        #expect(presence.probability(of: 2, site: site) > 0.99)
        #expect(presence.isSettled(options: options.room))
        #expect(abs(total(presence.posterior) - 1) < 1e-9)
        var shares = RoomShares()
        presence.posterior.top(3, into: &shares, site: site)
        #expect(shares.first?.id == "east" && shares.count <= 3)
        #expect(zip(shares, shares.dropFirst()).allSatisfy { $0.p >= $1.p })
    }

    @Test func aWalkThroughTheDoorsChangesRoomInOrder() {
        let site = threeRooms()
        var presence = Presence()
        var options = EngineOptions()
        options.room.posterior.decides = true
        var entered: [(room: String, t: Double)] = []
        // Still in the west room, then east at 1 m/s along the middle (doors at x = 4 and 8).
        for i in 0..<400 {
            let t = Double(i) * 0.5
            let fix = RoomFix(position: Point2(2 + min(max(t - 60, 0), 8), 2), spread: 0.5, confidence: 0.6)
            presence.observe(fix: fix, floor: 0, heard: [-.infinity, -.infinity, -.infinity], evidence: nil, at: t,
                             site: site, options: options) { kind, zone, _, _ in
                if kind == .enter { entered.append((site.rooms[zone].id, t)) }
            }
        }
        #expect(entered.map(\.room) == ["west", "middle", "east"])
        // Crossings at t = 62 and 66: each within a few seconds.
        #expect(entered.count == 3 && entered[1].t > 62 && entered[1].t < 66 && entered[2].t > 66 && entered[2].t < 70,
                "\(entered)")
    }

    @Test func evidenceThroughTheSeamMovesTheProbability() {
        // No position at all (a site without a floor plan): evidence alone names the room.
        let site = threeRooms()
        var presence = Presence()
        var options = EngineOptions()
        options.room.posterior.decides = true
        var evidence = RoomEvidence(rooms: 3)
        var log: [String] = []
        for i in 0..<40 {
            evidence.reset()
            evidence.add(-3, room: 0)
            evidence.add(-3, room: 2)
            presence.observe(fix: nil, floor: 0, heard: [-.infinity, -.infinity, -.infinity], evidence: evidence, at: Double(i) * 0.5,
                             site: site, options: options) { kind, zone, _, _ in log.append("\(kind) \(site.rooms[zone].id)") }
        }
        #expect(log == ["enter middle"])
        #expect(presence.probability(of: 1, site: site) > 0.95)
    }

    @Test func roomSharesKeepTheLikeliestInOrder() {
        let shares = RoomShares([(id: "a", p: 0.1), (id: "b", p: 0.5), (id: "c", p: 0.05), (id: "d", p: 0.3)])
        #expect(shares.map(\.id) == ["b", "d", "a"])
        #expect(shares.map(\.p) == [0.5, 0.3, 0.1])
        #expect(RoomShares().isEmpty)
    }
}
