import Foundation
import MQTT
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The node's topics for a test node.
struct NodeTopics {
    let node: String
    var readings: String { "whereabouts/nodes/\(node)/readings" }
    var status: String { "whereabouts/nodes/\(node)/status" }
    var telemetry: String { "whereabouts/nodes/\(node)/telemetry" }
    var all: String { "whereabouts/nodes/\(node)/#" }
}

let capture = fixtures.appendingPathComponent("horizon74_btsnoop_hci.log").path

@Suite("whereabouts-edge replays against a real mosquitto")
struct EdgeReplayTests {
    @Test func fastReplayPublishesOneReadingPerGoldenReportWithAnIdentity() async throws {
        let expected = try goldenReadings()
        let broker = try Broker()
        let topics = NodeTopics(node: "kitchen")
        let collector = try Collector(broker: broker, filters: [topics.all])
        try await collector.ready()
        // A small batch_max so the run spans several batches and seq has something to count.
        let edge = try EdgeProcess(["--node", "kitchen", "--broker", broker.url, "--replay", capture,
                                    "--speed", "0", "--qos", "1", "--batch-max", "50"])
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
        let (batches, redelivered) = try deliveredBatches(collector.messages, topic: topics.readings)
        #expect(redelivered == 0)
        #expect(batches.map(\.seq) == Array(1...batches.count))
        #expect(batches.allSatisfy { $0.node == "kitchen" && $0.readings.count <= 50 })
        let readings = batches.flatMap(\.readings)
        #expect(readings.count == expected.count)
        #expect(sameReadings(readings, expected), "first difference: \(zip(readings, expected).first { !$0.matches($1) }.map { "\($0) vs \($1)" } ?? "count")")
        let last = try #require(telemetry(collector.messages, topic: topics.telemetry).last)
        #expect(last["published"] as? Int == expected.count)
        #expect(last["adverts"] as? Int == 412)
        #expect(last["dropped"] as? Int == 0)
        #expect(last["buffered"] as? Int == 0)
    }

    /// A broker that takes no packet over 3,000 bytes (MQTT 5 says so in its CONNACK): a
    /// batch of 200 readings is refused by libmosquitto before it is sent. The edge used to
    /// put it back and try the same batch again, forever, delivering nothing; it now cuts
    /// its batches down until they fit.
    @Test func batchesShrinkToTheBrokersPacketLimit() async throws {
        let expected = try goldenReadings()
        let (edge, collector, topics) = try await replay(maxPacketSize: 3000)
        let (batches, redelivered) = try deliveredBatches(collector.messages, topic: topics.readings)
        #expect(redelivered == 0)
        #expect(batches.map(\.seq) == Array(1...max(batches.count, 1)))
        let readings = batches.flatMap(\.readings)
        #expect(readings.count == expected.count, "\(edge.stderr)")
        #expect(sameReadings(readings, expected))
        #expect(edge.stderr.components(separatedBy: "\n").filter { $0.contains("maximum packet size") }.count <= 1,
                "\(edge.stderr)")
    }

    /// A broker whose packet limit no single reading fits: each reading is dropped and counted
    /// once the halving reaches it alone, the limit then goes back to `batch_max` (a reading too
    /// large on its own may be all that made a batch too large), and each of the two messages
    /// is said once for the connection, not once a reading. The edge still finishes cleanly.
    @Test func readingsLargerThanTheBrokersLimitAreDroppedCountedAndSaidOnce() async throws {
        let expected = try goldenReadings()
        let (edge, collector, topics) = try await replay(maxPacketSize: 120)
        #expect(collector.messages(on: topics.readings).isEmpty)
        let lines = edge.stderr.components(separatedBy: "\n")
        #expect(lines.filter { $0.contains("larger on its own") }.count == 1, "\(edge.stderr)")
        #expect(lines.filter { $0.contains("takes no batch") }.count == 1, "\(edge.stderr)")
        #expect(expected.count > 100)
    }

    /// The golden capture replayed at full speed (MQTT 5, QoS 1) to a broker that takes no
    /// packet over `maxPacketSize` bytes, until the edge has finished and said `offline`.
    private func replay(maxPacketSize: Int) async throws -> (EdgeProcess, Collector, NodeTopics) {
        let broker = try Broker(settings: ["max_packet_size \(maxPacketSize)"])
        let topics = NodeTopics(node: "attic")
        let collector = try Collector(broker: broker, filters: [topics.all])
        try await collector.ready()
        let edge = try EdgeProcess(["--node", "attic", "--broker", broker.url, "--protocol", "5", "--replay", capture,
                                    "--speed", "0", "--qos", "1", "--flush-timeout", "20s"])
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
        return (edge, collector, topics)
    }

    @Test func brokerOutageMidReplayLosesNothingAndDuplicatesNothing() async throws {
        let expected = try goldenReadings()
        let broker = try Broker(persistent: true)
        let topics = NodeTopics(node: "hall")
        // A persistent session: the broker keeps what arrives while the collector reconnects.
        let collector = try Collector(broker: broker, filters: [topics.all], session: "outage-collector")
        try await collector.ready()
        let trimmed = try goldenCapture()
        defer { try? FileManager.default.removeItem(at: trimmed) }
        let edge = try EdgeProcess(["--node", "hall", "--broker", broker.url, "--replay", trimmed.path, "--speed", "1",
                                    "--qos", "1", "--reconnect-max", "2s", "--flush-timeout", "30s"])
        // Stop the broker once the dense part of the capture (7 s in) is being published;
        // the replay goes on through the outage and for a while after it.
        let denseStart = expected[0].t + 7
        #expect(await collector.wait(timeout: 20) { messages in
            (try? deliveredBatches(messages, topic: topics.readings).batches.contains { $0.readings.contains { $0.t >= denseStart } }) == true
        })
        broker.stop()
        try await Task.sleep(for: .seconds(4))
        try broker.start()
        #expect(await edge.exitStatus(timeout: 60) == 0, "\(edge.stderr)")
        #expect(await collector.wait(timeout: 20) { text($0, topic: topics.status).last == "offline" })
        let (batches, _) = try deliveredBatches(collector.messages, topic: topics.readings)
        #expect(batches.map(\.seq) == Array(1...batches.count))
        let readings = batches.flatMap(\.readings)
        #expect(readings.count == expected.count)
        #expect(sameReadings(readings, expected))
        // The node came back by itself: `online` again after the restart.
        #expect(text(collector.messages, topic: topics.status).filter { $0 == "online" }.count >= 2)
        #expect(telemetry(collector.messages, topic: topics.telemetry).last?["dropped"] as? Int == 0)
    }

    @Test func readingsBeyondTheBufferAreDroppedAndCountedExactly() async throws {
        let expected = try goldenReadings()
        let broker = try Broker(persistent: true)
        let topics = NodeTopics(node: "attic")
        let collector = try Collector(broker: broker, filters: [topics.all], session: "drop-collector")
        try await collector.ready()
        let trimmed = try goldenCapture()
        defer { try? FileManager.default.removeItem(at: trimmed) }
        let edge = try EdgeProcess(["--node", "attic", "--broker", broker.url, "--replay", trimmed.path, "--speed", "2",
                                    "--qos", "1", "--buffer-max", "20", "--reconnect-max", "2s", "--flush-timeout", "30s"])
        #expect(await collector.wait(timeout: 10) { !$0.filter { $0.topic == topics.readings }.isEmpty })
        // Down for the rest of the replay (6.4 s at speed 2): far more than 20 readings.
        broker.stop()
        try await Task.sleep(for: .seconds(8))
        try broker.start()
        #expect(await edge.exitStatus(timeout: 60) == 0, "\(edge.stderr)")
        #expect(await collector.wait(timeout: 20) { text($0, topic: topics.status).last == "offline" })
        let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
        let last = try #require(telemetry(collector.messages, topic: topics.telemetry).last)
        let dropped = try #require(last["dropped"] as? Int)
        #expect(dropped > 0)
        #expect(readings.count + dropped == expected.count)
        #expect(last["published"] as? Int == readings.count)
        // What arrived is the expected sequence with only a run of the oldest-while-away missing.
        #expect(isSubsequence(readings, of: expected))
    }

    @Test func sigtermFlushesWhatIsBufferedAndSaysOffline() async throws {
        let expected = try goldenReadings()
        let broker = try Broker()
        let topics = NodeTopics(node: "porch")
        let collector = try Collector(broker: broker, filters: [topics.all])
        try await collector.ready()
        // Batches only every 60 s: whatever is heard before SIGTERM is still buffered then.
        let edge = try EdgeProcess(["--node", "porch", "--broker", broker.url, "--replay", capture, "--speed", "1",
                                    "--qos", "1", "--batch-interval", "60s", "--batch-max", "10000"])
        #expect(await collector.wait { text($0, topic: topics.status) == ["online"] })
        try await Task.sleep(for: .seconds(8.5))
        #expect(collector.messages(on: topics.readings).isEmpty)
        edge.signal(SIGTERM)
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
        let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
        #expect(readings.count > 10 && readings.count < expected.count)
        #expect(sameReadings(readings, expected.prefix(readings.count)))
        let last = try #require(telemetry(collector.messages, topic: topics.telemetry).last)
        #expect(last["published"] as? Int == readings.count)
        #expect(last["buffered"] as? Int == 0)
    }

    /// SIGHUP (a closed terminal, an operator expecting a reload) leaves the edge running with
    /// its buffer (before: it died of it, exit 129, and what it held was lost); SIGTERM then
    /// flushes that buffer as usual.
    @Test func sighupIsLoggedAndIgnoredAndTheBufferKept() async throws {
        let broker = try Broker()
        let topics = NodeTopics(node: "attic")
        let collector = try Collector(broker: broker, filters: [topics.all])
        try await collector.ready()
        let edge = try EdgeProcess(["--node", "attic", "--broker", broker.url, "--replay", capture, "--speed", "1",
                                    "--qos", "1", "--batch-interval", "60s", "--batch-max", "10000"])
        #expect(await collector.wait { text($0, topic: topics.status) == ["online"] })
        try await Task.sleep(for: .seconds(3))
        edge.signal(SIGHUP)
        #expect(await poll(timeout: 5) { edge.stderr.contains("SIGHUP ignored") }, "\(edge.stderr)")
        #expect(edge.process.isRunning)
        #expect(collector.messages(on: topics.readings).isEmpty)
        edge.signal(SIGTERM)
        #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
        #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
        let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
        #expect(!readings.isEmpty)   // what was buffered at the SIGHUP, flushed by the SIGTERM
    }

    @Test func killedNodeIsReportedOfflineByItsWill() async throws {
        let broker = try Broker()
        let topics = NodeTopics(node: "shed")
        let collector = try Collector(broker: broker, filters: [topics.status])
        try await collector.ready()
        let edge = try EdgeProcess(["--node", "shed", "--broker", broker.url, "--stdin"])
        #expect(await collector.wait { text($0, topic: topics.status) == ["online"] })
        edge.signal(SIGKILL)
        #expect(await collector.wait { text($0, topic: topics.status) == ["online", "offline"] })
    }
}

/// Whether `items` appear in `sequence` in the same order (gaps allowed).
func isSubsequence(_ items: [SeenReading], of sequence: [SeenReading]) -> Bool {
    var it = sequence.makeIterator()
    return items.allSatisfy { item in
        while let next = it.next() { if next.matches(item) { return true } }
        return false
    }
}
