import Wire

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

    /// Process noise: acceleration spectral density, (m/s²)²·s.
    var acceleration: Double
    /// Fastest the device is believed to move, m/s.
    var maxSpeed: Double

    init(acceleration: Double, maxSpeed: Double) {
        self.acceleration = acceleration
        self.maxSpeed = maxSpeed
    }

    var position: Point3 { Point3(x[0], x[1], z) }

    mutating func start(_ fix: Fix, at time: Double) {
        x = SIMD4(fix.position.x, fix.position.y, 0, 0)
        p = SIMD16(repeating: 0)
        p[0] = fix.xx; p[1] = fix.xy; p[4] = fix.xy; p[5] = fix.yy
        p[10] = 1; p[15] = 1
        z = fix.position.z; zVariance = fix.zz
        t = time; floor = fix.floor
    }

    /// The predicted position at `time`, without changing the track.
    func predicted(at time: Double) -> Point3 {
        let dt = max(time - t, 0)
        return Point3(x[0] + x[2] * dt, x[1] + x[3] * dt, z)
    }

    mutating func update(_ fix: Fix, at time: Double) {
        guard isStarted, fix.floor == floor else { start(fix, at: time); return }
        predict(to: time)
        // Innovation and its covariance S = H P Hᵀ + R with H = [I₂ 0].
        let ix = fix.position.x - x[0], iy = fix.position.y - x[1]
        var sxx = p[0] + fix.xx, sxy = p[1] + fix.xy, syy = p[5] + fix.yy
        // A fix far outside what the track expects is more likely a bad reading than a
        // teleport: inflate its noise (a robust Kalman update) instead of following it.
        let det0 = sxx * syy - sxy * sxy
        if det0 > 0 {
            let mahalanobis2 = (syy * ix * ix - 2 * sxy * ix * iy + sxx * iy * iy) / det0
            if mahalanobis2 > 9 {
                let inflate = mahalanobis2 / 9
                sxx = p[0] + fix.xx * inflate; sxy = p[1] + fix.xy * inflate; syy = p[5] + fix.yy * inflate
            }
        }
        let det = sxx * syy - sxy * sxy
        guard det > 1e-12 else { return }
        let (ixx, ixy, iyy) = (syy / det, -sxy / det, sxx / det)
        // K = P Hᵀ S⁻¹: column 0 and 1 of P times S⁻¹.
        var k = SIMD8<Double>(repeating: 0)
        for r in 0..<4 {
            let a = p[r * 4], b = p[r * 4 + 1]
            k[r * 2] = a * ixx + b * ixy
            k[r * 2 + 1] = a * ixy + b * iyy
        }
        for r in 0..<4 { x[r] += k[r * 2] * ix + k[r * 2 + 1] * iy }
        var updated = p
        for r in 0..<4 {
            for c in 0..<4 { updated[r * 4 + c] -= k[r * 2] * p[c] + k[r * 2 + 1] * p[4 + c] }
        }
        p = updated
        capSpeed()
        let kz = zVariance / (zVariance + fix.zz)
        z += kz * (fix.position.z - z)
        zVariance *= 1 - kz
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
        let q = acceleration
        let (q11, q12, q22) = (q * dt * dt * dt / 3, q * dt * dt / 2, q * dt)
        g[0] += q11; g[5] += q11; g[10] += q22; g[15] += q22
        g[2] += q12; g[8] += q12; g[7] += q12; g[13] += q12
        p = g
        zVariance += 0.01 * dt
    }

    private mutating func capSpeed() {
        let speed = (x[2] * x[2] + x[3] * x[3]).squareRoot()
        if speed > maxSpeed {
            x[2] *= maxSpeed / speed
            x[3] *= maxSpeed / speed
        }
    }
}
