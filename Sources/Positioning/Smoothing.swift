/// Per-link RSSI smoothing: the robust mean of each (device, node) link's samples in the
/// site's `window`, the level the solver sees (`Engine.gatherObservations`).
///
/// One advertisement's RSSI swings by several dB from the next (fading, a body turning) and
/// now and then by far more (a reflection). A Hampel filter keeps the samples within a few
/// scaled median absolute deviations of the median and averages them: the mean's precision
/// without the outlier's pull.
public struct SmoothingOptions: Sendable, Equatable {
    /// Scaled median absolute deviations from the median beyond which a sample is dropped:
    /// Hampel's usual three.
    public var outlierDeviations = 3.0
    /// The least distance from the median (dB) that drops a sample: a window of near-equal
    /// samples has a tiny spread, and cutting at it would drop ordinary noise.
    public var minimumOutlierDistance = 3.0
    /// Windows with fewer samples are averaged as they are: too few for a median to outvote one.
    public var filteredFrom = 3
    /// A link whose newest sample is older than this many seconds, or `staleWindows` windows
    /// when that is longer, is handed back for reuse: a walking tag leaves nodes behind, and
    /// its links would otherwise grow with every node it ever passed.
    public var staleAfter = 60.0
    public var staleWindows = 4.0

    public init() {}
}

/// The Hampel filter of `SmoothingOptions` over one window's samples.
enum Smoothing {
    /// The median absolute deviation of Gaussian samples times this is their standard deviation.
    static let gaussianMADScale = 1.4826

    /// The robust mean of `values` (the window's samples, at least one; sorted in place).
    static func robustMean(_ values: UnsafeMutableBufferPointer<Double>, options: SmoothingOptions) -> Double {
        let n = values.count
        if n < options.filteredFrom { return values.reduce(0, +) / Double(n) }
        insertionSort(values)
        let median = median(values)
        let deviations = medianAbsoluteDeviation(values, around: median)
        let limit = max(options.outlierDeviations * gaussianMADScale * deviations, options.minimumOutlierDistance)
        // |v - median| grows away from the median, so the values kept are a run of the
        // sorted ones: find its ends, then sum it in order.
        var lo = 0, hi = n
        while lo < hi, !(abs(values[lo] - median) <= limit) { lo += 1 }
        while hi > lo, !(abs(values[hi - 1] - median) <= limit) { hi -= 1 }
        var sum = 0.0
        for v in values[lo..<hi] { sum += v }
        return sum / Double(hi - lo)
    }

    private static func median(_ sorted: UnsafeMutableBufferPointer<Double>) -> Double {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// The median of |v - m| over sorted values, walking outward from `m`: no second buffer.
    private static func medianAbsoluteDeviation(_ sorted: UnsafeMutableBufferPointer<Double>, around m: Double) -> Double {
        var lo = sorted.lastIndex { $0 <= m } ?? -1
        var hi = lo + 1
        let target = (sorted.count + 1) / 2
        var last = 0.0
        for _ in 0..<target {
            let down = lo >= 0 ? m - sorted[lo] : .infinity
            let up = hi < sorted.count ? sorted[hi] - m : .infinity
            if down <= up { last = down; lo -= 1 } else { last = up; hi += 1 }
        }
        return last
    }
}

func insertionSort(_ a: UnsafeMutableBufferPointer<Double>) {
    guard a.count > 1 else { return }
    for i in 1..<a.count {
        let v = a[i]
        var j = i - 1
        while j >= 0 && a[j] > v {
            a[j + 1] = a[j]
            j -= 1
        }
        a[j + 1] = v
    }
}
