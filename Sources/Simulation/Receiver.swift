import BLE
import Wire

/// A node while the simulation runs: its clock, the capture it writes, and the readings it
/// batches as the edge does (docs/protocol.md#mqtt-topics-and-payloads), on its own clock.
struct Receiver {
    let name: String
    /// Its clock: `node = true + offset + drift · (seconds since start)`.
    let clockOffset: Double
    let clockDrift: Double
    let start: Double
    let batchMilliseconds: Int64
    let batchMax: Int
    var rng: RandomStream
    var capture = BtsnoopWriter(datalink: .h4)
    private var pending: [Reading] = []
    private(set) var seq: UInt64 = 0
    /// Advertisements captured, and readings made of them (strangers' phones make none).
    private(set) var heard = 0
    private(set) var readings = 0
    private(set) var batches = 0
    private var event: [UInt8] = []

    init(name: String, clockOffset: Double, clockDrift: Double, start: Double, effects: ChannelEffects, rng: RandomStream) {
        self.name = name
        self.clockOffset = clockOffset
        self.clockDrift = clockDrift
        self.start = start
        batchMilliseconds = max(Int64((effects.batchInterval * 1000).rounded()), 1)
        batchMax = effects.batchMax
        self.rng = rng
        event.reserveCapacity(48)
    }

    /// The node's clock at `s` seconds after start, in whole Unix milliseconds: what it
    /// stamps its capture records and readings with.
    func clockMilliseconds(_ s: Double) -> Int64 {
        Int64(((start + s + clockOffset + clockDrift * s) * 1000).rounded(.down))
    }

    /// Seconds since start (true time) when the node's clock shows `ms`.
    func trueSeconds(_ ms: Int64) -> Double {
        (Double(ms) / 1000 - start - clockOffset) / (1 + clockDrift)
    }

    /// Records one advertisement heard at true time `s`: a capture record and a pending reading.
    mutating func hear(_ device: Advertiser, rssi: Int, at s: Double) {
        let ms = clockMilliseconds(s)
        event.removeAll(keepingCapacity: true)
        AdvertisingReport.appendLegacyEvent(eventType: device.eventType, addressType: device.addressType, address: device.address,
                                            data: device.data, rssi: Int8(clamping: rssi), to: &event)
        capture.append(.event, event, unixMicroseconds: ms * 1000)
        heard += 1
        guard device.named else { return }
        pending.append(Reading(id: device.id, mac: device.addressText, rssi: rssi, tx: device.announcedPower,
                               t: Double(ms) / 1000, kind: device.kind))
        readings += 1
    }

    /// The batches the node has published by true time `s` (all of them when `final`), each
    /// with the true time it went out, oldest first.
    mutating func publish(by s: Double, final: Bool) -> [(at: Double, batch: Batch)] {
        let now = clockMilliseconds(s)
        var out: [(at: Double, batch: Batch)] = []
        while let first = pending.first {
            let windowEnd = (Int64((first.t * 1000).rounded()) / batchMilliseconds + 1) * batchMilliseconds
            guard final || windowEnd <= now else { break }
            let count = pending.prefix { Int64(($0.t * 1000).rounded()) < windowEnd }.count
            var taken = 0
            while taken < count {
                // The edge also publishes as soon as batch_max readings wait.
                let chunk = Array(pending[taken..<min(taken + batchMax, count)])
                let full = chunk.count == batchMax && taken + batchMax < count
                let ms = full ? Int64(((chunk.last?.t ?? 0) * 1000).rounded()) : windowEnd
                seq += 1
                batches += 1
                out.append((trueSeconds(ms), Batch(node: name, seq: seq, t: Double(ms) / 1000, readings: chunk)))
                taken += chunk.count
            }
            pending.removeFirst(count)
        }
        return out
    }
}
