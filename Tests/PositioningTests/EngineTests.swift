import Testing
@testable import Positioning
import Wire
import SiteModel

struct EngineTests {
    @Test func aStillDeviceBehindAWallStaysInItsRoomUnderNoise() {
        // 0.6 m west of the wall, 6 dB noise for ten minutes: the east nodes are close but
        // behind the wall; the room must not flap.
        var rng = SeededGenerator(seed: 42)
        let site = twoRoomSite()
        let readings = simulate(site: site, from: 1000, to: 1600, noise: 6, rng: &rng) { _ in Point3(4.4, 0.9, 1.0) }
        let engine = Engine(site: site)
        let output = run(engine, readings)
        let roomEvents = events(output).filter(\.isRoom)
        #expect(roomEvents.map(\.type) == [.enter])
        #expect(roomEvents.first?.zone == "west")
        let rooms = updates(output).map(\.room)
        #expect(rooms.count > 1000)
        // The first room waits for a few agreeing solves; from then on it is always west.
        let named = rooms.drop { $0 == nil }
        #expect(rooms.count - named.count <= 3)
        #expect(named.allSatisfy { $0 == "west" })
    }

    @Test(arguments: [true, false])
    func walkingThroughTheDoorGivesOneExitThenOneEnter(doors: Bool) {
        var rng = SeededGenerator(seed: 7)
        let site = twoRoomSite(doors: doors)
        // Still in the west room, then through the door at 0.8 m/s, then still in the east room.
        let path: (Double) -> Point3 = { t in
            let s = min(max(t - 1030, 0) * 0.8, 6)
            return Point3(2 + s, 2, 1.0)
        }
        let readings = simulate(site: site, from: 1000, to: 1090, noise: 3, rng: &rng, path: path)
        let output = run(Engine(site: site), readings)
        let roomEvents = events(output).filter(\.isRoom)
        #expect(roomEvents.map { "\($0.type.rawValue) \($0.zone)" } == ["enter west", "exit west", "enter east"])
        if roomEvents.count == 3 {
            // The change comes after the crossing (t = 1033.75), within a few seconds of dwell and lag.
            #expect(roomEvents[1].t > 1033.75 && roomEvents[1].t < 1040)
            #expect(roomEvents[1].t == roomEvents[2].t)
            #expect(roomEvents[1].dwell.map { abs($0 - (roomEvents[1].t - roomEvents[0].t)) < 1e-9 } == true)
        }
        let last = updates(output).last
        #expect(last.map { abs($0.x - 8) < 1 && abs($0.y - 2) < 1 } == true, "\(String(describing: last))")
    }

    @Test func silenceMakesTheDeviceAwayWithAnExitForEveryEnter() {
        var rng = SeededGenerator(seed: 3)
        let site = twoRoomSite()
        // In the desk zone of the east room for a minute, then nothing for longer than away_after.
        let readings = simulate(site: site, from: 1000, to: 1060, noise: 2, rng: &rng) { _ in Point3(8, 1.25, 1.0) }
        let engine = Engine(site: site)
        let output = run(engine, readings, until: 1100)
        let all = events(output)
        #expect(all.map { "\($0.type.rawValue) \($0.zone)" } == ["enter east", "enter desk", "exit desk", "exit east"])
        // Away after away_after (30 s) without readings, within the one-second sweep; but the
        // device left when it was last heard (or located, half a second later at most), as a
        // crash recovery closes a visit at its last track point: the exits say so, and their
        // dwell holds no away_after.
        let lastHeard = readings.map(\.reading.t).max() ?? 0
        let exits = all.filter { $0.type == .exit }
        #expect(exits.allSatisfy { $0.t >= lastHeard && $0.t <= lastHeard + 0.5 }, "\(exits) after \(lastHeard)")
        for exit in exits {
            let enter = all.first { $0.type == .enter && $0.zone == exit.zone }
            #expect(enter.map { abs((exit.dwell ?? -1) - (exit.t - $0.t)) < 1e-9 } == true)
        }
        // The away update comes at the sweep, with no room, floor, zones or fix, away since the exit.
        let away = updates(output).last
        #expect(away.map { $0.t > 1089 && $0.t <= 1091.5 } == true)
        #expect(away?.room == nil && away?.floor == nil && away?.zones == [] && away?.confidence == 0 && away?.fixes == 0)
        #expect(away?.since == exits.last?.t)
        // Nothing is left open for a shutdown to close.
        #expect(engine.shutdown(at: 1200).isEmpty)
    }

    @Test func shutdownClosesEveryOpenVisit() {
        var rng = SeededGenerator(seed: 11)
        let site = twoRoomSite()
        let readings = simulate(site: site, from: 1000, to: 1020, noise: 2, rng: &rng) { _ in Point3(8, 1.25, 1.0) }
        let engine = Engine(site: site)
        let opened = events(run(engine, readings))
        #expect(opened.map(\.type) == [.enter, .enter])
        let closed = engine.shutdown(at: 1025)
        #expect(Set(closed.map(\.zone)) == Set(opened.map(\.zone)))
        #expect(closed.allSatisfy { $0.type == .exit && $0.t == 1025 && ($0.dwell ?? 0) > 0 })
        #expect(engine.shutdown(at: 1026).isEmpty)
    }

    @Test func refusedReadingsAreCountedByReason() {
        var site = twoRoomSite()
        site.excludeDevices = ["mac:*"]
        let engine = Engine(site: site)
        #expect(!engine.ingest(node: "attic", reading: Reading(id: deviceID, rssi: -60, t: 100, kind: .ibeacon)))
        #expect(engine.lastRejection == .unknownNode)
        #expect(!engine.ingest(node: "w1", reading: Reading(id: deviceID, rssi: 42, t: 100, kind: .ibeacon)))
        #expect(!engine.ingest(node: "w1", reading: Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: 100, kind: .mac)))
        #expect(engine.ingest(node: "w1", reading: Reading(id: deviceID, rssi: -60, t: 100, kind: .ibeacon)))
        var output: [EngineOutput] = []
        engine.advance(to: 200, into: &output)
        #expect(!engine.ingest(node: "w1", reading: Reading(id: deviceID, rssi: -60, t: 150, kind: .ibeacon)))
        #expect(engine.rejections == Rejections(unknownNode: 1, late: 1, badRSSI: 1, excluded: 1))
        #expect(engine.accepted == 1)
    }

    @Test func updatesCarryTheNearestNodeAndItsProximity() {
        var rng = SeededGenerator(seed: 5)
        let site = twoRoomSite()
        let readings = simulate(site: site, from: 1000, to: 1010, noise: 0.5, rng: &rng) { _ in Point3(9.4, 0.5, 1.4) }
        let last = updates(run(Engine(site: site), readings)).last
        #expect(last?.nearest?.node == "e3")
        #expect(last?.nearest?.proximity == .immediate || last?.nearest?.proximity == .near)
        #expect(last?.fixes == 6)
        #expect(last?.floor == "ground")
    }

    @Test(arguments: LocatorKind.allCases)
    func everyLocatorTracksAStillDevice(kind: LocatorKind) {
        var rng = SeededGenerator(seed: 9)
        let site = twoRoomSite()
        let truth = Point3(2.5, 2.0, 1.0)
        let readings = simulate(site: site, from: 1000, to: 1030, noise: 2, rng: &rng) { _ in truth }
        let last = updates(run(Engine(site: site, locator: kind), readings)).last
        #expect(last?.room == "west")
        // Nearest reports a node's position; the solvers land near the truth.
        // Nelder–Mead ignores the wall that the east nodes hear the device through.
        let tolerance = kind == .nearest ? 3.0 : kind == .nelderMead ? 2.0 : 0.5
        #expect(last.map { ((($0.x - truth.x) * ($0.x - truth.x) + ($0.y - truth.y) * ($0.y - truth.y))).squareRoot() < tolerance } == true)
    }
}
