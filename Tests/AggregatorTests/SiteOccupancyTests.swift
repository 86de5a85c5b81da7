import Testing
import MQTT
import Wire
@testable import Aggregator

/// Shard 0's sum of the shards' occupancy shares (docs/protocol.md, Partitions and shards).
@Suite struct SiteOccupancyTests {
    func apply(_ o: inout SiteOccupancy, shard: Int, zone: String, _ json: String) -> Bool {
        Array(json.utf8).withUnsafeBytes { o.apply(shard: shard, zone: zone, payload: $0) }
    }

    func payload(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

    @Test func sharesAreSummedInShardOrder() {
        var o = SiteOccupancy(shards: 2, zones: ["kitchen", "hall"])
        #expect(apply(&o, shard: 1, zone: "kitchen", #"{"count":1,"devices":["b"],"t":20.5}"#))
        #expect(apply(&o, shard: 0, zone: "kitchen", #"{"count":2,"devices":["a","c"],"t":10}"#))
        let messages = o.take(topics: Topics())
        #expect(messages.map(\.topic) == ["whereabouts/zones/kitchen/occupancy"])
        #expect(messages.map(payload) == [#"{"count":3,"devices":["a","c","b"],"t":20.500}"#])
        #expect(messages.allSatisfy { $0.retain && $0.qos == .atLeastOnce })
        // The same sum again (a share republished after a reconnect) is not sent twice.
        #expect(apply(&o, shard: 1, zone: "kitchen", #"{"count":1,"devices":["b"],"t":30}"#))
        #expect(o.take(topics: Topics()).isEmpty)
        // A shard emptying its share changes the sum.
        #expect(apply(&o, shard: 0, zone: "kitchen", #"{"count":0,"devices":[],"t":31}"#))
        #expect(o.take(topics: Topics()).map(payload) == [#"{"count":1,"devices":["b"],"t":31.000}"#])
    }

    @Test func foreignSharesZonesAndPayloadsAreIgnored() {
        var o = SiteOccupancy(shards: 2, zones: ["kitchen"])
        #expect(!apply(&o, shard: 2, zone: "kitchen", #"{"count":1,"devices":["x"],"t":1}"#))
        #expect(!apply(&o, shard: 0, zone: "nowhere", #"{"count":1,"devices":["x"],"t":1}"#))
        #expect(!apply(&o, shard: 0, zone: "kitchen", "not json"))
        #expect(!apply(&o, shard: 0, zone: "kitchen", #"{"count":-1,"devices":[],"t":1}"#))
        #expect(o.take(topics: Topics()).isEmpty)
        #expect(o.count(of: "kitchen") == 0)
    }
}

/// The rooms' expected counts (room posterior) are summed across shards like the counts.
@Suite struct SiteOccupancyExpectedTests {
    @Test func expectedCountsAreSummedWhenAnyShareHasOne() {
        var o = SiteOccupancy(shards: 2, zones: ["kitchen", "front-door"])
        let share = { (o: inout SiteOccupancy, shard: Int, zone: String, json: String) in
            _ = Array(json.utf8).withUnsafeBytes { o.apply(shard: shard, zone: zone, payload: $0) }
        }
        share(&o, 0, "kitchen", #"{"count":1,"devices":["a"],"expected":0.8,"t":10}"#)
        share(&o, 1, "kitchen", #"{"count":0,"devices":[],"expected":0.35,"t":11}"#)
        share(&o, 0, "front-door", #"{"count":1,"devices":["a"],"t":10}"#)
        let payloads = o.take(topics: Topics()).map { ($0.topic, String(decoding: $0.payload, as: UTF8.self)) }
        #expect(payloads.first { $0.0.hasSuffix("kitchen/occupancy") }?.1 == #"{"count":1,"devices":["a"],"expected":1.15,"t":11.000}"#)
        #expect(payloads.first { $0.0.hasSuffix("front-door/occupancy") }?.1 == #"{"count":1,"devices":["a"],"t":10.000}"#)
    }
}
