import Synchronization
import Testing
import Wire
@testable import Aggregator

// Found by the review: refusals were invisible. `whereabouts_rejected_total{reason}` has no node
// label, the refusal's text was thrown away and nothing logged one, though the alert said "its
// log names the node and the offset".

private final class Lines: Sendable {
    let all = Mutex<[String]>([])
    func append(_ line: String) { all.withLock { $0.append(line) } }
}

private func batch(node: String, seq: UInt64, t: Double) -> [UInt8] {
    var w = JSONWriter()
    Batch(node: node, seq: seq, t: t, readings: [Reading(id: "mac:aa:bb:cc:dd:ee:ff", rssi: -60, t: t - 0.1, kind: .mac)]).encode(into: &w)
    return w.bytes
}

private func send(_ core: AggregatorCore, _ topic: String, _ bytes: [UInt8], arrival: Double) {
    var effects: [Effect] = []
    bytes.withUnsafeBytes { core.handle(topic: topic, payload: $0, arrival: arrival, into: &effects) }
}

@Test func aRefusalIsLoggedOncePerNodeAndReasonWithTheNodeAndItsClockOffset() throws {
    let lines = Lines(), metrics = AggregatorMetrics(), topics = Topics()
    let core = AggregatorCore(site: twoRoomSite(), topics: topics, locator: .default, dialects: [], clockMode: .node,
                              metrics: metrics, log: lines.append)
    // Node a's clock is 61 s ahead: its first window of batches is refused; b is on time.
    for k in 0..<8 {
        let at = 1000 + Double(k) * 0.25
        send(core, topics.nodeReadings("a"), batch(node: "a", seq: UInt64(k + 1), t: at + 61), arrival: at + 0.02)
        send(core, topics.nodeReadings("b"), batch(node: "b", seq: UInt64(k + 1), t: at), arrival: at + 0.02)
    }
    // b's last batch again (a replay), twice, and a forged node name twice.
    send(core, topics.nodeReadings("b"), batch(node: "b", seq: 8, t: 1001.75), arrival: 1002.1)
    send(core, topics.nodeReadings("b"), batch(node: "b", seq: 8, t: 1001.75), arrival: 1002.2)
    send(core, topics.nodeReadings("x1"), batch(node: "x1", seq: 1, t: 1002), arrival: 1002.3)
    send(core, topics.nodeReadings("x2"), batch(node: "x2", seq: 1, t: 1002), arrival: 1002.4)
    let logged = lines.all.withLock { $0 }
    #expect(logged.count == 3, "\(logged)")
    #expect(logged.filter { $0.contains("node a") && $0.contains("clock_ahead") && $0.contains("60.980 s after its arrival") }.count == 1)
    #expect(logged.filter { $0.contains("node b") && $0.contains("replayed") && $0.contains("seq 8") }.count == 1)
    #expect(logged.filter { $0.contains("unknown_node") && $0.contains("nodes outside the site") }.count == 1)
    #expect(metrics.rejected(.clockAhead).current == 8 && metrics.rejected(.replayed).current == 2 && metrics.rejected(.unknownNode).current == 2)
    // The refused node's offset is visible per node; an accepted node's is its clock less transit.
    #expect(abs(metrics.nodeClockOffset("a").current - 60.98) < 1e-6)
    #expect(abs(metrics.nodeClockOffset("b").current + 0.02) < 1e-6)
    #expect(metrics.registry.render().contains(#"whereabouts_node_clock_offset_seconds{node="a"} 60.98"#))
}
