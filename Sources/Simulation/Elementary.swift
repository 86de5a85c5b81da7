/// Logarithm, exponential, sine and cosine in pure Swift.
///
/// The standard library has none of them without Glibc or Foundation, which this module does
/// not import. Being our own code also makes the simulation bit-for-bit the same on every
/// platform, whatever its libm. Accurate to a few ulps over the ranges the channel model uses.
///
/// Positioning keeps its own copy on purpose: its series are summed differently (Horner), so
/// the two disagree in the last bits; sharing one would change the simulated readings, and
/// with them the figures of `whereabouts accuracy`.
enum Elementary {
    static let ln2 = 0.6931471805599453
    static let ln10 = 2.302585092994046
    static let pi = 3.141592653589793
    static let twoPi = 6.283185307179586
    /// π/2 split in two (Cody–Waite), so reducing large arguments loses little precision.
    private static let halfPiHigh = 1.5707963267341256
    private static let halfPiLow = 6.077100506506192e-11

    /// ln(x); `-inf` for 0, NaN for negatives and NaN.
    static func log(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : (x.isNaN || x < 0 ? .nan : x) }
        // x = m · 2^e with m in [√½, √2), then ln m = 2·atanh(s), s = (m-1)/(m+1), |s| < 0.172.
        var e = Double(x.exponent)
        var m = x.significand
        if m > 1.4142135623730951 { m /= 2; e += 1 }
        let s = (m - 1) / (m + 1), s2 = s * s
        var term = s, sum = s
        var k = 3.0
        while k < 26 {
            term *= s2
            sum += term / k
            k += 2
        }
        return 2 * sum + e * ln2
    }

    static func log10(_ x: Double) -> Double { log(x) / ln10 }

    /// e^x; 0 below -745, +inf above 709.
    static func exp(_ x: Double) -> Double {
        guard x.isFinite else { return x.isNaN ? .nan : (x > 0 ? .infinity : 0) }
        if x > 709.78 { return .infinity }
        if x < -745.1 { return 0 }
        // x = k·ln2 + r with |r| ≤ ln2/2; e^r by Taylor, then scale by 2^k.
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0, sum = 1.0
        for i in 1...14 {
            term *= r / Double(i)
            sum += term
        }
        let half = Int(k) / 2
        return sum * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: Int(k) - half, significand: 1)
    }

    static func exp10(_ x: Double) -> Double { exp(x * ln10) }

    static func sin(_ x: Double) -> Double { sinCos(x).sin }
    static func cos(_ x: Double) -> Double { sinCos(x).cos }

    /// Sine and cosine together: reduce to |r| ≤ π/4 around a multiple of π/2, then Taylor.
    static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
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
        let quadrant = Int(k.truncatingRemainder(dividingBy: 4) + 4) % 4
        switch quadrant {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }
}
