import Foundation
import MQTT
import Synchronization
import Wire

/// Event time of the readings: the wall clock, or a simulated clock running `speed` times
/// faster from `eventOrigin` (ten minutes of a site pass in one minute at speed 10). The
/// engine runs on the readings' timestamps, so this is how the memory bench ages a site.
struct EventClock: Sendable {
    var wallOrigin: Double
    var eventOrigin: Double
    var speed: Double

    static let wall = EventClock(wallOrigin: 0, eventOrigin: 0, speed: 1)

    func eventTime(wall: Double) -> Double { eventOrigin + (wall - wallOrigin) * speed }
}

/// What one `run` offered.
struct LoadRun {
    var seconds: Double
    var readings: Int
    var batches: Int
    var refused: Int
    var rate: Double { readings > 0 ? Double(readings) / seconds : 0 }
}

/// Devices on a `BenchSite` (one in ten walking, the rest still), each advert heard by the
/// four nodes around the device, published as docs/protocol.md#mqtt-topics-and-payloads batches of 200 readings per node (QoS 0)
/// through a real broker.
///
/// Readings carry the event time they are made at, and each batch the event time it is sent
/// at (as an edge stamps them, on the `EventClock`). One thread drives `run`; the counters
/// may be read from any thread.
final class LoadGenerator: @unchecked Sendable {
    static let batchMax = 200

    let site: BenchSite
    let deviceCount: Int
    private let client: MQTTClient
    private let topicNames: [String]
    private let nodeNames: [String]
    private var devices: [WalkingDevice]
    /// Per node: the readings waiting for its next batch, already encoded (comma-separated),
    /// and how many. Encoding each `Reading` afresh (its id and address escaped, its time
    /// formatted per reading) held the generator to about a million readings/s here, below
    /// what a plain `mosquitto_sub` takes, so the ladder could not find that limit.
    private var pending: [[UInt8]]
    private var pendingCount: [Int]
    /// Per device: `{"id":"…","mac":"…","rssi":`, the part of its readings that never changes.
    private var prefixes: [[UInt8]]
    /// `,"tx":-59,"t":…,"kind":"ibeacon"}` for the advert being made (one time for its readings),
    /// and the time it was made for: the adverts of one 1 ms pacing step share their time, so
    /// it is made once a step rather than once an advert (encoding a reading and searching it
    /// for each advert held one generator thread near 2 M readings/s; once a step, about 2.9 M).
    private var suffix: [UInt8] = []
    private var suffixTime = Double.nan
    private var batchBytes: [UInt8] = []
    /// Event time of the oldest reading waiting in each node's batch.
    private var pendingSince: [Double]
    private var seq: [UInt64]
    private var writer = JSONWriter(capacity: 48 * 1024)
    private var around: [Int] = []
    private var nextDevice = 0
    private var random = SplitMix(seed: 0x5EED)

    /// Readings published so far, in full batches.
    let published = Atomic<Int>(0)

    init(site: BenchSite, devices: Int, topics: Topics, client: MQTTClient) {
        self.site = site
        self.deviceCount = devices
        self.client = client
        nodeNames = (0..<site.nodeCount).map(site.nodeName)
        topicNames = nodeNames.map(topics.nodeReadings)
        pending = Array(repeating: [], count: site.nodeCount)
        pendingCount = Array(repeating: 0, count: site.nodeCount)
        pendingSince = Array(repeating: .infinity, count: site.nodeCount)
        for i in pending.indices { pending[i].reserveCapacity(Self.batchMax * 128) }
        seq = Array(repeating: 0, count: site.nodeCount)
        var random = SplitMix(seed: 42)
        self.devices = (0..<devices).map { WalkingDevice(index: $0, site: site, walks: $0 % 10 == 0, random: &random) }
        prefixes = self.devices.map { device in
            var w = JSONWriter(capacity: 128)
            w.objectStart()
            w.field("id", device.id)
            w.field("mac", device.mac)
            w.key("rssi")
            return w.bytes
        }
    }

    /// The readings of one advert at `t` end the same way: made once per advert, in the form
    /// `Reading.encode` gives (taken from it, so the two cannot drift apart).
    private func makeSuffix(t: Double) {
        writer.reset()
        Reading(id: "", rssi: -1, tx: -59, t: t, kind: .ibeacon).encode(into: &writer)
        let bytes = writer.bytes
        let marker = Array(#","tx":"#.utf8)
        suffix.removeAll(keepingCapacity: true)
        guard let start = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) }) else { return }
        suffix.append(contentsOf: bytes[start...])
    }

    /// Appends `-67` (a negative RSSI, as `JSONWriter` writes an integer).
    private static func appendRSSI(_ rssi: Int, to out: inout [UInt8]) {
        var v = rssi
        if v < 0 { out.append(UInt8(ascii: "-")); v = -v }
        if v >= 100 { out.append(UInt8(ascii: "0") + UInt8(v / 100)) }
        if v >= 10 { out.append(UInt8(ascii: "0") + UInt8(v / 10 % 10)) }
        out.append(UInt8(ascii: "0") + UInt8(v % 10))
    }

    /// Offers `rate` readings/s for `seconds` of wall time, paced in 1 ms steps, stamping
    /// readings with `clock`. Blocks the calling thread. Batches go out full, or also every
    /// `batchInterval` seconds of event time as an edge sends them (nil: full only, so a
    /// subscriber's message count × 200 is its readings). Partial batches left at the end
    /// are dropped, never offered.
    func run(rate: Double, seconds: Double, clock: EventClock = .wall, batchInterval: Double? = nil) -> LoadRun {
        var result = LoadRun(seconds: seconds, readings: 0, batches: 0, refused: 0)
        let start = wallSeconds()
        var generated = 0
        while true {
            let now = wallSeconds()
            let elapsed = now - start
            guard elapsed < seconds else { break }
            let due = Int(rate * elapsed)
            let t = clock.eventTime(wall: now)
            while generated < due { generated += advert(at: t, into: &result) }
            if let batchInterval {
                for n in pending.indices where t - pendingSince[n] >= batchInterval { publish(node: n, at: t, into: &result) }
            }
            usleep(1_000)
        }
        dropPending()
        result.seconds = wallSeconds() - start
        return result
    }

    private func dropPending() {
        for i in pending.indices { pending[i].removeAll(keepingCapacity: true); pendingCount[i] = 0; pendingSince[i] = .infinity }
    }

    /// Publishes exactly `readings` readings (rounded up to whole batches), as fast as it
    /// can: a fixed input for instruction counts.
    func run(readings: Int) -> LoadRun {
        var result = LoadRun(seconds: 0, readings: 0, batches: 0, refused: 0)
        let start = wallSeconds()
        while result.readings + result.refused * Self.batchMax < readings {
            _ = advert(at: wallSeconds(), into: &result)
        }
        dropPending()
        result.seconds = wallSeconds() - start
        return result
    }

    /// The next device in turn adverts once at event time `t`; returns the readings made.
    private func advert(at t: Double, into result: inout LoadRun) -> Int {
        let d = nextDevice
        nextDevice = nextDevice + 1 == devices.count ? 0 : nextDevice + 1
        devices[d].walk(to: t, site: site)
        let x = devices[d].x, y = devices[d].y
        site.nodesAround(x: x, y: y, into: &around)
        if t != suffixTime { makeSuffix(t: t); suffixTime = t }
        for n in around {
            let p = site.nodePoint(n)
            let dx = x - p.x, dy = y - p.y, dz = site.nodeHeight - 1.2
            let distance = max((dx * dx + dy * dy + dz * dz).squareRoot(), 0.3)
            let rssi = -59 - 27 * log10(distance) + random.uniform(-4, 4)
            if pendingCount[n] == 0 { pendingSince[n] = t } else { pending[n].append(UInt8(ascii: ",")) }
            pending[n].append(contentsOf: prefixes[d])
            Self.appendRSSI(Int(min(max(rssi, -105), -30)), to: &pending[n])
            pending[n].append(contentsOf: suffix)
            pendingCount[n] += 1
            if pendingCount[n] == Self.batchMax { publish(node: n, at: t, into: &result) }
        }
        return around.count
    }

    /// Publishes node `n`'s waiting readings as a batch: `Batch.encode`'s envelope around them.
    private func publish(node n: Int, at t: Double, into result: inout LoadRun) {
        let count = pendingCount[n]
        pendingSince[n] = .infinity
        seq[n] += 1
        writer.reset()
        Batch(node: nodeNames[n], seq: seq[n], t: t, readings: []).encode(into: &writer)
        // `{"v":1,…,"readings":[]}`: the readings go between the brackets.
        batchBytes.removeAll(keepingCapacity: true)
        batchBytes.append(contentsOf: writer.bytes.dropLast(2))
        batchBytes.append(contentsOf: pending[n])
        batchBytes.append(UInt8(ascii: "]"))
        batchBytes.append(UInt8(ascii: "}"))
        pending[n].removeAll(keepingCapacity: true)
        pendingCount[n] = 0
        do {
            try client.publish(topicNames[n], batchBytes, qos: .atMostOnce)
            result.readings += count
            result.batches += 1
            published.add(count, ordering: .relaxed)
        } catch {
            result.refused += 1
        }
    }
}

/// A tag carried through the building at walking pace, turning back at the outer walls, or
/// (most tags in a hospital or warehouse: equipment) lying still.
struct WalkingDevice {
    let id: String
    let mac: String
    var x: Double, y: Double
    var vx: Double, vy: Double
    var lastMove = -Double.infinity

    init(index: Int, site: BenchSite, walks: Bool, random: inout SplitMix) {
        id = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-\(index / 65_536 + 1)-\(index % 65_536)"
        let b = (0..<4).map { String(UInt8(truncatingIfNeeded: index >> (8 * (3 - $0))), radix: 16) }
        mac = "c2:3a:" + b.map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: ":")
        x = random.uniform(0.5, site.width - 0.5)
        y = random.uniform(0.5, site.depth - 0.5)
        let heading = random.uniform(0, 2 * .pi), speed = walks ? random.uniform(0.3, 1.2) : 0
        vx = cos(heading) * speed
        vy = sin(heading) * speed
    }

    mutating func walk(to t: Double, site: BenchSite) {
        defer { lastMove = t }
        guard lastMove.isFinite, t > lastMove else { return }
        let dt = min(t - lastMove, 10)
        x += vx * dt
        y += vy * dt
        if x < 0.5 || x > site.width - 0.5 { vx = -vx; x = min(max(x, 0.5), site.width - 0.5) }
        if y < 0.5 || y > site.depth - 0.5 { vy = -vy; y = min(max(y, 0.5), site.depth - 0.5) }
    }
}

/// A small, fast, seeded generator: the same load every run.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}

/// Unix seconds from the wall clock.
func wallSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
