import Testing
import Wire
@testable import Aggregator

/// A shard keeps only its own devices' readings (docs/protocol.md, Partitions and shards),
/// whichever way they come in.
@Suite struct ShardFilterTests {
    // With 4 partitions: partition 2 (shard 0 of 2) and partition 1 (shard 1 of 2).
    static let ours = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
    static let theirs = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-3-1"

    func core(shard: String?) throws -> (AggregatorCore, AggregatorMetrics) {
        var site = twoRoomSite()
        site.partitions = 4
        let metrics = AggregatorMetrics()
        let core = AggregatorCore(site: site, topics: Topics(), locator: .default, dialects: [.espresense], clockMode: .node,
                                  metrics: metrics, shard: try shard.map { try Shard(parsing: $0) } ?? .whole, log: { _ in })
        return (core, metrics)
    }

    func send(_ core: AggregatorCore, topic: String, seq: UInt64, ids: [String], t: Double = 1_000) {
        var w = JSONWriter(capacity: 4096)
        Batch(node: "a", seq: seq, t: t, readings: ids.map { Reading(id: $0, rssi: -60, t: t - 0.01, kind: .ibeacon) }).encode(into: &w)
        var effects: [Effect] = []
        w.bytes.withUnsafeBytes { core.handle(topic: topic, payload: $0, arrival: t, into: &effects) }
    }

    @Test func thePartitionsAreTheFixtureSays() throws {
        let p = try #require(Partitioning(count: 4))
        #expect(p.partition(of: Self.ours) == 2 && p.partition(of: Self.theirs) == 1)
    }

    @Test func theSubscriptionsAreTheShardsPartitions() throws {
        let (shard, _) = try core(shard: "1/2"), (whole, _) = try core(shard: nil)
        #expect(shard.readingsSubscriptions == ["whereabouts/nodes/+/readings", "whereabouts/nodes/+/readings/1", "whereabouts/nodes/+/readings/3"])
        #expect(whole.readingsSubscriptions == ["whereabouts/nodes/+/readings", "whereabouts/nodes/+/readings/+"])
        #expect(shard.retainedOccupancy == "whereabouts/shards/1/zones/+/occupancy")
        #expect(whole.retainedOccupancy == "whereabouts/zones/+/occupancy")
    }

    @Test func thePlainTopicIsFilteredByTheHash() throws {
        let (core, metrics) = try core(shard: "0/2")
        send(core, topic: Topics().nodeReadings("a"), seq: 1, ids: [Self.ours, Self.theirs, Self.theirs])
        #expect(metrics.readings("a").current == 1)
        #expect(metrics.shardSkipped.current == 2)
        #expect(metrics.rejected(.partition).current == 0)
    }

    @Test func aReadingOnAnotherShardsPartitionIsRefused() throws {
        var lines: [String] = []
        var site = twoRoomSite()
        site.partitions = 4
        let metrics = AggregatorMetrics()
        let core = AggregatorCore(site: site, topics: Topics(), locator: .default, dialects: [], clockMode: .node,
                                  metrics: metrics, shard: try Shard(parsing: "0/2"), log: { lines.append($0) })
        // An edge with another `partitions` put `theirs` on partition 2, which this shard owns.
        send(core, topic: Topics().nodeReadings("a", partition: 2), seq: 1, ids: [Self.ours, Self.theirs])
        send(core, topic: Topics().nodeReadings("a", partition: 2), seq: 2, ids: [Self.theirs], t: 1_000.25)
        #expect(metrics.readings("a").current == 1)
        #expect(metrics.rejected(.partition).current == 2)
        #expect(lines.filter { $0.contains("partition") }.count == 1, "\(lines)")
    }

    @Test func aPartitionTheSiteDoesNotHaveIsRefusedWithoutAStream() throws {
        let (core, metrics) = try core(shard: nil)
        for (i, k) in [4, 999_999_999].enumerated() {
            send(core, topic: Topics().nodeReadings("a", partition: k), seq: UInt64(i + 1), ids: [Self.ours], t: 1_000 + Double(i) * 0.25)
        }
        #expect(metrics.readings("a").current == 0)
        #expect(metrics.rejected(.partition).current == 2)
        #expect(core.ingest.stream(node: "a", partition: 4) == nil)
        #expect(core.ingest.stream(node: "a", partition: 999_999_999) == nil)
    }

    @Test func eachPartitionIsAStreamOfItsOwn() throws {
        let (core, metrics) = try core(shard: nil)
        // seq 1, 2 on partition 2 and seq 1 on partition 1: no gap, no replay, no restart.
        send(core, topic: Topics().nodeReadings("a", partition: 2), seq: 1, ids: [Self.ours])
        send(core, topic: Topics().nodeReadings("a", partition: 1), seq: 1, ids: [Self.theirs], t: 1_000.1)
        send(core, topic: Topics().nodeReadings("a", partition: 2), seq: 2, ids: [Self.ours], t: 1_000.25)
        send(core, topic: Topics().nodeReadings("a", partition: 1), seq: 3, ids: [Self.theirs], t: 1_000.35)
        #expect(metrics.readings("a").current == 4)
        #expect(core.ingest.stream(node: "a", partition: 1)?.missedBatches == 1)
        #expect(core.ingest.stream(node: "a", partition: 2)?.missedBatches == 0)
        #expect(core.ingest.summary(of: "a")?.batches == 4)
        #expect(metrics.missedBatches("a").current == 1)
        #expect(core.ingest.nodes["a"] == nil)
    }

    @Test func aDialectReadingIsKeptByItsOwnerOnly() throws {
        let (zero, m0) = try core(shard: "0/2"), (one, m1) = try core(shard: "1/2")
        for c in [zero, one] {
            var effects: [Effect] = []
            for id in [Self.ours, Self.theirs] {
                Array(#"{"rssi":-60}"#.utf8).withUnsafeBytes { c.handle(topic: "espresense/devices/\(id)/a", payload: $0, arrival: 1_000, into: &effects) }
            }
        }
        #expect(m0.readings("a").current == 1 && m0.shardSkipped.current == 1)
        #expect(m1.readings("a").current == 1 && m1.shardSkipped.current == 1)
    }
}
