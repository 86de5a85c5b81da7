import Testing
@testable import Positioning
import Wire
import SiteModel

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
        // A minute still, its fixes alternating 0.4 m either side of (2, 2): the mean is the place
        // (to within 0.4 m · (1 − e^(−0.5/180)) / 2 ≈ 0.6 mm, as the forgetting weighs the later
        // fix of each pair a little more).
        for i in 0..<120 { track.update(fix(2 + (i % 2 == 0 ? 0.4 : -0.4), 2), at: Double(i) * 0.5) }
        let still = track.reported
        #expect(abs(still.x - 2) < 1e-3 && abs(still.y - 2) < 1e-9, "\(still)")
        // Then walking east at 1 m/s: once the track has left (or is faster than a still
        // device), the report is the track's, not the old place's.
        var t = 60.0
        while t < 70 { track.update(fix(2 + (t - 59.5), 2), at: t); t += 0.5 }
        let walking = track.reported
        #expect(walking == track.position, "\(walking) against the track's \(track.position)")
        #expect(walking.x > 5)
    }

    /// Ten minutes still at A, then a 1 m step (desk to sofa, shorter than `step`, so the anchor
    /// never moves) and ten minutes still at B, fixes every 0.5 s with 0.25 m of noise per axis.
    /// Without the change test the mean stayed A's (a minute after the step, 0.9 m from B) and was
    /// reported whenever the track was slow again, for about as long again as the stay at A.
    /// With it: the track reaches B within a few seconds, the test then gathers about
    /// (1 − `away`) = 0.25 m·s a second and reaches `alarm` (3 m·s) some 12 s later (longer while
    /// the track's noise brings it nearer A), and the report is the track's for `settle` (4 s)
    /// before B's own mean takes over: about 20 s in all, so a minute after the step (three times
    /// that) the mean is B's and every report made from it lies within 0.1 m of B (the speed
    /// gate still hands about half the updates to the track, as before). The stay's mean still beats the
    /// raw track.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aShortMoveAfterALongStayIsReportedAtTheNewPlace(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var track = Track(acceleration: 0.05, maxSpeed: 2.5)
        track.still = StillAverage(step: 1.5, settle: 4, speed: 0.15)
        let a = Point2(2, 2), b = Point2(3, 2)
        var reportedError = 0.0, trackError = 0.0, n = 0.0, worstLate = 0.0, fromMean = 0.0, late = 0.0, restarts = 0
        var t = 0.0
        while t < 1200 {
            // The step itself takes 1 s.
            let place = t < 600 ? a : t < 601 ? Point2(a.x + (t - 600), a.y) : b
            let fix = Fix(position: Point3(place.x + 0.25 * rng.gaussian(), place.y + 0.25 * rng.gaussian(), 1.2),
                          floor: 0, xx: 0.0625, xy: 0, yy: 0.0625, zz: 0.5, confidence: 0.5, fixes: 4, cost: 0.2)
            let since = track.still?.since
            track.update(fix, at: t)
            if t > 1, track.still?.since != since { restarts += 1 }
            let r = track.reported, p = track.position
            func error(_ q: Point3) -> Double { ((q.x - place.x) * (q.x - place.x) + (q.y - place.y) * (q.y - place.y)).squareRoot() }
            if t >= 60 && t < 600 || t >= 660 {
                reportedError += error(r); trackError += error(p); n += 1
            }
            if t >= 660 {
                late += 1
                if r != p { fromMean += 1; worstLate = max(worstLate, error(r)) }
            }
            t += 0.5
        }
        #expect(fromMean > 0.4 * late, "\(fromMean) of \(late) late reports from the mean")
        #expect(worstLate < 0.1, "a report from the mean a minute after the step lies \(worstLate) m from the new place")
        #expect(reportedError < 0.7 * trackError, "reported \(reportedError / n) m against the track's \(trackError / n) m")
        // The mean restarts at the step, and hardly ever while the device stays.
        #expect(restarts >= 1 && restarts <= 3, "\(restarts) restarts")
    }

    /// The mean forgets: after an hour at one place, a move too small for the change test (0.3 m,
    /// under `away`) is followed within a few `memory`s instead of never.
    @Test func theMeanForgetsAnOldPlace() {
        var s = StillAverage(step: 1.5, settle: 4, speed: 0.15)
        s.restart(at: SIMD2(0, 0), time: 0)
        var t = 0.0
        while t < 3600 { s.follow(SIMD2(0, 0), time: t); s.add(Point3(0, 0, 1), noise: (1, 0, 1)); t += 1 }
        while t < 3600 + 5 * s.options.memory { s.follow(SIMD2(0.3, 0), time: t); s.add(Point3(0.3, 0, 1), noise: (1, 0, 1)); t += 1 }
        let m = s.mean!
        // Five time constants after the move, exp(−5) (0.7 %) of the old place's weight is left:
        // the mean is within 0.3 m · 0.007 = 2 mm of the new place. Without forgetting it would be
        // 0.3 m · 3000 / 6600 = 0.14 m off.
        #expect(abs(m.x - 0.3) < 0.005, "\(m)")
        // One unit of information a second saturates near `memory` (600), not the 6600 s of fixes.
        #expect(s.information[0] < 1.05 * s.options.memory, "information \(s.information[0])")
    }
}

