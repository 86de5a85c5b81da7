import Foundation
import MQTT
import Testing
import Wire

/// A million readings published as fast as one client can, in edge-sized batches of 200
/// from the four nodes, about 50 devices each: the aggregator stays up and serving, and every
/// reading is accounted for in /metrics (accepted, or refused under a reason).
@Test(.timeLimit(.minutes(4)))
func aBurstOfAMillionReadingsIsCountedAndTheAggregatorStaysUp() async throws {
    let dir = try faultDirectory("burst")
    defer { try? FileManager.default.removeItem(at: dir) }
    let broker = try Broker()
    defer { broker.stop() }
    let collector = try Collector(broker: broker, filters: ["whereabouts/aggregator/status"])
    try await collector.ready()
    let aggregator = try AggregatorProcess(broker: broker, db: nil, directory: dir)
    #expect(await collector.wait(timeout: 20) { $0.contains { payloadText($0) == "online" } }, "\(aggregator.log)")

    let perBatch = 200, batches = 5_000
    let devices = (0..<50).map { "mac:c2:3a:6b:00:00:\(String(format: "%02x", $0))" }
    let start = Date()
    var seq: UInt64 = 0
    for b in 0..<batches {
        let node = Reference.nodes[b % 4].name
        if b % 4 == 0 { seq += 1 }
        let t = Date().timeIntervalSince1970
        let readings = (0..<perBatch).map { i in
            Reading(id: devices[(b * perBatch + i) % devices.count], rssi: -50 - (i % 40), t: t - 0.01, kind: .mac)
        }
        var w = JSONWriter(capacity: 24_000)
        Batch(node: node, seq: seq, t: t, readings: readings).encode(into: &w)
        try collector.client.publish(Reference.readingsTopic(node), w.bytes, qos: .atMostOnce)
    }
    let published = Date().timeIntervalSince(start)

    let total = Double(perBatch * batches)
    let counted = await aggregator.waitForMetrics(timeout: 180) { m in
        m.total("whereabouts_readings_total") + m.total("whereabouts_rejected_total") >= total
    }
    let m = try #require(counted)
    let took = Date().timeIntervalSince(start)
    let accepted = m.total("whereabouts_readings_total"), rejected = m.total("whereabouts_rejected_total")
    print("burst: published \(Int(total)) readings in \(String(format: "%.1f", published)) s; accepted \(Int(accepted)), "
          + "rejected \(Int(rejected)) (\(m.rejected("late")) late) after \(String(format: "%.1f", took)) s; "
          + "RSS \(Int(m["process_resident_memory_bytes"] / 1_048_576)) MB")
    #expect(accepted + rejected == total, "\(m)")
    #expect(m["whereabouts_batches_total"] + m.rejected("malformed") + m.rejected("oversized") <= Double(batches))
    #expect(aggregator.isRunning)
    let health = await httpGet("http://127.0.0.1:\(aggregator.httpPort)/healthz")
    #expect(health?.status == 200, "\(health.map { String(decoding: $0.body, as: UTF8.self) } ?? "no answer")")
    #expect(await aggregator.stop() == 0, "\(aggregator.log)")
}
