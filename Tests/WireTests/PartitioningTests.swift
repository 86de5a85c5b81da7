import Testing
import Wire

/// The partition hash and shard arithmetic of docs/protocol.md, Partitions and shards: every
/// edge and shard must agree on them from the id alone.
@Suite struct PartitioningTests {
    /// The published 64-bit FNV-1a test vectors (Fowler, Noll and Vo's reference table).
    @Test(arguments: [("", 0xCBF2_9CE4_8422_2325 as UInt64), ("a", 0xAF63_DC4C_8601_EC8C), ("foobar", 0x8594_4171_F739_67E8)])
    func knownVectors(text: String, hash: UInt64) {
        #expect(Partitioning.fnv1a64(text) == hash)
    }

    @Test func devicePartitions() throws {
        let p16 = try #require(Partitioning(count: 16))
        #expect(p16.partition(of: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42") == 2)
        #expect(p16.partition(of: "mac:c2:3a:6b:01:02:03") == 3)
        #expect(Partitioning.single.partition(of: "mac:c2:3a:6b:01:02:03") == 0)
        // The bytes form and the string form agree.
        let id = Array("altBeacon:0102-03-04".utf8)
        #expect(id.withUnsafeBytes { p16.partition(ofID: $0) } == p16.partition(of: "altBeacon:0102-03-04"))
    }

    @Test(arguments: [0, -1, Partitioning.maxCount + 1])
    func badPartitionCounts(count: Int) { #expect(Partitioning(count: count) == nil) }

    @Test func shardOwnsEveryNthPartition() throws {
        let shard = try Shard(parsing: "1/4")
        let p16 = try #require(Partitioning(count: 16))
        #expect(shard.partitions(of: p16) == [1, 5, 9, 13])
        // Every partition has exactly one owner among the shards.
        let shards = try (0..<4).map { try Shard(parsing: "\($0)/4") }
        for k in 0..<16 { #expect(shards.filter { $0.owns(partition: k) }.count == 1) }
        #expect(Shard.whole.partitions(of: p16) == Array(0..<16))
        try shard.check(p16)
        #expect(throws: ShardError.self) { try Shard(parsing: "0/32").check(p16) }
    }

    /// A device is owned through its partition: `(h mod P) mod N`.
    @Test func shardOwnsDevicesThroughTheirPartition() throws {
        let p16 = try #require(Partitioning(count: 16))
        let id = Array("iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42".utf8)  // partition 2
        let (a, b, c) = (try Shard(parsing: "0/2"), try Shard(parsing: "1/2"), try Shard(parsing: "2/4"))
        id.withUnsafeBytes { bytes in
            #expect(a.owns(id: bytes, p16))
            #expect(!b.owns(id: bytes, p16))
            #expect(c.owns(id: bytes, p16))
            #expect(Shard.whole.owns(id: bytes, p16))
        }
    }

    @Test(arguments: ["", "1", "2/2", "-1/2", "0/0", "a/2", "0/2/3", "0/", "/2", "+1/2", "0/ 2"])
    func badShards(text: String) {
        #expect(throws: ShardError.self) { try Shard(parsing: text) }
    }

    @Test func readingsTopics() {
        let topics = Topics()
        #expect(topics.nodeReadings("hall", partition: 7) == "whereabouts/nodes/hall/readings/7")
        #expect(topics.nodeReadings("hall", partition: nil) == "whereabouts/nodes/hall/readings")
        #expect(topics.parseReadingsTopic("whereabouts/nodes/hall/readings/7").map { "\($0.node) \($0.partition ?? -1)" } == "hall 7")
        #expect(topics.parseReadingsTopic("whereabouts/nodes/hall/readings").map { "\($0.node) \($0.partition ?? -1)" } == "hall -1")
        #expect(topics.parseReadingsTopic("whereabouts/nodes/a%2Fb/readings/0")?.node == "a/b")
        for bad in ["whereabouts/nodes/hall/readings/07", "whereabouts/nodes/hall/readings/x", "whereabouts/nodes/hall/readings/",
                    "whereabouts/nodes/hall/status/1", "whereabouts/nodes/hall/readings/1/2", "whereabouts/nodes/hall/status"] {
            #expect(topics.parseReadingsTopic(bad) == nil, "\(bad)")
        }
        #expect(topics.parseShardOccupancy("whereabouts/shards/1/zones/kitchen/occupancy").map { "\($0.shard) \($0.zone)" } == "1 kitchen")
        #expect(topics.parseShardOccupancy("whereabouts/shards/x/zones/kitchen/occupancy") == nil)
        #expect(topics.parseShardStatus("whereabouts/shards/3/status") == 3)
        #expect(topics.parseShardStatus("whereabouts/shards//status") == nil)
    }
}
