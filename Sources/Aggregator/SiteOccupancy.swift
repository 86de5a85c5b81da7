import MQTT
import Wire

/// The site's zone occupancy, summed over the shards' shares (docs/protocol.md, Partitions and
/// shards). Each shard publishes its own devices in each zone, retained, on
/// `<p>/shards/<I>/zones/<zone>/occupancy`; shard 0 reads every share and publishes the sum on
/// the zone's `<p>/zones/<zone>/occupancy`, the payload one aggregator would: `count` the sum,
/// `devices` each shard's occupants in shard order (each in its order of entry), `t` the latest.
///
/// Pure: shares in, site messages out. Not on a hot path: it runs when a zone's occupants change.
struct SiteOccupancy {
    /// One shard's occupants of one zone, as it published them.
    struct Share: Equatable {
        var count: Int
        var devices: [String]
        var t: Double
        /// The shard's expected count (rooms only, from the room posterior).
        var expected: Double?
    }

    let shards: Int
    /// The site's rooms and zones: a share of any other zone (anyone may publish one) is ignored,
    /// so what is kept stays as big as the site.
    let zones: Set<String>
    private var shares: [String: [Int: Share]] = [:]
    /// What was published per zone (count and devices), so that an unchanged sum is not sent again.
    private var published: [String: (count: Int, devices: [String])] = [:]
    /// Zones whose shares changed since `take`.
    private(set) var changed: Set<String> = []
    private var writer = JSONWriter(capacity: 1024)

    init(shards: Int, zones: some Sequence<String>) {
        self.shards = shards
        self.zones = Set(zones)
    }

    /// A share read from the broker; `false` when the payload is no occupancy, the zone not
    /// the site's, or the shard not one of this site's (a share left retained by an earlier
    /// layout with more shards).
    mutating func apply(shard: Int, zone: String, payload: UnsafeRawBufferPointer) -> Bool {
        guard shard < shards, zones.contains(zone), let share = Self.share(payload) else { return false }
        if shares[zone, default: [:]].updateValue(share, forKey: shard) != share { changed.insert(zone) }
        return true
    }

    /// The site occupancy messages of the zones whose sum changed, and forgets the changes.
    mutating func take(topics: Topics) -> [MQTTMessage] {
        var out: [MQTTMessage] = []
        for zone in changed.sorted() {
            let parts = (0..<shards).compactMap { shares[zone]?[$0] }
            let count = parts.reduce(0) { $0 + $1.count }, devices = parts.flatMap(\.devices)
            if let last = published[zone], last.count == count, last.devices == devices { continue }
            published[zone] = (count, devices)
            writer.reset()
            writer.objectStart()
            writer.field("count", count)
            writer.key("devices"); writer.arrayStart(); for id in devices { writer.value(id) }; writer.arrayEnd()
            // As one aggregator's payload: `expected` after `devices`, the shares' sum, when any has one.
            let expected = parts.compactMap(\.expected)
            if !expected.isEmpty { writer.key("expected"); writer.value(expected.reduce(0, +), decimals: 2) }
            writer.key("t"); writer.time(parts.map(\.t).max() ?? 0)
            writer.objectEnd()
            out.append(MQTTMessage(topic: topics.zoneOccupancy(zone), payload: writer.bytes, qos: .atLeastOnce, retain: true))
        }
        changed.removeAll()
        return out
    }

    /// The sum as it stands (tests).
    func count(of zone: String) -> Int { shares[zone]?.values.reduce(0) { $0 + $1.count } ?? 0 }

    private static func share(_ payload: UnsafeRawBufferPointer) -> Share? {
        var scanner = JSONScanner(payload)
        var count: Int?, devices: [String]?, t: Double?, expected: Double?
        do throws(JSONError) {
            try scanner.object { (s: inout JSONScanner, key) throws(JSONError) in
                if keyEquals(key, "count") { count = Int(try s.integer()) }
                else if keyEquals(key, "t") { t = try s.double() }
                else if keyEquals(key, "expected") { expected = try s.double() }
                else if keyEquals(key, "devices") {
                    var ids: [String] = []
                    try s.array { (s: inout JSONScanner) throws(JSONError) in ids.append(try s.string()) }
                    devices = ids
                } else { try s.skipValue() }
            }
        } catch { return nil }
        guard let count, let devices, let t, count >= 0 else { return nil }
        return Share(count: count, devices: devices, t: t, expected: expected.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil })
    }
}
