import Wire
import SiteModel

/// A constant-velocity Kalman filter over a device's position on its floor.
///
/// State `[x, y, vx, vy]` with a white-acceleration process; height is a separate random
/// walk. Each fix is a measurement with its own covariance, so a weak fix (one node,
/// collinear nodes) moves the track little, and the speed is capped so a burst of bad
/// readings cannot carry a still device through a wall.
struct Track: Sendable {
    var x = SIMD4<Double>(repeating: 0)
    /// Row-major 4×4 covariance.
    var p = SIMD16<Double>(repeating: 0)
    var z = 0.0
    var zVariance = 1.0
    var t = 0.0
    var floor = -1
    var isStarted: Bool { floor >= 0 }

    var options: TrackerOptions
    /// The mean of a still device's fixes, kept beside the track (`Pipeline.stillMean`), or `nil`.
    var still: StillAverage?

    /// A fix this many squared standard deviations from the prediction (3σ) is more likely a
    /// bad reading than a move: its noise is inflated to put it there.
    static let outlierGate = 9.0
    /// The least horizontal variance of a fix, m² (1 cm²): below it the filter would follow
    /// the fix's rounding.
    static let leastVariance = 1e-4
    /// The least vertical variance, m²: only there to keep divisions finite.
    static let leastHeightVariance = 1e-6
    /// The most a fix's horizontal correlation may reach: at 1 its covariance is singular.
    static let greatestCorrelation = 0.99
    /// How fast the height's variance grows between fixes, m²/s: height changes by stairs only.
    static let heightDrift = 0.01
    /// An innovation covariance's determinant below this is singular: the track restarts.
    static let singular = 1e-12
    /// A new track's velocity variance per axis, (m/s)²: unknown, to about a walking pace.
    static let startVelocityVariance = 1.0

    init(options: TrackerOptions) { self.options = options }

    init(acceleration: Double, maxSpeed: Double) {
        var options = TrackerOptions()
        options.acceleration = acceleration
        options.maxSpeed = maxSpeed
        self.init(options: options)
    }

    var position: Point3 { Point3(x[0], x[1], z) }

    /// Where the device is reported, as of its last fix (a held fix repeats it): the track, or for
    /// a device `still` finds settled, the mean of its fixes there.
    var reported: Point3 {
        guard let s = still, t - s.since >= s.options.settle, speed <= s.options.speed, let m = s.mean else { return position }
        return Point3(m.x, m.y, z)
    }

    mutating func start(_ fix: Fix, at time: Double) {
        guard let r = Self.measurementNoise(fix) else { return }
        x = SIMD4(fix.position.x, fix.position.y, 0, 0)
        p = SIMD16(repeating: 0)
        p[0] = r.xx; p[1] = r.xy; p[4] = r.xy; p[5] = r.yy
        p[10] = Self.startVelocityVariance; p[15] = Self.startVelocityVariance
        z = fix.position.z; zVariance = max(fix.zz, Self.leastHeightVariance)
        t = time; floor = fix.floor
        still?.restart(at: SIMD2(x[0], x[1]), time: time)
        still?.add(fix.position, noise: r)
    }

    /// A fix's horizontal covariance made safe to filter with: `nil` when its position or
    /// variances are not finite (such a fix is dropped), otherwise positive definite, with
    /// the variances at least 1 cm² and the correlation held below 0.99 (a locator that caps
    /// the variances but not the covariance would otherwise hand over an indefinite matrix,
    /// and an indefinite measurement noise makes the track's covariance indefinite).
    static func measurementNoise(_ fix: Fix) -> (xx: Double, xy: Double, yy: Double)? {
        guard fix.position.x.isFinite, fix.position.y.isFinite, fix.position.z.isFinite,
              fix.xx.isFinite, fix.yy.isFinite, fix.xy.isFinite, fix.zz.isFinite, fix.zz >= 0 else { return nil }
        let xx = max(fix.xx, leastVariance), yy = max(fix.yy, leastVariance)
        let bound = greatestCorrelation * (xx * yy).squareRoot()
        return (xx, min(max(fix.xy, -bound), bound), yy)
    }

    /// The predicted position at `time`, without changing the track.
    func predicted(at time: Double) -> Point3 {
        let dt = max(time - t, 0)
        return Point3(x[0] + x[2] * dt, x[1] + x[3] * dt, z)
    }

    mutating func update(_ fix: Fix, at time: Double) {
        guard let r = Self.measurementNoise(fix), time.isFinite else { return }
        guard isStarted, fix.floor == floor else { start(fix, at: time); return }
        predict(to: time)
        // Innovation and its covariance S = H P Hᵀ + R with H = [I₂ 0].
        let ix = fix.position.x - x[0], iy = fix.position.y - x[1]
        var (rxx, rxy, ryy) = r
        var sxx = p[0] + rxx, sxy = p[1] + rxy, syy = p[5] + ryy
        // A fix far outside what the track expects is more likely a bad reading than a
        // teleport: inflate its noise (a robust Kalman update) instead of following it.
        let det0 = sxx * syy - sxy * sxy
        if det0 > 0 {
            let mahalanobis2 = (syy * ix * ix - 2 * sxy * ix * iy + sxx * iy * iy) / det0
            if mahalanobis2 > Self.outlierGate {
                let inflate = mahalanobis2 / Self.outlierGate
                rxx *= inflate; rxy *= inflate; ryy *= inflate
                sxx = p[0] + rxx; sxy = p[1] + rxy; syy = p[5] + ryy
            }
        }
        let det = sxx * syy - sxy * sxy
        guard det > Self.singular, det.isFinite else { start(fix, at: time); return }
        let (ixx, ixy, iyy) = (syy / det, -sxy / det, sxx / det)
        // K = P Hᵀ S⁻¹: column 0 and 1 of P times S⁻¹.
        var k = SIMD8<Double>(repeating: 0)
        for r in 0..<4 {
            let a = p[r * 4], b = p[r * 4 + 1]
            k[r * 2] = a * ixx + b * ixy
            k[r * 2 + 1] = a * ixy + b * iyy
        }
        for r in 0..<4 { x[r] += k[r * 2] * ix + k[r * 2 + 1] * iy }
        p = Self.josephUpdate(p, gain: k, noise: (rxx, rxy, ryy))
        capSpeed()
        // A covariance that is no longer a covariance (or a state that left the numbers) is
        // a lost track: start again from this fix rather than carry it on.
        if !x[0].isFinite || !x[1].isFinite || !x[2].isFinite || !x[3].isFinite
            || !(p[0] > 0 && p[5] > 0 && p[10] > 0 && p[15] > 0 && p[0] * p[5] > p[1] * p[1])
            || !(p[0] + p[5] + p[10] + p[15]).isFinite {
            start(fix, at: time)
            return
        }
        if var s = still {
            s.follow(SIMD2(x[0], x[1]), time: time)
            s.add(fix.position, noise: (rxx, rxy, ryy))
            still = s
        }
        let kz = zVariance / (zVariance + max(fix.zz, Self.leastHeightVariance))
        z += kz * (fix.position.z - z)
        zVariance = max(zVariance * (1 - kz), Self.leastHeightVariance)
    }

    /// P ← (I − K H) P (I − K H)ᵀ + K R Kᵀ (the Joseph form), then made exactly symmetric.
    /// The short form P − K H P is the same in exact arithmetic but loses symmetry to rounding,
    /// and with a large process noise that asymmetry grows from step to step until the
    /// covariance is indefinite and the track runs off to ±∞.
    static func josephUpdate(_ p: SIMD16<Double>, gain k: SIMD8<Double>, noise r: (xx: Double, xy: Double, yy: Double)) -> SIMD16<Double> {
        // M = (I − K H) P: row r of P less K[r, 0]·row 0 and K[r, 1]·row 1.
        var m = p
        for row in 0..<4 {
            for c in 0..<4 { m[row * 4 + c] -= k[row * 2] * p[c] + k[row * 2 + 1] * p[4 + c] }
        }
        // M (I − K H)ᵀ: column c of M less K[c, 0]·column 0 and K[c, 1]·column 1 of M.
        var out = m
        for row in 0..<4 {
            for c in 0..<4 { out[row * 4 + c] -= m[row * 4] * k[c * 2] + m[row * 4 + 1] * k[c * 2 + 1] }
        }
        // + K R Kᵀ.
        for row in 0..<4 {
            let a = k[row * 2] * r.xx + k[row * 2 + 1] * r.xy
            let b = k[row * 2] * r.xy + k[row * 2 + 1] * r.yy
            for c in 0..<4 { out[row * 4 + c] += a * k[c * 2] + b * k[c * 2 + 1] }
        }
        for row in 0..<4 {
            for c in (row + 1)..<4 {
                let v = (out[row * 4 + c] + out[c * 4 + row]) / 2
                out[row * 4 + c] = v; out[c * 4 + row] = v
            }
        }
        return out
    }

    private mutating func predict(to time: Double) {
        let dt = max(time - t, 0)
        t = max(time, t)
        guard dt > 0 else { return }
        x[0] += x[2] * dt
        x[1] += x[3] * dt
        // P ← F P Fᵀ + Q for F = [[I, dt·I], [0, I]], done per axis pair.
        var f = p
        for c in 0..<4 { f[c] += dt * p[8 + c]; f[4 + c] += dt * p[12 + c] }
        var g = f
        for r in 0..<4 { g[r * 4] += dt * f[r * 4 + 2]; g[r * 4 + 1] += dt * f[r * 4 + 3] }
        let q = options.acceleration
        let (q11, q12, q22) = (q * dt * dt * dt / 3, q * dt * dt / 2, q * dt)
        g[0] += q11; g[5] += q11; g[10] += q22; g[15] += q22
        g[2] += q12; g[8] += q12; g[7] += q12; g[13] += q12
        p = g
        zVariance += Self.heightDrift * dt
    }

    private mutating func capSpeed() {
        let speed = (x[2] * x[2] + x[3] * x[3]).squareRoot()
        let maxSpeed = options.maxSpeed
        if speed > maxSpeed {
            x[2] *= maxSpeed / speed
            x[3] *= maxSpeed / speed
        }
    }
}

/// A device standing in one place is best placed at the mean of its fixes there, weighed by
/// their information: the constant-velocity track forgets a fix within seconds, so a still
/// device's track wanders with the fixes' noise (and drifts on the velocity that noise
/// suggests), while this mean keeps the fixes of the stay. Whether the device is still is told
/// by the track itself: it has stayed within `step` of one place (the anchor) for `settle`
/// seconds and is slower than `speed`. The mean starts afresh when the track leaves `step` of
/// the anchor, and also on a shorter move: a one-sided sequential test (a CUSUM, like the room
/// test) adds, per second, how much further than `away` the track is from the mean, never goes
/// below zero, and restarts the mean when it reaches `alarm` (m·s); a track that stays 1 m from
/// the mean does so within `alarm / (1 - away)` (12) seconds. Its memory is bounded too: every fix's
/// weight decays as exp(−age / `memory`), so the information saturates (at the fix rate times
/// `memory`) and a move too small for the test is followed within a few `memory`s.
struct StillAverage: Sendable {
    var options: StillMeanOptions
    var anchor = SIMD2<Double>(repeating: .infinity)
    var since = Double.infinity
    /// Sums over the fixes since the mean (re)started, each weighed by exp(−age / `memory`): their
    /// information (inverse covariance after the track's robust inflation; xx, xy, yy) and their
    /// information times their position, as of `last`.
    var information = SIMD3<Double>(repeating: 0)
    var sum = SIMD2<Double>(repeating: 0)
    var last = -Double.infinity
    /// The change test's sum, m·s.
    var evidence = 0.0

    init(options: StillMeanOptions) { self.options = options }

    init(step: Double, settle: Double, speed: Double) {
        var options = StillMeanOptions()
        options.step = step
        options.settle = settle
        options.speed = speed
        self.init(options: options)
    }

    /// The mean of the fixes since the mean (re)started, `nil` before any.
    var mean: Point2? {
        let i = information
        let det = i[0] * i[2] - i[1] * i[1]
        guard det > 0, det.isFinite else { return nil }
        return Point2((i[2] * sum.x - i[1] * sum.y) / det, (i[0] * sum.y - i[1] * sum.x) / det)
    }

    mutating func restart(at position: SIMD2<Double>, time: Double) {
        anchor = position
        since = time
        information = SIMD3(repeating: 0)
        sum = SIMD2(repeating: 0)
        last = time
        evidence = 0
    }

    /// Ages the sums to `time`, runs the change test on the track's `position` and restarts the
    /// mean there when the track has left `step` of the anchor or the test fires.
    mutating func follow(_ position: SIMD2<Double>, time: Double) {
        let d = position - anchor
        guard (d * d).sum() <= options.step * options.step else { restart(at: position, time: time); return }
        let dt = time - last
        guard dt > 0 else { return }
        last = time
        let keep = dt.isFinite ? Elementary.exp(-dt / options.memory) : 0
        information *= keep
        sum *= keep
        guard let m = mean else { evidence = 0; return }
        let e = position - SIMD2(m.x, m.y)
        evidence = max(0, evidence + ((e * e).sum().squareRoot() - options.away) * dt)
        if evidence >= options.alarm { restart(at: position, time: time) }
    }

    mutating func add(_ fix: Point3, noise r: (xx: Double, xy: Double, yy: Double)) {
        let det = r.xx * r.yy - r.xy * r.xy
        guard det > 0 else { return }
        let w = SIMD3(r.yy, -r.xy, r.xx) / det
        information += w
        sum += SIMD2(w[0] * fix.x + w[1] * fix.y, w[1] * fix.x + w[2] * fix.y)
    }
}
