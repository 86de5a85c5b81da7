import Foundation
import MQTT
import Testing
import Wire

/// The simulated house replayed, as partitioned batches, through one aggregator and through
/// two shards, each time on a fresh real broker: the same rooms, events and occupancy.
/// (docs/protocol.md, Partitions and shards.)
@Suite(.serialized) struct ShardedHouseTests {
    /// Five tags in the house (tools/sites/house.yaml); with 4 partitions and 2 shards, the
    /// keys and the dog's tag (partitions 2 and 0) are shard 0's, the three visitors' tags
    /// (partitions 1, 3, 1) shard 1's.
    static let scenario = """
        seed: 5
        duration: 6m
        start: 1764410000
        effects: { shadowing_sd: 3, rician_k: 4, body_loss: 3, floor_loss: 15 }
        devices:
          - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
            tx_power: -59
            interval_ms: 200
            path:
              - { at: [5, 6], floor: ground, dwell: 2m }
              - { at: [8, 2], dwell: 3m }
          - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-2-7"
            tx_power: -62
            interval_ms: 300
            path:
              - { at: [8, 3], floor: ground, dwell: 3m }
              - { at: [2, 2], dwell: 2m }
          - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-3-1"
            tx_power: -59
            interval_ms: 200
            path:
              - { at: [2, 2], floor: upstairs, dwell: 2m }
              - { at: [7.5, 1], dwell: 3m }
          - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-3-3"
            tx_power: -59
            interval_ms: 200
            path:
              - { at: [3, 2.5], floor: ground, dwell: 4m }
              - { at: [5, 7.5], dwell: 1m }
          - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-3-5"
            tx_power: -59
            interval_ms: 200
            path:
              - { at: [7.5, 1], floor: upstairs, dwell: 1m }
              - { at: [2, 6.5], dwell: 4m }
        """

    static let partitions = 4

    @Test(.timeLimit(.minutes(4)))
    func twoShardsGiveWhatOneAggregatorGives() async throws {
        let dir = try temporaryDirectory("sharded-house")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = try partitionedSite(in: dir)
        let recording = try simulatedBatches(site: site, in: dir)
        let one = try await run(site: site, shards: [nil], recording: recording, in: dir)
        let two = try await run(site: site, shards: ["0/2", "1/2"], recording: recording, in: dir)

        #expect(one.events.values.reduce(0) { $0 + $1.count } >= 10, "the house made \(one.events) events")
        // The same enters and exits, device by device and in order, at the same times within
        // a second: the engine solves a device when event time passes its due time, and event
        // time moves with every device's readings, of which a shard sees only its own; so a
        // solve may fall one batch (250 ms) earlier or later, and its confidence differ.
        #expect(two.events.mapValues { $0.map(\.what) } == one.events.mapValues { $0.map(\.what) }, "\(two.events) vs \(one.events)")
        for (device, events) in one.events {
            for (a, b) in zip(events, two.events[device] ?? []) { #expect(abs(a.t - b.t) < 1, "\(device) \(a.what): \(a.t) vs \(b.t)") }
        }
        #expect(two.rooms == one.rooms && one.rooms.count == 5, "\(two.rooms) vs \(one.rooms)")
        #expect(two.occupancy == one.occupancy, "\(two.occupancy) vs \(one.occupancy)")
        #expect(one.occupancy.values.reduce(0) { $0 + $1.count } == 5)
        // Each shard published its own share: both own some of the devices.
        for shard in 0..<2 {
            #expect(two.shares.contains { $0.key.hasPrefix("whereabouts/shards/\(shard)/") && !$0.value.isEmpty }, "\(two.shares)")
        }
        #expect(two.statuses["whereabouts/shards/0/status"] == "online" && two.statuses["whereabouts/shards/1/status"] == "online")
        #expect(two.siteStatusAfterKill == "offline" && two.shardStatusAfterKill == "offline")
    }

    /// A real edge with `partitions: 4` replaying the simulator's capture of one node: each
    /// device's readings on its partition's topic, each topic a stream of its own `seq`, none
    /// on the plain topic.
    @Test(.timeLimit(.minutes(2)))
    func edgePublishesEachDeviceOnItsPartition() async throws {
        let dir = try temporaryDirectory("edge-partitions")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = try partitionedSite(in: dir)
        _ = try simulatedBatches(site: site, in: dir)
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["whereabouts/nodes/living/readings", "whereabouts/nodes/living/readings/+"])
        try await collector.ready()
        let edge = try EdgeProcess(["--node", "living", "--broker", broker.url, "--replay", dir.appendingPathComponent("sim/living.btsnoop").path,
                                    "--speed", "0", "--partitions", String(Self.partitions), "--qos", "1"])
        #expect(await edge.exitStatus(timeout: 60) == 0, "\(edge.stderr)")
        let partitions = try #require(Partitioning(count: Self.partitions))
        var seqs: [String: [UInt64]] = [:], readings = 0
        for m in collector.messages where m.topic.hasPrefix("whereabouts/nodes/") {
            let (node, k) = try #require(Topics().parseReadingsTopic(m.topic))
            #expect(node == "living" && k != nil, "\(m.topic)")
            var bad = 0
            let batch = try Batch.decode(m.payload, badReadings: &bad)
            seqs[m.topic, default: []].append(batch.seq)
            for r in batch.readings { #expect(partitions.partition(of: r.id) == k, "\(r.id) on \(m.topic)") }
            readings += batch.readings.count
        }
        #expect(Set(seqs.keys) == Set((0..<4).map { "whereabouts/nodes/living/readings/\($0)" }))
        for (topic, s) in seqs { #expect(s == Array(1...UInt64(s.count)), "\(topic): \(s.prefix(10))…") }
        #expect(readings > 1000)
    }

    /// A bad `--shard` is a usage error (64) naming the flag; one the site's partitions cannot
    /// hold stops the start (1), naming the site key.
    @Test func badShardsAreRefusedClearly() throws {
        let dir = try temporaryDirectory("bad-shard")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = try partitionedSite(in: dir)
        let common = ["--site", site.path, "--db", "none", "--http", "none", "--broker", "mqtt://127.0.0.1:1"]
        for bad in ["2/2", "1", "a/b", "0/0"] {
            let run = try runTool("whereabouts-aggregator", common + ["--shard", bad])
            #expect(run.status == 64 && run.output.contains("--shard"), "\(bad): \(run.status) \(run.output)")
        }
        let tooMany = try runTool("whereabouts-aggregator", common + ["--shard", "0/8"])
        #expect(tooMany.status == 1 && tooMany.output.contains("partitions to be at least 8"), "\(tooMany.output)")
    }

    /// What a run left on the broker and published.
    struct Outcome {
        /// Each device's zone events in order: "enter kitchen" and its time.
        var events: [String: [(what: String, t: Double)]] = [:]
        /// Each device's last retained room.
        var rooms: [String: String] = [:]
        /// Each zone's last site occupancy: its devices as a set (a merge lists them by shard).
        var occupancy: [String: Set<String>] = [:]
        var shares: [String: Set<String>] = [:]
        var statuses: [String: String] = [:]
        var siteStatusAfterKill: String?
        var shardStatusAfterKill: String?
    }

    /// The house site with `partitions: 4`.
    func partitionedSite(in dir: URL) throws -> URL {
        let house = try String(contentsOf: packageRoot.appendingPathComponent("tools/sites/house.yaml"), encoding: .utf8)
        let site = dir.appendingPathComponent("house.yaml")
        try (house + "\npartitions: \(Self.partitions)\n").write(to: site, atomically: true, encoding: .utf8)
        return site
    }

    /// The simulator's batches (one per node per 250 ms), split as an edge with 4 partitions
    /// sends them: by each reading's partition, a `seq` per node and partition. The batch time
    /// is set when it is published, so every run reads the readings' own times unshifted.
    func simulatedBatches(site: URL, in dir: URL) throws -> [(topic: String, node: String, seq: UInt64, readings: [Reading])] {
        let scenario = dir.appendingPathComponent("scenario.yaml")
        try Self.scenario.write(to: scenario, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("sim")
        let sim = try runTool("whereabouts", ["simulate", "--site", site.path, "--scenario", scenario.path, "--out", out.path])
        #expect(sim.status == 0, "\(sim.output)")
        let lines = try String(contentsOf: out.appendingPathComponent("readings.jsonl"), encoding: .utf8).split(separator: "\n")
        let partitions = try #require(Partitioning(count: Self.partitions))
        var seq: [String: UInt64] = [:], out2: [(topic: String, node: String, seq: UInt64, readings: [Reading])] = []
        for line in lines {
            var bad = 0
            let batch = try Batch.decode(Array(line.utf8), badReadings: &bad)
            let byPartition = Dictionary(grouping: batch.readings) { partitions.partition(of: $0.id) }
            for k in byPartition.keys.sorted() {
                let topic = Topics().nodeReadings(batch.node, partition: k)
                seq[topic, default: 0] += 1
                out2.append((topic, batch.node, seq[topic]!, byPartition[k]!))
            }
        }
        return out2
    }

    func run(site: URL, shards: [String?], recording: [(topic: String, node: String, seq: UInt64, readings: [Reading])],
             in dir: URL) async throws -> Outcome {
        let broker = try Broker()
        let collector = try Collector(broker: broker, filters: ["whereabouts/zones/+/events", "whereabouts/zones/+/occupancy",
                                                                "whereabouts/devices/+/room", "whereabouts/aggregator/status",
                                                                "whereabouts/shards/#"])
        try await collector.ready()
        let aggregators = try shards.map { shard in
            try ShardProcess(site: site, broker: broker, shard: shard, log: dir.appendingPathComponent("agg-\((shard ?? "all").replacingOccurrences(of: "/", with: "-")).log"))
        }
        let status = "whereabouts/aggregator/status"
        let up = await collector.wait(timeout: 30) { $0.last { $0.topic == status }.map(text) == "online" }
        #expect(up, "\(aggregators.map(\.output))")
        // Past the warm-up's first 2 s (and shard 0's wait for the shares), so that no zone it
        // publishes is read back as what the broker held before the start.
        try await Task.sleep(for: .seconds(2.5))

        let publisher = try Collector(broker: broker, filters: [])
        try await publisher.ready()
        var w = JSONWriter()
        for (i, b) in recording.enumerated() {
            w.reset()
            Batch(node: b.node, seq: b.seq, t: Date().timeIntervalSince1970, readings: b.readings).encode(into: &w)
            _ = try publisher.client.publish(b.topic, w.bytes, qos: .atLeastOnce)
            if i % 100 == 99 { try await Task.sleep(for: .milliseconds(40)) }
        }
        // Done when nothing new has come for 3 s.
        var count = -1
        while collector.messages.count != count {
            count = collector.messages.count
            try await Task.sleep(for: .seconds(3))
        }

        var outcome = Outcome()
        let messages = collector.messages
        for m in messages where m.topic.hasSuffix("/events") {
            let e = (try? JSONSerialization.jsonObject(with: Data(m.payload))) as? [String: Any] ?? [:]
            outcome.events[e["device"] as? String ?? "", default: []].append(("\(e["type"] ?? "") \(e["zone"] ?? "")", e["t"] as? Double ?? 0))
        }
        for m in messages {
            if m.topic.hasPrefix("whereabouts/devices/") { outcome.rooms[m.topic] = text(m) }
            if m.topic.hasPrefix("whereabouts/zones/"), m.topic.hasSuffix("/occupancy") { outcome.occupancy[m.topic] = occupants(m) }
            if m.topic.hasPrefix("whereabouts/shards/"), m.topic.hasSuffix("/occupancy") { outcome.shares[m.topic] = occupants(m) }
            if m.topic.hasPrefix("whereabouts/shards/"), m.topic.hasSuffix("/status") { outcome.statuses[m.topic] = text(m) }
        }
        outcome.occupancy = outcome.occupancy.filter { !$0.value.isEmpty }
        if shards.count > 1 {
            // A shard killed: its will and the site's say so.
            kill(aggregators[1].process.processIdentifier, SIGKILL)
            let shardTopic = "whereabouts/shards/1/status"
            _ = await collector.wait(timeout: 30) { $0.last { $0.topic == shardTopic }.map(text) == "offline" && $0.last { $0.topic == status }.map(text) == "offline" }
            outcome.shardStatusAfterKill = collector.messages.last { $0.topic == shardTopic }.map(text)
            outcome.siteStatusAfterKill = collector.messages.last { $0.topic == status }.map(text)
        }
        for a in aggregators where a.process.isRunning { a.stop() }
        return outcome
    }
}

private final class ShardProcess: @unchecked Sendable {
    let process = Process()
    let log: URL
    init(site: URL, broker: Broker, shard: String?, log: URL) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = executable("whereabouts-aggregator")
        process.arguments = ["--site", site.path, "--broker", broker.url, "--db", "none", "--http", "none"] + (shard.map { ["--shard", $0] } ?? [])
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try runUnmasked(process)
    }
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}

private func text(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

private func occupants(_ m: MQTTMessage) -> Set<String> {
    let object = (try? JSONSerialization.jsonObject(with: Data(m.payload))) as? [String: Any]
    return Set(object?["devices"] as? [String] ?? [])
}

private func temporaryDirectory(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

private func runTool(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = executable(name)
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try runUnmasked(p)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}
