/// Logarithm, exponential, sine and cosine in pure Swift: the one copy Positioning, Simulation
/// and the lab share.
///
/// The standard library has none of them without Glibc or Foundation, which the pure modules
/// do not import. Being our own code also makes the simulation and the engine bit-for-bit the
/// same on every platform, whatever its libm. Accurate to a few ulps over the ranges the
/// engine and the channel model use. Every member is `@inlinable`: the engine calls `log` and
/// `exp` per node per solve, and a call across modules would cost more than the series.
public enum Elementary {
    public static let ln2 = 0.6931471805599453
    public static let ln10 = 2.302585092994046
    public static let pi = 3.141592653589793
    public static let twoPi = 6.283185307179586
    /// π/2 split in two (Cody–Waite), so reducing large arguments loses little precision.
    @usableFromInline static let halfPiHigh = 1.5707963267341256
    @usableFromInline static let halfPiLow = 6.077100506506192e-11

    /// ln(x); `-inf` for 0, NaN for negatives and NaN.
    @inlinable
    public static func log(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : (x.isNaN || x < 0 ? .nan : x) }
        // x = m · 2^e with m in [√½, √2), then ln m = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172.
        var (m, e) = binary(x)
        if m > 1.4142135623730951 { m /= 2; e += 1 }
        let s = (m - 1) / (m + 1), s2 = s * s
        // atanh series to s¹⁵ in Horner form: |s| < 0.172 leaves an error below 1e-13.
        let series = 1 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 * (1.0 / 9 + s2 * (1.0 / 11 + s2 * (1.0 / 13 + s2 / 15))))))
        return 2 * (s * series) + e * ln2
    }

    /// log10(x).
    @inlinable
    public static func log10(_ x: Double) -> Double { log(x) / ln10 }

    /// `x` (positive, finite) as significand in [1, 2) and exponent: `x.significand` and
    /// `x.exponent`, read from the bits when `x` is normal. The standard library's getters are
    /// calls into its runtime (38 of a logarithm's 101 instructions under callgrind).
    @inlinable @inline(__always)
    public static func binary(_ x: Double) -> (significand: Double, exponent: Double) {
        guard x.isNormal else { return (x.significand, Double(x.exponent)) }
        let bias = 1023  // IEEE 754 binary64's exponent bias
        let significand = Double(sign: .plus, exponentBitPattern: UInt(bias), significandBitPattern: x.significandBitPattern)
        return (significand, Double(Int(x.exponentBitPattern) - bias))
    }

    /// e^x; 0 below -745, +inf above 709.
    @inlinable
    public static func exp(_ x: Double) -> Double {
        guard x.isFinite else { return x.isNaN ? .nan : (x > 0 ? .infinity : 0) }
        if x > 709.78 { return .infinity }
        if x < -745.1 { return 0 }
        // x = k·ln2 + r with |r| ≤ ln2/2; e^r by Taylor, then scale by 2^k.
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        // Taylor to r¹³ in Horner form: |r| ≤ 0.347 leaves an error below 1e-15.
        let high = 1.0 / 5040 + r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800
            + r * (1.0 / 479001600 + r / 6227020800)))))
        let sum = 1 + r * (1 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * high))))))
        return k < 1000 ? scale(sum, Int(k)) : .infinity
    }

    /// 10^x.
    @inlinable
    public static func exp10(_ x: Double) -> Double { exp(x * ln10) }

    @inlinable
    static func scale(_ v: Double, _ k: Int) -> Double {
        // Two steps keep subnormal results and large k inside Double's exponent range.
        let half = k / 2
        return v * powerOfTwo(half) * powerOfTwo(k - half)
    }

    /// 2^n for n in -1022...1023 (`exp` needs -538...500), from its bits: the same number as
    /// `Double(sign: .plus, exponent: n, significand: 1)`, which is not inlined (28
    /// instructions a call under callgrind, two per `exp`).
    @inlinable @inline(__always)
    public static func powerOfTwo(_ n: Int) -> Double {
        Double(bitPattern: UInt64(truncatingIfNeeded: n + 1023) << 52)
    }

    /// sin(x).
    @inlinable
    public static func sin(_ x: Double) -> Double { sinCos(x).sin }
    /// cos(x).
    @inlinable
    public static func cos(_ x: Double) -> Double { sinCos(x).cos }

    /// Sine and cosine together: reduce to |r| ≤ π/4 around a multiple of π/2, then Taylor.
    @inlinable
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        guard x.isFinite else { return (.nan, .nan) }
        let k = (x / (halfPiHigh + halfPiLow)).rounded()
        let r = (x - k * halfPiHigh) - k * halfPiLow
        let r2 = r * r
        // Terms to r^17 / r^18: below 1e-17 for |r| ≤ π/4.
        var s = r, c = 1.0
        var sTerm = r, cTerm = 1.0
        var n = 1.0
        for _ in 0..<9 {
            sTerm *= -r2 / ((n + 1) * (n + 2))
            cTerm *= -r2 / (n * (n + 1))
            s += sTerm
            c += cTerm
            n += 2
        }
        switch Int(k.truncatingRemainder(dividingBy: 4) + 4) % 4 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }
}
