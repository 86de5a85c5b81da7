/// What each node heard of the other nodes' own advertisements (their `beacon` ids): per
/// link, every RSSI in a histogram, so a calibration can take exact medians from any amount of
/// listening in fixed memory (127 counters a link, made when the link is first heard).
///
/// A counter never passes `binLimit`: when one reaches it, every counter of that link is
/// halved. So the counts cannot overflow, and old readings fade (a node moved or re-mounted
/// stops speaking for its old place after a few halvings instead of until restart).
public struct NodeBeaconLinks: Sendable, Equatable {
    public let nodeCount: Int
    /// `from * nodeCount + to` → counts of RSSI -1...-127 dBm (index `-rssi - 1`); empty until heard.
    private var histograms: [[UInt32]]
    /// The most readings one RSSI of one link keeps (at 1 Hz, hours of the link's commonest value).
    static let binLimit: UInt32 = 1 << 12
    /// Per transmitting node: the measured power its latest frame announced, if any (only a
    /// plausible one, -127...-1 dBm, as the engine takes a device's).
    public private(set) var announcedTx: [Int?]
    /// Readings recorded (a node hearing its own beacon is not a link and is not recorded).
    public private(set) var total = 0

    public init(nodeCount: Int) {
        self.nodeCount = nodeCount
        histograms = Array(repeating: [], count: nodeCount * nodeCount)
        announcedTx = Array(repeating: nil, count: nodeCount)
    }

    /// Node `to` heard node `from`'s beacon at `rssi` (-127...-1 dBm, as the engine checked).
    public mutating func record(from: Int, to: Int, rssi: Int, tx: Int?) {
        guard from != to, (-127...(-1)).contains(rssi) else { return }
        let link = from * nodeCount + to
        if histograms[link].isEmpty { histograms[link] = Array(repeating: 0, count: 127) }
        histograms[link][-rssi - 1] += 1
        if histograms[link][-rssi - 1] >= Self.binLimit {
            for i in histograms[link].indices { histograms[link][i] /= 2 }
        }
        // A frame announcing 0 (or garbage) would shift every link of this node by ~60 dB.
        if let tx, tx < 0, tx >= -127 { announcedTx[from] = tx }
        total += 1
    }

    /// Every link heard: its readings (as kept: halved when a counter reached `binLimit`) and
    /// their median RSSI (dBm).
    public var heard: [(from: Int, to: Int, count: Int, median: Double)] {
        histograms.indices.compactMap { link in
            guard !histograms[link].isEmpty else { return nil }
            let (count, median) = Self.median(histograms[link])
            return (link / nodeCount, link % nodeCount, count, median)
        }
    }

    /// The median of a histogram of -1...-127 dBm: the mean of the two middle readings when
    /// their count is even.
    static func median(_ counts: [UInt32]) -> (count: Int, median: Double) {
        let n = counts.reduce(0) { $0 + Int($1) }
        func value(atRank k: Int) -> Double {
            var seen = 0
            for (i, c) in counts.enumerated() {
                seen += Int(c)
                if seen > k { return Double(-i - 1) }
            }
            return .nan
        }
        // Index 0 is -1 dBm, so ranks run from loudest to quietest; the median does not care.
        return (n, (value(atRank: (n - 1) / 2) + value(atRank: n / 2)) / 2)
    }
}
