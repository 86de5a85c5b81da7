/// Recent RSSI samples of every (device, node) link, in flat ring buffers.
///
/// One link is created the first time a node hears a device; after that a reading only
/// writes into preallocated slots, so the per-reading path allocates nothing.
struct LinkStore: Sendable {
    /// Samples kept per link: enough for a few seconds of advertising at 2–3 Hz.
    static let capacity = 8

    private(set) var node: [Int32] = []
    private var rssi: [Double] = []
    private var time: [Double] = []
    private var next: [UInt8] = []
    private var filled: [UInt8] = []
    /// Newest sample time per link.
    private(set) var latest: [Double] = []

    var count: Int { node.count }

    /// Adds an empty link for `node`; returns its index.
    mutating func make(node n: Int32) -> Int32 {
        node.append(n)
        rssi.append(contentsOf: repeatElement(0, count: Self.capacity))
        time.append(contentsOf: repeatElement(-.infinity, count: Self.capacity))
        next.append(0)
        filled.append(0)
        latest.append(-.infinity)
        return Int32(node.count - 1)
    }

    mutating func add(link: Int32, rssi value: Double, at t: Double) {
        let l = Int(link)
        let slot = l * Self.capacity + Int(next[l])
        rssi[slot] = value
        time[slot] = t
        next[l] = UInt8((Int(next[l]) + 1) % Self.capacity)
        filled[l] = UInt8(min(Int(filled[l]) + 1, Self.capacity))
        if t > latest[l] { latest[l] = t }
    }

    /// The link's robust RSSI over `(t - window, t]`: the samples within three scaled
    /// median absolute deviations of the median (a Hampel filter), averaged.
    /// `scratch` is the caller's reusable buffer. `nil` when the window is empty.
    func smoothed(link: Int32, at t: Double, window: Double, scratch: inout [Double]) -> (rssi: Double, samples: Int)? {
        let l = Int(link)
        scratch.removeAll(keepingCapacity: true)
        let base = l * Self.capacity
        for i in 0..<Int(filled[l]) where time[base + i] > t - window && time[base + i] <= t {
            scratch.append(rssi[base + i])
        }
        guard !scratch.isEmpty else { return nil }
        if scratch.count < 3 { return (scratch.reduce(0, +) / Double(scratch.count), scratch.count) }
        insertionSort(&scratch)
        let median = Self.median(scratch)
        let deviations = Self.medianAbsoluteDeviation(scratch, around: median)
        var kept = 0.0, sum = 0.0
        let limit = max(3 * 1.4826 * deviations, 3)
        for v in scratch where abs(v - median) <= limit {
            sum += v
            kept += 1
        }
        return (sum / kept, scratch.count)
    }

    private static func median(_ sorted: [Double]) -> Double {
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    /// The median of |v - m| over a sorted array, walking outward from `m`: no second buffer.
    private static func medianAbsoluteDeviation(_ sorted: [Double], around m: Double) -> Double {
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

func insertionSort(_ a: inout [Double]) {
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
