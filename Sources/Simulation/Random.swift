/// A seeded random stream (xoshiro256**), the same numbers on every platform and run.
///
/// Each part of the simulation draws from its own stream, named by a label
/// (`node/kitchen/receiver`, `device/2/motion`), so adding a device or a node does not
/// change what the others see: a scenario edit moves only what it touches.
struct RandomStream {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// The stream named `label` of the simulation seeded with `seed`.
    init(seed: UInt64, label: String) {
        var state = seed ^ Self.fnv1a(label)
        s0 = Self.splitMix(&state)
        s1 = Self.splitMix(&state)
        s2 = Self.splitMix(&state)
        s3 = Self.splitMix(&state)
    }

    mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// Uniform in [0, 1), 53 bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * uniform()
    }

    /// Standard normal (Box–Muller; one of the pair is dropped to keep the stream stateless).
    mutating func gaussian() -> Double {
        let u1 = 1 - uniform()  // (0, 1]: the log stays finite
        let u2 = uniform()
        return (-2 * Elementary.log(u1)).squareRoot() * Elementary.cos(Elementary.twoPi * u2)
    }

    /// Normal with the given mean and standard deviation.
    mutating func gaussian(mean: Double, sd: Double) -> Double { mean + sd * gaussian() }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { uniform() < p }

    /// A whole number in 0..<bound.
    mutating func below(_ bound: UInt64) -> UInt64 { bound == 0 ? 0 : next() % bound }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A stable hash of a label; Swift's `Hasher` is seeded per process and would not do.
    static func fnv1a(_ label: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in label.utf8 {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        return h
    }
}
