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
