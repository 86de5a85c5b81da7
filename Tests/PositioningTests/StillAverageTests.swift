import Testing
@testable import Positioning
import Wire

/// A still device is reported at the mean of its fixes since it settled, not at its track, which
/// forgets a fix within seconds and so wanders with their noise; a device that moves is reported
/// at its track again, and its room still follows the track.
struct StillAverageTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aStillDeviceIsReportedAtTheMeanOfItsFixes(seed: UInt64) {
        // Ten minutes at one place, 3 dB of noise on every reading. Reported at its track, the
        // device's updates after the first minute lie 0.40–0.44 m from it on average and spread
        // 0.36–0.42 m (RMS) about their own mean on these seeds; at the mean of its fixes,
        // 0.26–0.29 m and 0.13–0.21 m.
        var rng = SeededGenerator(seed: seed)
        let site = twoRoomSite()
        let truth = Point2(3, 2)
        let readings = simulate(site: site, from: 0, to: 600, noise: 3, rng: &rng) { _ in Point3(truth.x, truth.y, 1.0) }
        let late = updates(run(Engine(site: site), readings)).filter { $0.t > 60 }
        #expect(late.count > 1000)
        let n = Double(late.count)
        let error = late.reduce(0.0) { $0 + (($1.x - truth.x) * ($1.x - truth.x) + ($1.y - truth.y) * ($1.y - truth.y)).squareRoot() } / n
        let mx = late.reduce(0.0) { $0 + $1.x } / n, my = late.reduce(0.0) { $0 + $1.y } / n
        let spread = (late.reduce(0.0) { $0 + ($1.x - mx) * ($1.x - mx) + ($1.y - my) * ($1.y - my) } / n).squareRoot()
        #expect(error < 0.33, "mean error \(error) m")
        #expect(spread < 0.3, "RMS spread \(spread) m")
    }

    @Test func aDeviceThatWalksOffIsReportedAtItsTrackAgain() {
        var track = Track(acceleration: 0.05, maxSpeed: 2.5)
        track.still = StillAverage(step: 1.5, settle: 4, speed: 0.15)
        func fix(_ x: Double, _ y: Double) -> Fix {
            Fix(position: Point3(x, y, 1.2), floor: 0, xx: 1, xy: 0, yy: 1, zz: 0.5, confidence: 0.5, fixes: 4, cost: 0.2)
        }
        // A minute still, its fixes alternating 0.4 m either side of (2, 2): the mean is the place.
        for i in 0..<120 { track.update(fix(2 + (i % 2 == 0 ? 0.4 : -0.4), 2), at: Double(i) * 0.5) }
        let still = track.reported
        #expect(abs(still.x - 2) < 1e-9 && abs(still.y - 2) < 1e-9, "\(still)")
        // Then walking east at 1 m/s: once the track has left (or is faster than a still
        // device), the report is the track's, not the old place's.
        var t = 60.0
        while t < 70 { track.update(fix(2 + (t - 59.5), 2), at: t); t += 0.5 }
        let walking = track.reported
        #expect(walking == track.position, "\(walking) against the track's \(track.position)")
        #expect(walking.x > 5)
    }
}
