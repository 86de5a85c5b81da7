/// Natural logarithm and exponential in pure Swift.
///
/// The standard library has no `log`/`exp` without importing Glibc or Foundation, which the
/// pure modules do not; these are accurate to a few ulps over the ranges positioning uses.
///
/// Simulation keeps its own copy on purpose: its series are summed differently, so the two
/// disagree in the last bits (a fifth of logs, over half of exps on [0.01, 1000] and
/// [-20, 5]); one shared copy would move every simulated reading or every position, and with
/// them the figures of `whereabouts accuracy`.
enum Elementary {
    static let ln2 = 0.6931471805599453

    /// ln(x); `-inf` for 0, NaN for negatives and NaN.
    static func log(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : (x.isNaN || x < 0 ? .nan : x) }
        // x = m · 2^e with m in [√½, √2), then ln m = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172.
        var (m, e) = binary(x)
        if m > 1.4142135623730951 { m /= 2; e += 1 }
        let s = (m - 1) / (m + 1), s2 = s * s
        // atanh series to s¹⁵ in Horner form: |s| < 0.172 leaves an error below 1e-13.
        let series = 1 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 * (1.0 / 9 + s2 * (1.0 / 11 + s2 * (1.0 / 13 + s2 / 15))))))
        let sum = s * series
        return 2 * sum + e * ln2
    }

    /// `x` (positive, finite) as significand in [1, 2) and exponent: `x.significand` and
    /// `x.exponent`, read from the bits when `x` is normal. The standard library's getters are
    /// calls into its runtime (38 of a logarithm's 101 instructions under callgrind).
    @inline(__always)
    static func binary(_ x: Double) -> (significand: Double, exponent: Double) {
        guard x.isNormal else { return (x.significand, Double(x.exponent)) }
        let bias = 1023  // IEEE 754 binary64's exponent bias
        let significand = Double(sign: .plus, exponentBitPattern: UInt(bias), significandBitPattern: x.significandBitPattern)
        return (significand, Double(Int(x.exponentBitPattern) - bias))
    }

    /// e^x; 0 below -745, +inf above 709.
    static func exp(_ x: Double) -> Double {
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

    /// log10(x).
    static func log10(_ x: Double) -> Double { log(x) / 2.302585092994046 }

    private static func scale(_ v: Double, _ k: Int) -> Double {
        // Two steps keep subnormal results and large k inside Double's exponent range.
        let half = k / 2
        return v * powerOfTwo(half) * powerOfTwo(k - half)
    }

    /// 2^n for n in -1022...1023 (`exp` needs -538...500), from its bits: the same number as
    /// `Double(sign: .plus, exponent: n, significand: 1)`, which is not inlined (28
    /// instructions a call under callgrind, two per `exp`).
    @inline(__always)
    static func powerOfTwo(_ n: Int) -> Double {
        Double(bitPattern: UInt64(truncatingIfNeeded: n + 1023) << 52)
    }
}
