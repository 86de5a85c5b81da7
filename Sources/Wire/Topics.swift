/// The MQTT topics of docs/protocol.md#mqtt-topics-and-payloads, built from a prefix (`whereabouts` by default).
///
/// Ids and names are escaped when they become a topic level, so a device id can never
/// inject a `/`, `+` or `#` into a topic: those bytes, `%` itself and control bytes are
/// written as `%XX`. Everything else (including `:` in `iBeacon:…` ids) stays as it is, so
/// topics keep ESPresense's spelling.
public struct Topics: Sendable, Equatable {
    public let prefix: String
    public init(prefix: String = "whereabouts") { self.prefix = prefix }

    public func nodeReadings(_ node: String) -> String { "\(prefix)/nodes/\(Topics.escape(node))/readings" }
    /// Partition `k`'s readings of `node` (docs/protocol.md, Partitions and shards); nil: the plain topic.
    public func nodeReadings(_ node: String, partition k: Int?) -> String {
        k.map { nodeReadings(node) + "/\($0)" } ?? nodeReadings(node)
    }
    public func nodeStatus(_ node: String) -> String { "\(prefix)/nodes/\(Topics.escape(node))/status" }
    public func nodeTelemetry(_ node: String) -> String { "\(prefix)/nodes/\(Topics.escape(node))/telemetry" }
    public func deviceRoom(_ id: String) -> String { "\(prefix)/devices/\(Topics.escape(id))/room" }
    public func deviceState(_ id: String) -> String { "\(prefix)/devices/\(Topics.escape(id))/state" }
    public func zoneOccupancy(_ zone: String) -> String { "\(prefix)/zones/\(Topics.escape(zone))/occupancy" }
    public func zoneEvents(_ zone: String) -> String { "\(prefix)/zones/\(Topics.escape(zone))/events" }
    public var aggregatorStatus: String { "\(prefix)/aggregator/status" }

    /// Subscriptions of the aggregator.
    public var allNodeReadings: String { "\(prefix)/nodes/+/readings" }
    public var allNodeStatus: String { "\(prefix)/nodes/+/status" }
    public var allNodeTelemetry: String { "\(prefix)/nodes/+/telemetry" }
    /// Every node's readings of partition `k`, or of every partition (`nil`).
    public func allNodeReadings(partition k: Int?) -> String { "\(prefix)/nodes/+/readings/" + (k.map(String.init) ?? "+") }

    /// A shard's own status (`online` / `offline`, its last will), beside the site's `aggregatorStatus`.
    public func shardStatus(_ index: Int) -> String { "\(prefix)/shards/\(index)/status" }
    public var allShardStatus: String { "\(prefix)/shards/+/status" }
    /// The topics of shard `index`'s own share of the site (its occupancy counts), under `<p>/shards/<index>`.
    public func shard(_ index: Int) -> Topics { Topics(prefix: "\(prefix)/shards/\(index)") }
    /// Every shard's occupancy of every zone.
    public var allShardOccupancy: String { "\(prefix)/shards/+/zones/+/occupancy" }

    /// `(shard, zone)` of `<prefix>/shards/<shard>/zones/<zone>/occupancy`, the zone unescaped; nil for any other topic.
    public func parseShardOccupancy(_ topic: String) -> (shard: Int, zone: String)? {
        let head = prefix + "/shards/", tail = "/occupancy"
        guard topic.hasPrefix(head), topic.hasSuffix(tail) else { return nil }
        let levels = topic.utf8.dropFirst(head.utf8.count).dropLast(tail.utf8.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard levels.count == 3, levels[1].elementsEqual("zones".utf8), let shard = Self.decimal(levels[0]),
              let zone = Topics.unescape(String(decoding: levels[2], as: UTF8.self)), !zone.isEmpty
        else { return nil }
        return (shard, zone)
    }

    /// The shard of `<prefix>/shards/<shard>/status`; nil for any other topic.
    public func parseShardStatus(_ topic: String) -> Int? {
        let head = prefix + "/shards/", tail = "/status"
        guard topic.hasPrefix(head), topic.hasSuffix(tail), topic.utf8.count > head.utf8.count + tail.utf8.count else { return nil }
        return Self.decimal(topic.utf8.dropFirst(head.utf8.count).dropLast(tail.utf8.count))
    }

    /// Discovery topics by object id (`discoveryObjectIDs`, not `slug`, so that two ids never share one).
    public static func homeAssistantTracker(objectID: String) -> String {
        "homeassistant/device_tracker/whereabouts_\(objectID)/config"
    }
    public static func homeAssistantOccupancy(objectID: String) -> String {
        "homeassistant/sensor/whereabouts_\(objectID)_occupancy/config"
    }
    /// A named device's room sensor (state: the room's name, or `Away`).
    public static func homeAssistantRoom(objectID: String) -> String {
        "homeassistant/sensor/whereabouts_\(objectID)_room/config"
    }
    /// A room's or zone's `occupied` binary sensor.
    public static func homeAssistantOccupied(objectID: String) -> String {
        "homeassistant/binary_sensor/whereabouts_\(objectID)_occupied/config"
    }

    /// Each id's Home Assistant object id: its `slug`, unless another of `ids` has the same slug
    /// (`front-door` and `front_door`, `Hall` and `hall`, any two ids in Cyrillic or CJK), where
    /// the one retained config would replace the other. Then an id that is its own slug keeps
    /// it, and every other gets `_` and eight hex digits of a hash of the id (FNV-1a, the same
    /// on every run and machine). It depends on the set of ids, not their order, so an entity
    /// keeps its id when the site file is reordered, and changes only if a colliding id is added.
    public static func discoveryObjectIDs(_ ids: [String]) -> [String: String] {
        var bySlug: [String: Set<String>] = [:]
        for id in ids { bySlug[slug(id), default: []].insert(id) }
        var out: [String: String] = [:]
        for (slug, sharing) in bySlug {
            for id in sharing {
                out[id] = sharing.count == 1 || id == slug ? slug : slug + "_" + hex8(fnv1a32(id))
            }
        }
        return out
    }

    /// What a node topic is about: `(node, "readings" | "status" | "telemetry")`, or nil when
    /// the topic is not `<prefix>/nodes/<node>/<leaf>`.
    public func parseNodeTopic(_ topic: String) -> (node: String, leaf: String)? {
        // Bytes, not characters: a node name starting with a combining mark would join the
        // '/' before it into one character, and `hasPrefix` would then miss the prefix.
        // The bytes in place, not `String.UTF8View` slices: this runs for every message on
        // the network thread, and the views' generic walks cost about 4,000 instructions a
        // call (about 1,050 now).
        var topic = topic, prefix = prefix
        return topic.withUTF8 { topic in prefix.withUTF8 { prefix in Self.parseNodeTopic(topic, prefix: prefix) } }
    }

    /// The node and partition of a readings topic: `<prefix>/nodes/<node>/readings` (partition
    /// nil) or `<prefix>/nodes/<node>/readings/<k>` (`k` decimal, no leading zero); nil otherwise.
    public func parseReadingsTopic(_ topic: String) -> (node: String, partition: Int?)? {
        if let (node, leaf) = parseNodeTopic(topic) { return leaf == "readings" ? (node, nil) : nil }
        // `…/readings/<k>`: the node topic of the part before the last level.
        guard let slash = topic.utf8.lastIndex(of: UInt8(ascii: "/")),
              let k = Self.decimal(topic.utf8[topic.utf8.index(after: slash)...]),
              let (node, leaf) = parseNodeTopic(String(topic[..<slash])), leaf == "readings"
        else { return nil }
        return (node, k)
    }

    /// A topic level that is a decimal number without a leading zero (or `0`), up to 9 digits.
    static func decimal<C: Collection>(_ level: C) -> Int? where C.Element == UInt8 {
        guard !level.isEmpty, level.count <= 9, level.count == 1 || level.first != UInt8(ascii: "0") else { return nil }
        var n = 0
        for b in level {
            guard (0x30...0x39).contains(b) else { return nil }
            n = n * 10 + Int(b - 0x30)
        }
        return n
    }

    private static func parseNodeTopic(_ topic: UnsafeBufferPointer<UInt8>, prefix: UnsafeBufferPointer<UInt8>) -> (node: String, leaf: String)? {
        let nodes: StaticString = "/nodes/"
        let head = prefix.count + nodes.utf8CodeUnitCount
        guard topic.count >= head, topic[..<prefix.count].elementsEqual(prefix),
              topic[prefix.count..<head].elementsEqual(UnsafeBufferPointer(start: nodes.utf8Start, count: nodes.utf8CodeUnitCount)),
              let slash = topic[head...].firstIndex(of: UInt8(ascii: "/"))
        else { return nil }
        let level = topic[head..<slash], leaf = topic[(slash + 1)...]
        guard !leaf.contains(UInt8(ascii: "/")),
              let node = level.contains(UInt8(ascii: "%")) ? unescape(String(decoding: level, as: UTF8.self)) : String(decoding: level, as: UTF8.self),
              !node.isEmpty
        else { return nil }
        return (node, String(decoding: leaf, as: UTF8.self))
    }

    public static func escape(_ level: String) -> String {
        guard level.utf8.contains(where: needsEscape) else { return level }
        var out: [UInt8] = []
        for b in level.utf8 {
            if needsEscape(b) {
                out.append(UInt8(ascii: "%")); out.append(upperHex(b >> 4)); out.append(upperHex(b & 0x0F))
            } else { out.append(b) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The inverse of `escape`; nil for a malformed escape.
    public static func unescape<S: StringProtocol>(_ level: S) -> String? {
        guard level.utf8.contains(UInt8(ascii: "%")) else { return String(level) }
        var out: [UInt8] = []
        var it = Array(level.utf8)[...]
        while let b = it.popFirst() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let h = it.popFirst().flatMap(nibble), let l = it.popFirst().flatMap(nibble) else { return nil }
            out.append(h << 4 | l)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A Home Assistant object id: lower-case letters, digits and `_`.
    public static func slug(_ s: String) -> String {
        var out = ""
        var lastUnderscore = false
        for ch in s.lowercased().unicodeScalars {
            if ch.properties.isASCIIHexDigit || ("a"..."z").contains(ch) || ("0"..."9").contains(ch) {
                out.unicodeScalars.append(ch); lastUnderscore = false
            } else if !lastUnderscore {
                out += "_"; lastUnderscore = true
            }
        }
        return out
    }
}

private func fnv1a32(_ s: String) -> UInt32 {
    var h: UInt32 = 0x811C_9DC5
    for b in s.utf8 { h = (h ^ UInt32(b)) &* 0x0100_0193 }
    return h
}

private func hex8(_ v: UInt32) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: (0..<8).reversed().map { digits[Int(v >> (UInt32($0) * 4) & 0xF)] }, as: UTF8.self)
}

private func needsEscape(_ b: UInt8) -> Bool {
    b == UInt8(ascii: "/") || b == UInt8(ascii: "+") || b == UInt8(ascii: "#") || b == UInt8(ascii: "%") || b < 0x20 || b == 0x7F
}

private func upperHex(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 + n : 0x41 + n - 10 }

private func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case 0x30...0x39: c - 0x30
    case 0x41...0x46: c - 0x41 + 10
    case 0x61...0x66: c - 0x61 + 10
    default: nil
    }
}
