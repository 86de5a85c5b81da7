/// Recent RSSI samples of every (device, node) link, in flat ring buffers.
///
/// One link is created the first time a node hears a device; after that a reading only
/// writes into preallocated slots, so the per-reading path allocates nothing. A reading
/// touches its link's entry and one sample, each a few bytes apart from what it writes with
/// it: with the fields in six arrays, a reading wrote five cache lines (and checked five
/// arrays for uniqueness) across the tens of thousands of links of a big site.
struct LinkStore: Sendable {
    /// Samples kept per link: enough for a few seconds of advertising at 2–3 Hz.
    static let capacity = 8

    fileprivate struct Link: Sendable {
        var next: UInt8 = 0
        var filled: UInt8 = 0
        /// Newest sample time.
        var latest = -Double.infinity
    }

    fileprivate struct Sample: Sendable {
        var rssi = 0.0
        var time = -Double.infinity
    }

    private var links: [Link] = []
    private var samples: [Sample] = []

    var count: Int { links.count }

    /// The newest sample time of link `l`.
    func latest(_ l: Int32) -> Double { links[Int(l)].latest }

    /// Adds an empty link (its node is the device's to know, `DeviceLink`); returns its index.
    mutating func make() -> Int32 {
        links.append(Link())
        samples.append(contentsOf: repeatElement(Sample(), count: Self.capacity))
        return Int32(links.count - 1)
    }

    mutating func add(link: Int32, rssi value: Double, at t: Double) {
        withWriter { $0.add(link: link, rssi: value, at: t) }
    }

    /// Write access to every link and sample at once, for many readings (`Engine.record`):
    /// through the arrays, each reading's two writes checked both for uniqueness.
    struct Writer {
        fileprivate let links: UnsafeMutableBufferPointer<Link>
        fileprivate let samples: UnsafeMutableBufferPointer<Sample>

        @inline(__always)
        func add(link: Int32, rssi value: Double, at t: Double) {
            let l = Int(link)
            let next = Int(links[l].next)
            samples[l * LinkStore.capacity + next] = Sample(rssi: value, time: t)
            links[l].next = UInt8((next + 1) % LinkStore.capacity)
            links[l].filled = UInt8(min(Int(links[l].filled) + 1, LinkStore.capacity))
            if t > links[l].latest { links[l].latest = t }
        }
    }

    mutating func withWriter<R>(_ body: (Writer) -> R) -> R {
        links.withUnsafeMutableBufferPointer { links in
            samples.withUnsafeMutableBufferPointer { samples in body(Writer(links: links, samples: samples)) }
        }
    }

    /// The link's smoothed RSSI over `(t - window, t]` (`Smoothing.robustMean`), and the
    /// samples behind it; `nil` when the window is empty. The window's samples are copied into
    /// a buffer on the stack: in a growing array (the caller's, reused) each append and swap
    /// checked its uniqueness and bounds, and that was most of a hold's cost.
    func smoothed(link: Int32, at t: Double, window: Double, options: SmoothingOptions = SmoothingOptions()) -> (rssi: Double, samples: Int)? {
        let l = Int(link)
        let base = l * Self.capacity, filled = Int(links[l].filled)
        return samples.withUnsafeBufferPointer { samples in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.capacity) { buffer -> (rssi: Double, samples: Int)? in
                var n = 0
                for i in 0..<filled where samples[base + i].time > t - window && samples[base + i].time <= t {
                    buffer[n] = samples[base + i].rssi
                    n += 1
                }
                guard n > 0 else { return nil }
                return (Smoothing.robustMean(UnsafeMutableBufferPointer(rebasing: buffer[0..<n]), options: options), n)
            }
        }
    }
}
