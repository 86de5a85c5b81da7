import Testing
import Wire
import SiteModel
@testable import Positioning

// A backfill pass (docs/operations.md, Outages and bursts) hands each device's state from the
// live engine to a second engine and back: the receiving engine goes on from where the other
// stood, so a room already entered is not entered again and a change is made once.

@Test func anAdoptedDeviceKeepsItsRoomAndChangesItOnce() {
    let site = twoRoomSite()
    var rng = SeededGenerator(seed: 3)
    let west = simulate(site: site, from: 0, to: 20, noise: 0.5, rng: &rng) { _ in Point3(2, 2, 1) }
    let live = Engine(site: site)
    #expect(events(run(live, west)).map { "\($0.type) \($0.zone)" } == ["enter west"])
    #expect(live.isPresent(deviceID) && live.trackedIds == [deviceID])

    // The second engine starts where the live one stood, its last reading at most at 20 s.
    let pass = Engine(site: site)
    #expect(pass.adoptDevice(deviceID, from: live, heardUntil: 20))
    #expect(!pass.adoptDevice("mac:02:00:00:00:00:01", from: live), "an id the other engine does not know")
    let east = simulate(site: site, from: 20.5, to: 50, noise: 0.5, rng: &rng) { t in Point3(t < 30 ? 2 : 8, 2, 1) }
    #expect(events(run(pass, east)).map { "\($0.type) \($0.zone)" } == ["exit west", "enter east"], "no second enter of west")

    // And back: the live engine takes the pass's end and makes no change of its own.
    #expect(live.adoptDevice(deviceID, from: pass))
    let more = simulate(site: site, from: 50.5, to: 60, noise: 0.5, rng: &rng) { _ in Point3(8, 2, 1) }
    #expect(events(run(live, more)).filter { $0.isRoom }.isEmpty, "east already entered")
}
