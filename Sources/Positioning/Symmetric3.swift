/// A symmetric 3×3 matrix: the normal equations of a 3-D solve.
struct Symmetric3: Sendable {
    var xx = 0.0, xy = 0.0, xz = 0.0, yy = 0.0, yz = 0.0, zz = 0.0

    /// Adds `w · j jᵀ`.
    mutating func addOuter(_ j: (Double, Double, Double), weight w: Double) {
        xx += w * j.0 * j.0; xy += w * j.0 * j.1; xz += w * j.0 * j.2
        yy += w * j.1 * j.1; yz += w * j.1 * j.2; zz += w * j.2 * j.2
    }

    var determinant: Double {
        xx * (yy * zz - yz * yz) - xy * (xy * zz - yz * xz) + xz * (xy * yz - yy * xz)
    }

    /// The inverse, or `nil` when (nearly) singular.
    var inverse: Symmetric3? {
        let det = determinant
        guard abs(det) > 1e-12 * max(1, xx * yy * zz) else { return nil }
        var r = Symmetric3()
        r.xx = (yy * zz - yz * yz) / det
        r.xy = (xz * yz - xy * zz) / det
        r.xz = (xy * yz - xz * yy) / det
        r.yy = (xx * zz - xz * xz) / det
        r.yz = (xy * xz - xx * yz) / det
        r.zz = (xx * yy - xy * xy) / det
        return r
    }

    func times(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
        (xx * v.0 + xy * v.1 + xz * v.2, xy * v.0 + yy * v.1 + yz * v.2, xz * v.0 + yz * v.1 + zz * v.2)
    }
}
