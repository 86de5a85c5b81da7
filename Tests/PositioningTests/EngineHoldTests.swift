import Testing
@testable import Positioning
import Wire
import SiteModel

/// Holding a still device's last fix instead of solving it again (`EngineOptions.holdLimit`):
/// each test runs the same readings through an engine that holds and one that never does.
struct EngineHoldTests {
    private func engines(_ site: Site) -> (holding: Engine, solving: Engine) {
        var never = EngineOptions()
        never.holdLimit = 0
        return (Engine(site: site), Engine(site: site, options: never))
    }

    private func roomEvents(_ output: [EngineOutput]) -> [String] {
        events(output).map { "\($0.type.rawValue) \($0.zone)" }
    }

    @Test(arguments: [2.0, 4.0])
    func aStillDeviceIsSolvedFarLessOftenAndStaysWhereItWas(noise: Double) {
        var rng = SeededGenerator(seed: 11)
        let site = twoRoomSite()
        let readings = simulate(site: site, from: 1000, to: 1300, noise: noise, rng: &rng) { _ in Point3(2, 2, 1.0) }
        let (holding, solving) = engines(site)
        let held = run(holding, readings), solved = run(solving, readings)
        // The same cadence of updates, fewer of them solved: most at 2 dB of noise per reading,
        // fewer at 4 dB, where the smoothed levels themselves wander by about 2 dB.
        #expect(updates(held).count == updates(solved).count)
        #expect(holding.solves + holding.holds == solving.solves)
        #expect(solving.holds == 0)
        #expect(holding.holds * (noise < 3 ? 2 : 6) > solving.solves, "held \(holding.holds) of \(solving.solves)")
        // Same room, no event more or less, and as close to the truth as solving every time.
        #expect(roomEvents(held) == ["enter west"])
        #expect(roomEvents(solved) == ["enter west"])
        func errors(_ output: [EngineOutput]) -> [Double] {
            updates(output).dropFirst(10).map { (($0.x - 2) * ($0.x - 2) + ($0.y - 2) * ($0.y - 2)).squareRoot() }
        }
        let mean = { (e: [Double]) in e.reduce(0, +) / Double(max(e.count, 1)) }
        #expect(mean(errors(held)) < mean(errors(solved)) + 0.05)
        #expect((errors(held).max() ?? 9) < (errors(solved).max() ?? 0) + 0.1)
        #expect(updates(held).dropFirst(10).allSatisfy { $0.room == "west" })
        // A held update repeats the last solve's place; no solve is older than `holdLimit`.
        var last: DeviceUpdate?
        for u in updates(held) {
            if u.isHeld, let last {
                #expect(u.x == last.x && u.y == last.y && u.room == last.room && u.zones == last.zones)
                #expect(u.t - last.t < EngineOptions().holdLimit + 1e-9)
            } else {
                last = u
            }
        }
    }

    /// Starts at several moments, so that some fall just after a solve, where only the changed
    /// levels (not `holdLimit`) can end the hold in time.
    @Test(arguments: [1120.0, 1121.5, 1123.0, 1124.0])
    func aStillDeviceThatStartsWalkingIsSolvedAtOnceAndChangesRoomAsBefore(start: Double) {
        var rng = SeededGenerator(seed: 5)
        let site = twoRoomSite()
        // Two minutes still in the west room, then through the door at 0.8 m/s, then still in
        // the east room (clear of its desk zone).
        let readings = simulate(site: site, from: 1000, to: 1200, noise: 3, rng: &rng) { t in
            Point3(2 + min(max(t - start, 0) * 0.8, 4.5), 2, 1.0)
        }
        let (holding, solving) = engines(site)
        let held = run(holding, readings), solved = run(solving, readings)
        #expect(holding.holds > 100)
        #expect(roomEvents(held) == ["enter west", "exit west", "enter east"])
        #expect(roomEvents(held) == roomEvents(solved))
        // Moving makes the levels change: the device is solved within 2 s of its first step
        // (the 3 s smoothing window lags: its mean moves half as fast as the readings), and from
        // then on at every update while it walks.
        let firstSolve = updates(held).first { $0.t > start && !$0.isHeld }
        #expect(firstSolve.map { $0.t <= start + 2 } == true, "first solve at \(firstSolve?.t ?? 0) for a start at \(start)")
        let walking = updates(held).filter { $0.t > start + 2.5 && $0.t < start + 7.5 }
        #expect(!walking.isEmpty && walking.allSatisfy { !$0.isHeld }, "\(walking.map(\.isHeld))")
        // The room changes when it did without holds, give or take one update.
        let enterHeld = events(held).last { $0.type == .enter }, enterSolved = events(solved).last { $0.type == .enter }
        #expect(abs((enterHeld?.t ?? 0) - (enterSolved?.t ?? 100)) <= 0.5)
        // And the device ends where it stopped, settled again (holding).
        let end = updates(held).last
        #expect(end.map { abs($0.x - 6.5) < 1 && abs($0.y - 2) < 1 } == true)
        #expect(updates(held).filter { $0.t > 1170 }.contains { $0.isHeld })
    }

    @Test func aZoneDwellUnderWayIsNeverHeld() {
        var rng = SeededGenerator(seed: 9)
        let site = twoRoomSite()
        // Still in the east room outside the desk zone, then a step into the zone and still again.
        let readings = simulate(site: site, from: 1000, to: 1120, noise: 2, rng: &rng) { t in
            t < 1060 ? Point3(8, 3.2, 1.0) : Point3(8, 1.25, 1.0)
        }
        let (holding, solving) = engines(site)
        let held = run(holding, readings), solved = run(solving, readings)
        #expect(holding.holds > 0)
        #expect(roomEvents(held) == ["enter east", "enter desk"])
        #expect(roomEvents(held) == roomEvents(solved))
        let desk = { (o: [EngineOutput]) in events(o).first { $0.zone == "desk" }?.t ?? 0 }
        #expect(abs(desk(held) - desk(solved)) <= 0.5)
    }

    @Test func silenceStillMakesAHeldDeviceAway() {
        var rng = SeededGenerator(seed: 3)
        let site = twoRoomSite()
        let readings = simulate(site: site, from: 1000, to: 1090, noise: 2, rng: &rng) { _ in Point3(2, 2, 1.0) }
        let engine = Engine(site: site)
        let output = run(engine, readings, until: 1130)
        #expect(engine.holds > 0)
        #expect(roomEvents(output) == ["enter west", "exit west"])
        // Away at the sweep after away_after (30 s); the exit when it was last heard.
        let lastHeard = readings.map(\.reading.t).max() ?? 0
        #expect(events(output).last.map { $0.t >= lastHeard && $0.t <= lastHeard + 0.5 } == true)
        #expect(updates(output).last.map { $0.room == nil && $0.t > 1119 && $0.t <= 1121.5 } == true)
    }
}
