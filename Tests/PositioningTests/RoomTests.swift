import Testing
@testable import Positioning
import Wire
import SiteModel

/// Room decisions as a sequential test: evidence gathers for the room the position is
/// deeper in, so a still device on a wall stays put while a walk through a door changes room.
struct RoomTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aStillDeviceOnTheWallLineDoesNotFlipInAnHour(seed: UInt64) {
        // Exactly on the wall between the rooms, a metre from the door, 6 dB of noise on every
        // reading: each solve is a coin toss between west and east, so only the hysteresis keeps
        // the room. The first seconds may still settle (as the scoring allows, 10 s).
        var rng = SeededGenerator(seed: seed)
        let site = twoRoomSite()
        let readings = simulate(site: site, from: 0, to: 3600, noise: 6, rng: &rng) { _ in Point3(5, 1, 1.0) }
        let output = run(Engine(site: site), readings)
        let rooms = events(output).filter(\.isRoom)
        #expect(rooms.first?.type == .enter)
        let flips = rooms.filter { $0.t > 10 }
        #expect(flips.isEmpty, "\(flips.map { "\($0.type.rawValue) \($0.zone) at \($0.t)" })")
        #expect(updates(output).count > 7000)
    }

    @Test func walkingThroughTheDoorChangesRoomOnceWithinFourSeconds() {
        var rng = SeededGenerator(seed: 17)
        let site = twoRoomSite()
        // West room still for a minute, through the door at 1 m/s (crossing at t = 63), then still.
        let path: (Double) -> Point3 = { t in Point3(2 + min(max(t - 60, 0), 6), 2, 1.0) }
        let readings = simulate(site: site, from: 0, to: 180, noise: 4, rng: &rng, path: path)
        let rooms = events(run(Engine(site: site), readings)).filter(\.isRoom)
        #expect(rooms.map { "\($0.type.rawValue) \($0.zone)" } == ["enter west", "exit west", "enter east"])
        let delay = rooms.count == 3 ? rooms[2].t - 63 : .infinity
        #expect(delay > 0 && delay < 4, "delay \(delay) s")
    }

    @Test func aPositionHoveringOnAWallGathersNoEvidence() {
        // Positions straight from a generator, no radio: ±0.4 m of noise around the wall line.
        var rng = SeededGenerator(seed: 5)
        let geometry = SiteGeometry(twoRoomSite())
        var presence = Presence()
        var log: [String] = []
        for i in 0..<7200 {
            let p = Point2(5 + 0.4 * rng.gaussian(), 1)
            presence.observe(p, floor: 0, confidence: 0.6, heard: [-.infinity, -.infinity], at: Double(i) * 0.5,
                             site: geometry, options: EngineOptions()) { kind, zone, _, _ in log.append("\(kind) \(zone)") }
        }
        #expect(log.count == 1)
    }

    @Test func theRoomWhoseNodeIsLouderWinsATie() {
        // The position sits on the wall; the east room's node is heard 10 dB louder.
        let geometry = SiteGeometry(twoRoomSite())
        var presence = Presence()
        var log: [String] = []
        for i in 0..<20 {
            let p = Point2(i < 4 ? 3 : 5, 1)
            presence.observe(p, floor: 0, confidence: 0.6, heard: [-70, -60], at: Double(i) * 0.5,
                             site: geometry, options: EngineOptions()) { kind, zone, _, _ in log.append("\(kind) \(geometry.rooms[zone].id)") }
        }
        #expect(log == ["enter west", "exit west", "enter east"])
    }

    @Test func theFirstRoomWaitsForSolvesThatAgree() {
        // A thin first window: weak fixes that disagree name no room until three agree.
        let geometry = SiteGeometry(twoRoomSite())
        var presence = Presence()
        var entered: [(room: String, t: Double)] = []
        let xs = [8.0, 2.0, 8.0, 2.0, 2.0, 2.0, 2.0]
        for (i, x) in xs.enumerated() {
            presence.observe(Point2(x, 2), floor: 0, confidence: 0.1, heard: [-.infinity, -.infinity], at: Double(i) * 0.5,
                             site: geometry, options: EngineOptions()) { kind, zone, _, _ in
                if kind == .enter { entered.append((geometry.rooms[zone].id, Double(i) * 0.5)) }
            }
        }
        #expect(entered.map(\.room) == ["west"])
        #expect(entered.first?.t == 2.5)
        // One confident fix is enough.
        var confident = Presence()
        var first: String?
        confident.observe(Point2(8, 2), floor: 0, confidence: 0.8, heard: [-.infinity, -.infinity], at: 0,
                          site: geometry, options: EngineOptions()) { _, zone, _, _ in first = geometry.rooms[zone].id }
        #expect(first == "east")
    }

    @Test func leavingClosesTheRoomAndForgetsTheEvidence() {
        let geometry = SiteGeometry(twoRoomSite())
        var presence = Presence()
        var log: [String] = []
        let emit: (ZoneEvent.Kind, Int, Bool, Double?) -> Void = { kind, zone, _, _ in log.append("\(kind) \(zone)") }
        presence.observe(Point2(2, 2), floor: 0, confidence: 0.8, heard: [-.infinity, -.infinity], at: 0,
                         site: geometry, options: EngineOptions(), emit: emit)
        // Half-way to a change, then away.
        presence.observe(Point2(7, 2), floor: 0, confidence: 0.8, heard: [-.infinity, -.infinity], at: 0.5,
                         site: geometry, options: EngineOptions(), emit: emit)
        presence.leave(at: 1, emit: emit)
        #expect(log == ["enter 0", "exit 0"])
        // Back in the east room: a fresh first room, not the old evidence.
        presence.observe(Point2(8, 2), floor: 0, confidence: 0.8, heard: [-.infinity, -.infinity], at: 100,
                         site: geometry, options: EngineOptions(), emit: emit)
        #expect(log == ["enter 0", "exit 0", "enter 1"])
    }
}
