import Testing
@testable import Positioning
import Wire
import SiteModel

/// The tracker and the numbers around it must never trap or run off, whatever the process
/// noise or the fixes: a large process noise (30 and above) once made the covariance update
/// lose its symmetry until the track ran off to ~1e19 m and the accuracy report trapped
/// converting that error to an Int.
struct TrackRobustnessTests {
    /// A noisy walk back and forth along the two-room site's corridor, one fix every 0.5 s,
    /// with correlated covariances like the solver's (the sequence that diverged had these).
    static func fixes(count: Int, seed: UInt64) -> [(t: Double, fix: Fix)] {
        var rng = SeededGenerator(seed: seed)
        var out: [(Double, Fix)] = []
        for i in 0..<count {
            let t = Double(i) * 0.5
            let phase = (t / 20).truncatingRemainder(dividingBy: 2)
            let truth = Point2(1 + 8 * (phase < 1 ? phase : 2 - phase), 2)
            let xx = 0.5 + 4 * Double.random(in: 0..<1, using: &rng)
            let yy = 0.5 + 8 * Double.random(in: 0..<1, using: &rng)
            let xy = 0.9 * Double.random(in: -1..<1, using: &rng) * (xx * yy).squareRoot()
            let position = Point3(truth.x + 1.5 * rng.gaussian(), truth.y + 1.5 * rng.gaussian(), 1.2)
            out.append((t, Fix(position: position, floor: 0, xx: xx, xy: xy, yy: yy, zz: 0.5,
                               confidence: 0.4, fixes: 5, cost: 0.3)))
        }
        return out
    }

    static func expectSane(_ track: Track, _ label: String) {
        let p = track.p
        for r in 0..<4 {
            #expect(p[r * 4 + r] > 0 && p[r * 4 + r].isFinite, "\(label): variance \(r) is \(p[r * 4 + r])")
            for c in 0..<4 { #expect(p[r * 4 + c] == p[c * 4 + r], "\(label): P[\(r),\(c)] \(p[r * 4 + c]) ≠ P[\(c),\(r)] \(p[c * 4 + r])") }
        }
        #expect(p[0] * p[5] > p[1] * p[1], "\(label): position covariance not positive definite")
        #expect(abs(track.x[0]) < 1_000 && abs(track.x[1]) < 1_000, "\(label): track at \(track.x)")
    }

    @Test(arguments: [0.05, 30, 100, 1_000, 1e6])
    func theCovarianceStaysSymmetricAndPositiveUnderAnyProcessNoise(acceleration: Double) {
        var track = Track(acceleration: acceleration, maxSpeed: 2.5)
        for (i, (t, fix)) in Self.fixes(count: 4_000, seed: 30).enumerated() {
            track.update(fix, at: t)
            if i % 500 == 499 { Self.expectSane(track, "q \(acceleration), fix \(i)") }
        }
        Self.expectSane(track, "q \(acceleration), end")
    }

    @Test func theJosephFormMatchesTheShortFormAndIsExactlySymmetric() {
        // P from a few updates at the default noise; one more update by both forms.
        var track = Track(acceleration: 0.05, maxSpeed: 2.5)
        for (t, fix) in Self.fixes(count: 7, seed: 3) { track.update(fix, at: t) }
        let p = track.p
        let (rxx, rxy, ryy) = (2.0, 0.7, 3.0)
        let (sxx, sxy, syy) = (p[0] + rxx, p[1] + rxy, p[5] + ryy)
        let det = sxx * syy - sxy * sxy
        var k = SIMD8<Double>(repeating: 0)
        for r in 0..<4 {
            k[r * 2] = (p[r * 4] * syy - p[r * 4 + 1] * sxy) / det
            k[r * 2 + 1] = (-p[r * 4] * sxy + p[r * 4 + 1] * sxx) / det
        }
        let joseph = Track.josephUpdate(p, gain: k, noise: (rxx, rxy, ryy))
        for r in 0..<4 {
            for c in 0..<4 {
                let short = p[r * 4 + c] - (k[r * 2] * p[c] + k[r * 2 + 1] * p[4 + c])
                #expect(abs(joseph[r * 4 + c] - short) < 1e-9, "[\(r),\(c)] \(joseph[r * 4 + c]) vs \(short)")
                #expect(joseph[r * 4 + c] == joseph[c * 4 + r])
            }
        }
    }

    @Test func anIndefiniteFixCovarianceIsMadeSafe() {
        // What the solver handed over when it capped xx and yy at 400 but not xy.
        let fix = Fix(position: Point3(3, 2, 1.2), floor: 0, xx: 400, xy: 999, yy: 400, zz: 1, confidence: 0.1, fixes: 3, cost: 1)
        let r = Track.measurementNoise(fix)
        #expect(r != nil)
        if let r { #expect(r.xy * r.xy < r.xx * r.yy) }
        var track = Track(acceleration: 30, maxSpeed: 2.5)
        for i in 0..<200 { track.update(fix, at: Double(i) * 0.5) }
        Self.expectSane(track, "indefinite fixes")
    }

    @Test func nonFiniteFixesAreDroppedAndTheTrackStaysWhereItWas() {
        var track = Track(acceleration: 0.05, maxSpeed: 2.5)
        let good = Fix(position: Point3(3, 2, 1.2), floor: 0, xx: 1, xy: 0, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0.2)
        track.update(good, at: 0)
        track.update(good, at: 0.5)
        let bad: [Fix] = [
            Fix(position: Point3(.nan, 2, 1.2), floor: 0, xx: 1, xy: 0, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0.2),
            Fix(position: Point3(3, .infinity, 1.2), floor: 0, xx: 1, xy: 0, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0.2),
            Fix(position: Point3(3, 2, .nan), floor: 0, xx: 1, xy: 0, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0.2),
            Fix(position: Point3(3, 2, 1.2), floor: 0, xx: .nan, xy: 0, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0.2),
            Fix(position: Point3(3, 2, 1.2), floor: 0, xx: 1, xy: .infinity, yy: 1, zz: 1, confidence: 0.5, fixes: 4, cost: 0.2),
            Fix(position: Point3(3, 2, 1.2), floor: 0, xx: 1, xy: 0, yy: 1, zz: -.infinity, confidence: 0.5, fixes: 4, cost: 0.2),
        ]
        for (i, fix) in bad.enumerated() {
            track.update(fix, at: 1 + Double(i))
            #expect(track.position.x.isFinite && track.position.y.isFinite && track.position.z.isFinite, "bad fix \(i)")
            Self.expectSane(track, "bad fix \(i)")
        }
        track.update(good, at: 10)
        #expect(abs(track.position.x - 3) < 0.5 && abs(track.position.y - 2) < 0.5)
        // A fresh track does not start from a non-finite fix either.
        var fresh = Track(acceleration: 0.05, maxSpeed: 2.5)
        fresh.update(bad[0], at: 0)
        #expect(!fresh.isStarted)
    }

    @Test func aHugeProcessNoiseOnlyRestartsTheTrack() {
        // q·dt³ overflows to ∞: the covariance is not finite and the track restarts from each fix.
        var track = Track(acceleration: .greatestFiniteMagnitude, maxSpeed: 2.5)
        for (t, fix) in Self.fixes(count: 50, seed: 5) {
            track.update(fix, at: t)
            #expect(track.x[0].isFinite && track.x[1].isFinite)
            #expect(abs(track.x[0] - fix.position.x) < 1e-9 && abs(track.x[1] - fix.position.y) < 1e-9)
        }
    }

    @Test(arguments: [30.0, 300])
    func theEngineReportsFinitePositionsOnTheFloorWithALargeProcessNoise(acceleration: Double) {
        // Through the whole engine: a device walking through the door and back for ten minutes.
        var rng = SeededGenerator(seed: 30)
        let site = twoRoomSite()
        var options = EngineOptions()
        options.acceleration = acceleration
        let path: (Double) -> Point3 = { t in
            let phase = (t / 30).truncatingRemainder(dividingBy: 2)
            return Point3(1 + 8 * (phase < 1 ? phase : 2 - phase), 2, 1.0)
        }
        let readings = simulate(site: site, from: 0, to: 600, noise: 6, rng: &rng, path: path)
        let out = updates(run(Engine(site: site, options: options), readings))
        #expect(out.count > 1_000)
        // Within the 10 × 4 m floor, give or take what the velocity carries between fixes.
        let off = out.filter { !($0.x > -5 && $0.x < 15 && $0.y > -5 && $0.y < 9 && $0.z.isFinite) }
        #expect(off.isEmpty, "\(off.prefix(3).map { "(\($0.x), \($0.y), \($0.z)) at \($0.t)" })")
    }

    @Test func numbersBeyondIntNeverTrapInTheReportOrTheGrid() {
        #expect(fixed(1.6e19, 2) == String(1.6e19))
        #expect(fixed(-1e300, 1) == String(-1e300))
        #expect(fixed(.infinity, 2) == "∞")
        #expect(fixed(.nan, 2) == "–")
        #expect(fixed(12.345, 2) == "12.35")
        #expect(clampedIndex(.nan, 0, 9) == 0)
        #expect(clampedIndex(.infinity, 0, 9) == 9)
        #expect(clampedIndex(-.infinity, 0, 9) == 0)
        #expect(clampedIndex(1e300, 0, 9) == 9)
        #expect(clampedIndex(4.7, 0, 9) == 4)
        // A grid search over observations at non-finite places finds a cell, no trap.
        let site = twoRoomSite()
        var geometry = SiteGeometry(site)
        let slope = PathLoss(exponent: 2.5).slope
        geometry.buildGrids(slope: slope, height: 1.2)
        var obs = exactObservations(site, at: Point3(3, 2, 1.2))
        obs[0].position = Point3(.nan, .infinity, 1)
        let problem = Problem(sigma: 6, huber: 1.5, slope: slope, floor: 0)
        #expect(geometry.grids[0].best(obs, problem: problem) != nil)
    }
}
