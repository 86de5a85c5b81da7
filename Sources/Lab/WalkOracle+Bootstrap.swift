import Positioning
import SiteModel
import Wire

/// How far a median over a walk's moments could move by chance: a moving-block bootstrap.
///
/// A walk's moments are not independent (the next second's window overlaps this one's and
/// the beacon is a metre away), so resampling single moments would understate the spread;
/// blocks of consecutive moments (wrapping round the end) keep that dependence. Seeded, so
/// the same errors always give the same interval.
public struct BlockBootstrap: Sendable {
    public var block = 5
    public var resamples = 2_000
    public var seed: UInt64 = 1

    public init(block: Int = 5, resamples: Int = 2_000, seed: UInt64 = 1) {
        self.block = block; self.resamples = resamples; self.seed = seed
    }

    /// The central `level` interval (0.9: the 5th and 95th percentiles) of `statistic` over
    /// resamples of `count` moments' indices; `nil` without moments or resamples. Several
    /// series resampled with the same indices (a paired comparison) share one call.
    public func interval(count: Int, level: Double = 0.9, _ statistic: ([Int]) -> Double) -> (low: Double, high: Double)? {
        guard count > 0, resamples > 0, block > 0 else { return nil }
        var state = seed
        var values: [Double] = []
        values.reserveCapacity(resamples)
        var indices: [Int] = []
        indices.reserveCapacity(count + block)
        for _ in 0..<resamples {
            indices.removeAll(keepingCapacity: true)
            while indices.count < count {
                let start = Int(Self.next(&state) % UInt64(count))
                for k in 0..<block where indices.count < count { indices.append((start + k) % count) }
            }
            values.append(statistic(indices))
        }
        values.sort()
        let tail = (1 - min(max(level, 0), 1)) / 2
        let low = Int((tail * Double(resamples - 1)).rounded()), high = Int(((1 - tail) * Double(resamples - 1)).rounded())
        return (values[low], values[high])
    }

    /// The interval of the median of `errors` (in the walk's order).
    public func medianInterval(_ errors: [Double], level: Double = 0.9) -> (low: Double, high: Double)? {
        interval(count: errors.count, level: level) { picked in ErrorSummary(errors: picked.map { errors[$0] }).median }
    }

    /// SplitMix64: small, fast and good enough to pick blocks.
    static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
